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

#include "gshmem/device/ce.cuh"
#include "gshmem/device/copy.cuh"
#include "gshmem/device/net.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"

#ifndef GSHMEM_DEVICE_CHECKS
#define GSHMEM_DEVICE_CHECKS 0  // 1: check PE numbers and heap bounds on the device (trap on error)
#endif

namespace gshmem {
namespace dev {

__device__ __forceinline__ int my_pe() { return detail::state().mype; }
__device__ __forceinline__ int n_pes() { return detail::state().npes; }

namespace detail_rma {
__device__ __forceinline__ void check(const void* sym, size_t bytes, int pe) {
#if GSHMEM_DEVICE_CHECKS
  const auto& st = gshmem::detail::state();
  const char* p = static_cast<const char*>(sym);
  if (st.abi == 0) {
    printf(
        "gshmem: a kernel used the device API before the GPU was bound (call nvshmem_malloc or "
        "nvshmem_barrier_all after nvshmem_init first)\n");
    __trap();
  }
  if (pe < 0 || pe >= st.npes) {
    printf("gshmem: PE %d is out of range [0, %d)\n", pe, st.npes);
    __trap();
  }
  if (p < st.heap_base || p + bytes > st.heap_base + st.heap_span) {
    printf("gshmem: address %p (+%llu bytes) is not in the symmetric heap\n", sym, (unsigned long long)bytes);
    __trap();
  }
  if (st.peer_base[pe] == nullptr && st.net_ring == nullptr) {
    printf("gshmem: PE %d is not reachable from PE %d\n", pe, st.mype);
    __trap();
  }
#else
  (void)sym;
  (void)bytes;
  (void)pe;
#endif
}
}  // namespace detail_rma

// Address of `pe`'s copy of the symmetric object at `sym`, in this GPU's address space. For the PEs
// whose windows lie side by side (all of a node's, normally) it is arithmetic on the constant state:
// no memory load, which after a system-scope fence would go to L2.
__device__ __forceinline__ char* peer_address(const void* sym, int pe) {
  const auto& st = gshmem::detail::state();
  const uint64_t offset = static_cast<uint64_t>(static_cast<const char*>(sym) - st.heap_base);
  const unsigned index = static_cast<unsigned>(pe - st.window_first);
  if (index < static_cast<unsigned>(st.window_count)) {
    return reinterpret_cast<char*>(st.window_base + index * st.heap_span + offset);
  }
  const char* base =
      reinterpret_cast<const char*>(__ldg(reinterpret_cast<const unsigned long long*>(st.peer_base) + pe));
  return const_cast<char*>(base) + offset;
}

// nvshmem_ptr: a load/store pointer to `pe`'s copy of `ptr`, or nullptr if there is none.
// The multicast address of `p` for `team`: NULL, as gshmem makes no multicast objects yet (NVSHMEM
// returns NULL too where NVLink multicast is absent or off).
__device__ __forceinline__ void* mc_ptr(int team, const void* p) { return nullptr; }

__device__ __forceinline__ void* ptr(const void* p, int pe) {
  const auto& st = gshmem::detail::state();
  const char* c = static_cast<const char*>(p);
  if (pe < 0 || pe >= st.npes || c < st.heap_base || c >= st.heap_base + st.heap_span) return nullptr;
  char* base = st.peer_base[pe];
  return base ? base + (c - st.heap_base) : nullptr;
}

template <class T>
__device__ __forceinline__ void p(T* dest, const T value, int pe) {
  detail_rma::check(dest, sizeof(T), pe);
  if (gshmem::detail::net_peer(pe)) {
    gshmem::detail::net_put(gshmem::detail::heap_offset(dest), &value, sizeof(T), pe);
    return;
  }
  *reinterpret_cast<T*>(peer_address(dest, pe)) = value;
}

// g reads the peer's value as it is now: a morally-strong load (not cached in L1, never merged
// with another g or hoisted out of a loop), so polling a peer's variable with g terminates.
template <class T>
__device__ __forceinline__ T g(const T* source, int pe) {
  detail_rma::check(source, sizeof(T), pe);
  if (gshmem::detail::net_peer(pe)) {
    T v;
    gshmem::detail::net_get(&v, gshmem::detail::heap_offset(source), sizeof(T), pe);
    return v;
  }
  const T* remote = reinterpret_cast<const T*>(peer_address(source, pe));
  if constexpr (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    return gshmem::detail::load_relaxed_sys(remote);
  } else {
    static_assert(sizeof(T) == 1, "g reads 1, 2, 4 or 8 bytes");
    T v;
    unsigned char b = *reinterpret_cast<const volatile unsigned char*>(remote);
    __builtin_memcpy(&v, &b, 1);
    return v;
  }
}

// Threads of the group with no part in the copy (idle_in_group_copy) go from barrier to barrier.
namespace detail_rma {
// The network forms of the group copies: one thread of the group posts the whole copy; a blocking one
// waits for it to complete (a put's source may then be reused, a get's data is there).
template <Scope S>
__device__ __forceinline__ void net_copy(bool put, void* dest, const void* source, size_t bytes, int pe, bool wait) {
  if (gshmem::detail::group_rank<S>() != 0 || bytes == 0) return;
  const uint64_t upto = put ? gshmem::detail::net_put(gshmem::detail::heap_offset(dest), source, bytes, pe) + 1
                            : gshmem::detail::net_get(dest, gshmem::detail::heap_offset(source), bytes, pe);
  if (wait && upto != 0) gshmem::detail::net_wait_completed(upto);
}
}  // namespace detail_rma

template <Scope S = Scope::kThread>
__device__ __forceinline__ void putmem(void* dest, const void* source, size_t bytes, int pe) {
  gshmem::detail::group_sync<S>();
  if (gshmem::detail::net_peer(pe)) {
    detail_rma::check(dest, bytes, pe);
    detail_rma::net_copy<S>(true, dest, source, bytes, pe, true);
  } else if (!gshmem::detail::idle_in_group_copy<S>(dest, source, bytes)) {
    detail_rma::check(dest, bytes, pe);
    gshmem::detail::group_copy<S, 4>(peer_address(dest, pe), source, bytes);
  }
  gshmem::detail::group_sync<S>();
}

template <Scope S = Scope::kThread>
__device__ __forceinline__ void getmem(void* dest, const void* source, size_t bytes, int pe) {
  gshmem::detail::group_sync<S>();
  if (gshmem::detail::net_peer(pe)) {
    detail_rma::check(source, bytes, pe);
    detail_rma::net_copy<S>(false, dest, source, bytes, pe, true);
  } else if (!gshmem::detail::idle_in_group_copy<S>(dest, source, bytes)) {
    detail_rma::check(source, bytes, pe);
    // More loads in flight for gets: each one waits for a round trip over the link.
    gshmem::detail::group_copy<S, 8>(dest, peer_address(source, pe), bytes);
  }
  gshmem::detail::group_sync<S>();
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
namespace detail_rma {
// The copy of putmem_nbi and getmem_nbi: the group's threads copy, or, when `ce`, one thread hands
// the copy to the copy engines. One path for both: the SM copy gets no bytes when the copy engines
// take them. (Two branches around the copy loop cost a kernel that loops over these calls ~30
// registers.)
template <Scope S, int Unroll>
__device__ __forceinline__ void copy_nbi(void* to, const void* from, size_t bytes, bool ce) {
  gshmem::detail::group_copy<S, Unroll>(to, from, ce ? 0 : bytes);
  if (ce && gshmem::detail::group_rank<S>() == 0) gshmem::detail::ce_post(to, from, bytes);
}
}  // namespace detail_rma

template <Scope S = Scope::kThread>
__device__ __forceinline__ void putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  gshmem::detail::group_sync<S>();
  if (gshmem::detail::net_peer(pe)) {
    detail_rma::check(dest, bytes, pe);
    detail_rma::net_copy<S>(true, dest, source, bytes, pe, false);
  } else if (!gshmem::detail::idle_in_group_copy<S>(dest, source, bytes)) {
    detail_rma::check(dest, bytes, pe);
    detail_rma::copy_nbi<S, 4>(peer_address(dest, pe), source, bytes, gshmem::detail::ce_enabled(bytes, source));
  }
  gshmem::detail::group_sync<S>();
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ void getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  gshmem::detail::group_sync<S>();
  if (gshmem::detail::net_peer(pe)) {
    detail_rma::check(source, bytes, pe);
    detail_rma::net_copy<S>(false, dest, source, bytes, pe, false);
  } else if (!gshmem::detail::idle_in_group_copy<S>(dest, source, bytes)) {
    detail_rma::check(source, bytes, pe);
    // More loads in flight for gets, as in getmem.
    detail_rma::copy_nbi<S, 8>(dest, peer_address(source, pe), bytes, gshmem::detail::ce_enabled(bytes, dest));
  }
  gshmem::detail::group_sync<S>();
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
// least 1). The threads of the group take every group_size-th element.
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  gshmem::detail::group_sync<S>();
  if (nelems > 0) detail_rma::check(dest, ((nelems - 1) * dst + 1) * sizeof(T), pe);
  const size_t step = static_cast<size_t>(gshmem::detail::group_size<S>());
  if (gshmem::detail::net_peer(pe)) {
    // One request per element, carrying it: the source may be reused on return.
    const uint64_t at = gshmem::detail::heap_offset(dest);
    for (size_t i = gshmem::detail::group_rank<S>(); i < nelems; i += step) {
      const T v = source[i * sst];
      gshmem::detail::net_put(at + i * dst * sizeof(T), &v, sizeof(T), pe);
    }
  } else {
    T* remote = reinterpret_cast<T*>(peer_address(dest, pe));
    for (size_t i = gshmem::detail::group_rank<S>(); i < nelems; i += step) remote[i * dst] = source[i * sst];
  }
  gshmem::detail::group_sync<S>();
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  gshmem::detail::group_sync<S>();
  if (nelems > 0) detail_rma::check(source, ((nelems - 1) * sst + 1) * sizeof(T), pe);
  const size_t step = static_cast<size_t>(gshmem::detail::group_size<S>());
  if (gshmem::detail::net_peer(pe)) {
    // One request per element, whose result the thread stores.
    const uint64_t at = gshmem::detail::heap_offset(source);
    for (size_t i = gshmem::detail::group_rank<S>(); i < nelems; i += step) {
      T v;
      gshmem::detail::net_get(&v, at + i * sst * sizeof(T), sizeof(T), pe);
      dest[i * dst] = v;
    }
  } else {
    const T* remote = reinterpret_cast<const T*>(peer_address(source, pe));
    for (size_t i = gshmem::detail::group_rank<S>(); i < nelems; i += step) dest[i * dst] = remote[i * sst];
  }
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
