// The comparison of the wait and test calls (NVSHMEM_CMP_*), one definition for the host library
// and the device API.
#ifndef GSHMEM_DETAIL_COMPARE_H_
#define GSHMEM_DETAIL_COMPARE_H_

#include "gshmem/constants.h"

#if defined(__CUDACC__)
#define GSHMEMI_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define GSHMEMI_HOST_DEVICE inline
#endif

namespace gshmem {
namespace detail {

// Whether `a cmp b` holds. Contract: the caller has checked that `cmp` is one of NVSHMEM_CMP_EQ,
// _NE, _GT, _LE, _LT, _GE (any other value is taken as _GE).
template <class T>
GSHMEMI_HOST_DEVICE bool compare_holds(T a, int cmp, T b) {
  switch (cmp) {
    case GSHMEM_CMP_EQ:
      return a == b;
    case GSHMEM_CMP_NE:
      return a != b;
    case GSHMEM_CMP_GT:
      return a > b;
    case GSHMEM_CMP_LE:
      return a <= b;
    case GSHMEM_CMP_LT:
      return a < b;
    default:  // NVSHMEM_CMP_GE
      return a >= b;
  }
}

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_HOST_DEVICE

#endif  // GSHMEM_DETAIL_COMPARE_H_
