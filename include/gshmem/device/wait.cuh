// Native device API: point-to-point synchronisation on local symmetric variables.
//
//   gshmem::dev::wait_until(ivar, cmp, value)                 test(ivar, cmp, value)
//   gshmem::dev::wait_until_all(ivars, n, status, cmp, value)  and _any, _some, and the _vector forms
//   gshmem::dev::test_all(ivars, n, status, cmp, value)       and _any, _some, and the _vector forms
//
// Contracts (NVSHMEM's, from OpenSHMEM):
//  - `ivars` are symmetric variables of the calling PE that other PEs update with puts, atomics or
//    signals. `cmp` is one of NVSHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE; another value ends the kernel
//    with a message (a trap).
//  - `status` may be NULL; status[i] != 0 excludes element i. The _vector forms compare element i
//    with cmp_values[i].
//  - A wait returns once the condition holds, and what the caller reads afterwards is at least as
//    new as what the PE that made it hold wrote before its update (every poll is an acquire load at
//    system scope; no fence follows it). A test that returns "satisfied" gives the same guarantee.
//  - wait_until_any and test_any return the index of one satisfied element, SIZE_MAX when none can
//    be (every element excluded, or nelems == 0); successive calls start their scan at rotating
//    indices so that no element is starved. wait_until_some and test_some store the indices of all
//    satisfied elements in `indices` (ascending) and return their number; wait_until_some returns 0
//    only when every element is excluded. test_all is 1 when every element not excluded satisfies.
//  - Waits poll with a bounded backoff (ordering.cuh): a few back-to-back polls, then sleeps that
//    double up to about a microsecond.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gshmem/constants.h"
#include "gshmem/detail/compare.h"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {
namespace detail_wait {

static __device__ __noinline__ void bad_comparison(int cmp) {
  printf(
      "gshmem: a wait or test was called with comparison %d, which is not one of NVSHMEM_CMP_EQ (0), _NE (1), "
      "_GT (2), _LE (3), _LT (4) or _GE (5)\n",
      cmp);
  __trap();
}

__device__ __forceinline__ void check_comparison(int cmp) {
  if (static_cast<unsigned>(cmp) > static_cast<unsigned>(GSHMEM_CMP_GE)) bad_comparison(cmp);
}

__device__ __forceinline__ bool excluded(const int* status, size_t i) { return status && status[i] != 0; }

// Values to compare with: one for all elements, or one per element.
template <class T>
struct One {
  T v;
  __device__ __forceinline__ T operator[](size_t) const { return v; }
};
template <class T>
struct Each {
  const T* v;
  __device__ __forceinline__ T operator[](size_t i) const { return v[i]; }
};

template <class T, class Values>
__device__ __forceinline__ bool element_holds(const T* ivars, size_t i, int cmp, const Values& values) {
  return gshmem::detail::compare_holds(gshmem::detail::load_acquire_sys(ivars + i), cmp, values[i]);
}

// Where the next _any call starts its scan.
__device__ __forceinline__ size_t any_start(size_t nelems) {
  const auto& st = gshmem::detail::state();
  if (!st.wait_any_counter || nelems <= 1) return 0;
  return static_cast<size_t>(atomicAdd(reinterpret_cast<unsigned long long*>(st.wait_any_counter), 1ull) % nelems);
}

template <class T, class Values>
__device__ __forceinline__ void wait_all(const T* ivars, size_t nelems, const int* status, int cmp,
                                         const Values& values) {
  check_comparison(cmp);
  for (size_t i = 0; i < nelems; ++i) {
    if (excluded(status, i)) continue;
    gshmem::detail::Backoff backoff;
    while (!element_holds(ivars, i, cmp, values)) backoff.pause();
  }
}

template <class T, class Values>
__device__ __forceinline__ size_t scan_any(const T* ivars, size_t nelems, const int* status, int cmp,
                                           const Values& values, size_t start, bool* any_eligible) {
  for (size_t k = 0; k < nelems; ++k) {
    size_t i = start + k < nelems ? start + k : start + k - nelems;
    if (excluded(status, i)) continue;
    *any_eligible = true;
    if (element_holds(ivars, i, cmp, values)) return i;
  }
  return SIZE_MAX;
}

template <class T, class Values>
__device__ __forceinline__ size_t wait_any(const T* ivars, size_t nelems, const int* status, int cmp,
                                           const Values& values) {
  check_comparison(cmp);
  const size_t start = any_start(nelems);
  gshmem::detail::Backoff backoff;
  while (true) {
    bool eligible = false;
    size_t i = scan_any(ivars, nelems, status, cmp, values, start, &eligible);
    if (i != SIZE_MAX) return i;
    if (!eligible) return SIZE_MAX;
    backoff.pause();
  }
}

template <class T, class Values>
__device__ __forceinline__ size_t scan_some(const T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                                            const Values& values, bool* any_eligible) {
  size_t found = 0;
  for (size_t i = 0; i < nelems; ++i) {
    if (excluded(status, i)) continue;
    *any_eligible = true;
    if (element_holds(ivars, i, cmp, values)) indices[found++] = i;
  }
  return found;
}

template <class T, class Values>
__device__ __forceinline__ size_t wait_some(const T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                                            const Values& values) {
  check_comparison(cmp);
  gshmem::detail::Backoff backoff;
  while (true) {
    bool eligible = false;
    size_t found = scan_some(ivars, nelems, indices, status, cmp, values, &eligible);
    if (found > 0) return found;
    if (!eligible) return 0;
    backoff.pause();
  }
}

template <class T, class Values>
__device__ __forceinline__ int test_all(const T* ivars, size_t nelems, const int* status, int cmp,
                                        const Values& values) {
  check_comparison(cmp);
  for (size_t i = 0; i < nelems; ++i) {
    if (!excluded(status, i) && !element_holds(ivars, i, cmp, values)) return 0;
  }
  return 1;
}

template <class T, class Values>
__device__ __forceinline__ size_t test_any(const T* ivars, size_t nelems, const int* status, int cmp,
                                           const Values& values) {
  check_comparison(cmp);
  bool eligible = false;
  return scan_any(ivars, nelems, status, cmp, values, any_start(nelems), &eligible);
}

template <class T, class Values>
__device__ __forceinline__ size_t test_some(const T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                                            const Values& values) {
  check_comparison(cmp);
  bool eligible = false;
  return scan_some(ivars, nelems, indices, status, cmp, values, &eligible);
}

}  // namespace detail_wait

