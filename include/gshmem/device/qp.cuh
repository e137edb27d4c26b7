// Native device API: queue pairs (NVSHMEM 3.5's nvshmemx_qp_*): the operations of rma.cuh and signal.cuh on
// a queue pair, and the queue pairs' fence and quiet.
//
//   gshmem::dev::qp_put<Scope>(dest, source, nelems, pe, qp)   qp_get, qp_put_nbi, qp_get_nbi, qp_p, qp_g,
//   qp_put_signal<Scope>, qp_put_signal_nbi<Scope>, qp_signal_op, qp_fence<Scope>(pe, qps, n), qp_quiet<Scope>
//
// Contracts (NVSHMEM's): a queue pair is a channel of ordering and completion: operations on different
// queue pairs are not ordered with each other, and qp_quiet / qp_fence complete / order only those of the
// queue pairs they are given (for PE `pe`, or GSHMEM_QP_PE_ALL). A handle comes from qp_create on the host;
// GSHMEM_QP_DEFAULT is the ordinary API's channel, GSHMEM_QP_ANY lets the library choose.
// gshmem has one channel per peer (mapped peers take the GPU's stores, the network proxy one ordered ring),
// so qp_create hands out GSHMEM_QP_DEFAULT handles, as NVSHMEM does where it has no custom queue pairs: each
// operation is the ordinary one, and qp_quiet and qp_fence complete and order everything the PE issued,
// which is all that any set of its queue pairs can hold (more than they promise, never less).
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/sync.cuh"

namespace gshmem {
namespace dev {

using Qp = int;

template <class T>
__device__ __forceinline__ void qp_p(T* dest, const T value, int pe, Qp) {
  p<T>(dest, value, pe);
}
template <class T>
__device__ __forceinline__ T qp_g(const T* source, int pe, Qp) {
  return g<T>(source, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void qp_put(T* dest, const T* source, size_t nelems, int pe, Qp) {
  put<S>(dest, source, nelems, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void qp_get(T* dest, const T* source, size_t nelems, int pe, Qp) {
  get<S>(dest, source, nelems, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void qp_put_nbi(T* dest, const T* source, size_t nelems, int pe, Qp) {
  put_nbi<S>(dest, source, nelems, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void qp_get_nbi(T* dest, const T* source, size_t nelems, int pe, Qp) {
  get_nbi<S>(dest, source, nelems, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void qp_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                              uint64_t signal, int sig_op, int pe, Qp) {
  put_signal<S>(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ void qp_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,
                                                  uint64_t signal, int sig_op, int pe, Qp) {
  put_signal_nbi<S>(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
__device__ __forceinline__ void qp_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Qp) {
  signal_op(sig_addr, signal, sig_op, pe);
}

// The group's operations on the queue pairs qps[0..n) to `pe` (or every PE) are ordered (fence) or complete
// (quiet) when it returns: here all of the PE's (see above). Collective over the group.
template <Scope S = Scope::kThread>
__device__ __forceinline__ void qp_quiet(int pe, const Qp* qps, int n) {
  (void)pe, (void)qps, (void)n;
  gshmem::detail::by_first_thread<S>([] { quiet(); });
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ void qp_fence(int pe, const Qp* qps, int n) {
  (void)pe, (void)qps, (void)n;
  gshmem::detail::by_first_thread<S>([] { fence(); });
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
