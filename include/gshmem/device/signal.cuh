// Native device API: signals, and puts that deliver a signal after their data.
//
//   gshmem::dev::signal_op(sig_addr, signal, sig_op, pe)     sig_op: NVSHMEM_SIGNAL_SET or _ADD
//   gshmem::dev::signal_fetch(sig_addr)                      signal_wait_until(sig_addr, cmp, value)
//   gshmem::dev::put_signal<Scope>(dest, source, nelems, sig_addr, signal, sig_op, pe)
//   gshmem::dev::putmem_signal<Scope>(dest, source, bytes, sig_addr, signal, sig_op, pe)
//   (and the _nbi forms, which behave the same on a load/store peer)
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
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gshmem/constants.h"
#include "gshmem/detail/compare.h"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/wait.cuh"

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

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