template <class T>
__device__ __forceinline__ void wait_until(const T* ivar, int cmp, T value) {
  detail_wait::check_comparison(cmp);
  gshmem::detail::Backoff backoff;
  while (!gshmem::detail::compare_holds(gshmem::detail::load_acquire_sys(ivar), cmp, value)) backoff.pause();
}
template <class T>
__device__ __forceinline__ int test(const T* ivar, int cmp, T value) {
  detail_wait::check_comparison(cmp);
  return gshmem::detail::compare_holds(gshmem::detail::load_acquire_sys(ivar), cmp, value) ? 1 : 0;
}

template <class T>
__device__ __forceinline__ void wait_until_all(const T* ivars, size_t nelems, const int* status, int cmp, T value) {
  detail_wait::wait_all(ivars, nelems, status, cmp, detail_wait::One<T>{value});
}
template <class T>
__device__ __forceinline__ void wait_until_all_vector(const T* ivars, size_t nelems, const int* status, int cmp,
                                                      const T* values) {
  detail_wait::wait_all(ivars, nelems, status, cmp, detail_wait::Each<T>{values});
}
template <class T>
__device__ __forceinline__ size_t wait_until_any(const T* ivars, size_t nelems, const int* status, int cmp, T value) {
  return detail_wait::wait_any(ivars, nelems, status, cmp, detail_wait::One<T>{value});
}
template <class T>
__device__ __forceinline__ size_t wait_until_any_vector(const T* ivars, size_t nelems, const int* status, int cmp,
                                                        const T* values) {
  return detail_wait::wait_any(ivars, nelems, status, cmp, detail_wait::Each<T>{values});
}
template <class T>
__device__ __forceinline__ size_t wait_until_some(const T* ivars, size_t nelems, size_t* indices, const int* status,
                                                  int cmp, T value) {
  return detail_wait::wait_some(ivars, nelems, indices, status, cmp, detail_wait::One<T>{value});
}
template <class T>
__device__ __forceinline__ size_t wait_until_some_vector(const T* ivars, size_t nelems, size_t* indices,
                                                         const int* status, int cmp, const T* values) {
  return detail_wait::wait_some(ivars, nelems, indices, status, cmp, detail_wait::Each<T>{values});
}

template <class T>
__device__ __forceinline__ int test_all(const T* ivars, size_t nelems, const int* status, int cmp, T value) {
  return detail_wait::test_all(ivars, nelems, status, cmp, detail_wait::One<T>{value});
}
template <class T>
__device__ __forceinline__ int test_all_vector(const T* ivars, size_t nelems, const int* status, int cmp,
                                               const T* values) {
  return detail_wait::test_all(ivars, nelems, status, cmp, detail_wait::Each<T>{values});
}
template <class T>
__device__ __forceinline__ size_t test_any(const T* ivars, size_t nelems, const int* status, int cmp, T value) {
  return detail_wait::test_any(ivars, nelems, status, cmp, detail_wait::One<T>{value});
}
template <class T>
__device__ __forceinline__ size_t test_any_vector(const T* ivars, size_t nelems, const int* status, int cmp,
                                                  const T* values) {
  return detail_wait::test_any(ivars, nelems, status, cmp, detail_wait::Each<T>{values});
}
template <class T>
__device__ __forceinline__ size_t test_some(const T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
                                            T value) {
  return detail_wait::test_some(ivars, nelems, indices, status, cmp, detail_wait::One<T>{value});
}
template <class T>
__device__ __forceinline__ size_t test_some_vector(const T* ivars, size_t nelems, size_t* indices, const int* status,
                                                   int cmp, const T* values) {
  return detail_wait::test_some(ivars, nelems, indices, status, cmp, detail_wait::Each<T>{values});
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
