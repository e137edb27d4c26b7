// Native device API: signals, and puts that deliver a signal after their data.
//
//   gshmem::dev::signal_op(sig_addr, signal, sig_op, pe)     sig_op: NVSHMEM_SIGNAL_SET or _ADD
//   gshmem::dev::signal_fetch(sig_addr)                      signal_wait_until(sig_addr, cmp, value)
//   gshmem::dev::put_signal<Scope>(dest, source, nelems, sig_addr, signal, sig_op, pe)
//   gshmem::dev::putmem_signal<Scope>(dest, source, bytes, sig_addr, signal, sig_op, pe)
//   (and the _nbi forms, which behave the same on a load/store peer)
//   gshmem::dev::putmem_signal_counted_nbi<kBlock>(dest, source, bytes, counter, pe)   counted writes (3.8)
//   gshmem::dev::signal_counted_load(counter), signal_counted_wait_until(counter, expected),
//   signal_counted_reset(counter)
//
// Contracts (NVSHMEM's):
//  - A signal is a symmetric uint64_t. signal_op updates `pe`'s copy atomically (SET stores, ADD
//    adds) and orders nothing else: use fence() before it to order earlier puts, as in
//    put; fence; signal_op.
//  - put_signal delivers the data, then the signal: a PE that sees the signal (signal_wait_until,
//    wait_until on it, or signal_fetch) and then reads `dest` sees the data. The group scopes copy
//    with every thread of the group; one thread sends the signal after the group's copies. Through
//    the network proxy, one thread posts the data, a fence and the signal; the _nbi form returns at
//    once (its source must not change until quiet), the other once all three have completed.
//  - signal_fetch returns the local signal's value with acquire semantics; signal_wait_until polls
//    it like wait_until and returns the value that satisfied the comparison.
//  - Another sig_op ends the kernel with a message (a trap).
//  - Counted writes (NVSHMEM 3.8): the data, then the number of bytes delivered added to `pe`'s copy of a
//    uint64_t counter, so that several producers (blocks, PEs) of disjoint parts can share one counter and
//    the receiver waits for the sum it expects. A put with signal ADD of `bytes` through the route, on every
//    path (NVSHMEM needs a fabric that counts; there it fails with NOT_SUPPORTED elsewhere). It returns
//    NVSHMEM's codes: INVALID_VALUE for a PE out of range, a destination or counter outside the heap, a
//    counter inside the destination, or a destination, source or size not a multiple of 16 bytes (NVSHMEM's
//    alignment, kept so that programs run on both). The block may reuse the source when it returns (flush).
//    wait_until compares modulo 2^64 (counter - expected as a signed number >= 0), so counters may wrap;
//    reset stores 0 into this PE's copy (no remote effect).
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gshmem/constants.h"
#include "gshmem/detail/compare.h"
#include "gshmem/device/ce.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/wait.cuh"
#include "gshmem/status.h"

namespace gshmem {
namespace dev {
__device__ __forceinline__ void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmem::detail::route::signal(sig_addr, signal, sig_op, pe);
}

__device__ __forceinline__ uint64_t signal_fetch(const uint64_t* sig_addr) {
  return gshmem::detail::load_acquire_sys(sig_addr);
}

__device__ __forceinline__ uint64_t signal_wait_until(const uint64_t* sig_addr, int cmp, uint64_t value) {
  detail_wait::check_comparison(cmp);
  gshmem::detail::Backoff backoff;
  uint64_t v;
  while (!gshmem::detail::compare_holds(v = gshmem::detail::load_acquire_sys(sig_addr), cmp, value)) backoff.pause();
  return v;
}

template <Scope S = Scope::kThread>
__device__ __forceinline__ void putmem_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                              uint64_t signal, int sig_op, int pe) {
  gshmem::detail::route::put_signal<S, gshmem::detail::route::Done::kBlocking>(dest, source, bytes, sig_addr, signal,
                                                                               sig_op, pe);
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ void putmem_signal_nbi(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                                  uint64_t signal, int sig_op, int pe) {
  gshmem::detail::route::put_signal<S, gshmem::detail::route::Done::kNbi>(dest, source, bytes, sig_addr, signal, sig_op,
                                                                          pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                                           int sig_op, int pe) {
  putmem_signal<S>(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                               uint64_t signal, int sig_op, int pe) {
  putmem_signal_nbi<S>(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

__device__ __forceinline__ uint64_t signal_counted_load(const uint64_t* counter) {
  return gshmem::detail::load_acquire_sys(counter);
}
__device__ __forceinline__ void signal_counted_wait_until(const uint64_t* counter, uint64_t expected) {
  gshmem::detail::Backoff backoff;
  while (static_cast<int64_t>(gshmem::detail::load_acquire_sys(counter) - expected) < 0) backoff.pause();
}
__device__ __forceinline__ void signal_counted_reset(uint64_t* counter) {
  gshmem::detail::store_relaxed_sys(counter, uint64_t{0});
}

// Collective over the block (every thread passes the same arguments and gets the same status).
template <Scope S = Scope::kBlock>
__device__ __forceinline__ int putmem_signal_counted_nbi(void* dest, const void* source, size_t bytes,
                                                         uint64_t* counter, int pe) {
  static_assert(S == Scope::kBlock, "NVSHMEM's counted writes are block-scoped");
  const auto& st = gshmem::detail::state();
  const char* d = static_cast<const char*>(dest);
  const char* c = reinterpret_cast<const char*>(counter);
  const char* heap_end = st.heap_base + st.heap_span;
  const bool in_heap = d >= st.heap_base && bytes <= static_cast<size_t>(heap_end - d) && c >= st.heap_base &&
                       c + sizeof(uint64_t) <= heap_end;
  const bool aligned = ((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source) | bytes) & 15) == 0 &&
                       (reinterpret_cast<uintptr_t>(counter) & 7) == 0;
  const bool counter_apart = c + sizeof(uint64_t) <= d || c >= d + bytes;
  if (pe < 0 || pe >= st.npes || !in_heap || !aligned || !counter_apart || (bytes > 0 && source == nullptr)) {
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (bytes == 0) return GSHMEM_SUCCESS;
  putmem_signal_nbi<S>(dest, source, bytes, counter, bytes, GSHMEM_SIGNAL_ADD, pe);
  // The source may be reused on return (flush<S>).
  gshmem::detail::by_first_thread<S>([] { gshmem::detail::flush_all(); });
  return GSHMEM_SUCCESS;
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
