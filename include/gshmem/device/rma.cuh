// Native device API: remote memory access and the queries it needs.
//
// Contracts (the NVSHMEM ones):
//  - `dest` of a put and `source` of a get are symmetric addresses (from nvshmem_malloc) of the
//    calling PE; the other pointer is any memory the calling thread may access.
//  - put returns once `source` may be reused; the data is delivered by the next quiet() (or
//    barrier). get returns with the data in `dest`. The _nbi forms complete by the next quiet(),
//    fence() or barrier: small ones are copied by the calling threads before they return, large ones
//    by the copy engines (see putmem_nbi below).
//  - For Scope::kWarp / kBlock, every thread of the warp / block calls with the same arguments;
//    the group synchronises before and after, and all of its threads move data.
//  - A peer whose heap is mapped here (same node, peer access; nvshmem_ptr(ptr, pe) != NULL) is
//    reached by loads and stores; any other one through the network proxy (net.cuh): one request per
//    call of the group, which a blocking put or get waits for.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gshmem/device/route.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {

__device__ __forceinline__ int my_pe() { return detail::state().mype; }
__device__ __forceinline__ int n_pes() { return detail::state().npes; }

// Address of `pe`'s copy of the symmetric object at `sym`, in this GPU's address space, where `pe` is
// mapped here (route.cuh; nullptr for a PE reached through the proxy).
__device__ __forceinline__ char* peer_address(const void* sym, int pe) {
  return gshmem::detail::route::address(sym, pe);
}

// The multicast address of `p` for `team`: NULL, as gshmem makes no multicast objects yet (NVSHMEM
// returns NULL too where NVLink multicast is absent or off).
__device__ __forceinline__ void* mc_ptr(int team, const void* p) { return nullptr; }

// nvshmem_ptr: a load/store pointer to `pe`'s copy of `ptr`, or nullptr if there is none.
__device__ __forceinline__ void* ptr(const void* p, int pe) {
  const auto& st = gshmem::detail::state();
  const char* c = static_cast<const char*>(p);
  if (pe < 0 || pe >= st.npes || c < st.heap_base || c >= st.heap_base + st.heap_span) return nullptr;
  char* base = st.peer_base[pe];
  return base ? base + (c - st.heap_base) : nullptr;
}

template <class T>
__device__ __forceinline__ void p(T* dest, const T value, int pe) {
  gshmem::detail::route::store(dest, value, pe);
}

// g reads the peer's value as it is now: a morally-strong load (not cached in L1, never merged
// with another g or hoisted out of a loop), so polling a peer's variable with g terminates.
template <class T>
__device__ __forceinline__ T g(const T* source, int pe) {
  return gshmem::detail::route::load(source, pe);
}

namespace detail_rma {
using gshmem::detail::route::Dir;
using gshmem::detail::route::Done;
// The group's copy between its barriers (the group's threads may have written the source just before,
// and may read the destination just after).
template <Scope S, Dir D, Done C>
__device__ __forceinline__ void copy(void* dest, const void* source, size_t bytes, int pe) {
  gshmem::detail::group_sync<S>();
  gshmem::detail::route::copy<S, D, C>(dest, source, bytes, pe);
  gshmem::detail::group_sync<S>();
}
}  // namespace detail_rma

template <Scope S = Scope::kThread>
__device__ __forceinline__ void putmem(void* dest, const void* source, size_t bytes, int pe) {
  detail_rma::copy<S, detail_rma::Dir::kPut, detail_rma::Done::kBlocking>(dest, source, bytes, pe);
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ void getmem(void* dest, const void* source, size_t bytes, int pe) {
  detail_rma::copy<S, detail_rma::Dir::kGet, detail_rma::Done::kBlocking>(dest, source, bytes, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void put(T* dest, const T* source, size_t nelems, int pe) {
  putmem<S>(dest, source, nelems * sizeof(T), pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void get(T* dest, const T* source, size_t nelems, int pe) {
  getmem<S>(dest, source, nelems * sizeof(T), pe);
}
// Non-blocking forms: complete by the next quiet(), fence() or barrier. Below GSHMEM_CE_MIN_SIZE
// bytes per call (4 x that from a grid of more than GSHMEM_CE_MAX_BLOCKS blocks), with a local
// buffer that is not global memory, or when the copy engines are off, the calling threads copy
// before they return, as the blocking forms do; otherwise one thread of the group hands the whole
// copy to the copy engines (ce.cuh) and the group returns at once.
template <Scope S = Scope::kThread>
__device__ __forceinline__ void putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  detail_rma::copy<S, detail_rma::Dir::kPut, detail_rma::Done::kNbi>(dest, source, bytes, pe);
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ void getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  detail_rma::copy<S, detail_rma::Dir::kGet, detail_rma::Done::kNbi>(dest, source, bytes, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void put_nbi(T* dest, const T* source, size_t nelems, int pe) {
  putmem_nbi<S>(dest, source, nelems * sizeof(T), pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void get_nbi(T* dest, const T* source, size_t nelems, int pe) {
  getmem_nbi<S>(dest, source, nelems * sizeof(T), pe);
}

// Strided forms: element i goes from source[i * sst] to dest[i * dst] (strides in elements, at
// least 1). The threads of the group take every group_size-th element (route::strided).
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  gshmem::detail::group_sync<S>();
  gshmem::detail::route::strided<S, detail_rma::Dir::kPut>(dest, source, dst, sst, nelems, pe);
  gshmem::detail::group_sync<S>();
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  gshmem::detail::group_sync<S>();
  gshmem::detail::route::strided<S, detail_rma::Dir::kGet>(dest, source, dst, sst, nelems, pe);
  gshmem::detail::group_sync<S>();
}

// Element types of the sized forms (put8 ... put128).
template <int Bits>
struct SizedElement;
template <>
struct SizedElement<8> {
  using type = uint8_t;
};
template <>
struct SizedElement<16> {
  using type = uint16_t;
};
template <>
struct SizedElement<32> {
  using type = uint32_t;
};
template <>
struct SizedElement<64> {
  using type = uint64_t;
};
template <>
struct SizedElement<128> {
  using type = uint4;
};

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
