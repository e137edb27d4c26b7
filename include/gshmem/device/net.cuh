// Device-initiated operations on PEs that this GPU does not map (PEs on other hosts, or every other PE
// with NVSHMEM_DISABLE_P2P): each is a request in the proxy's ring (proxy.cuh), served in order by the
// proxy, a host thread of this PE that issues it through the network transport (src/transport/proxy.h).
//
// Which PEs are reached this way is decided in one place, route.cuh (route::to).
//
// Contracts:
//  - One thread posts a request; a group (warp, block) posts one request for its whole copy.
//  - Requests are issued in ticket order; the network orders nothing between two of them unless a
//    fence request lies between (put_signal posts one between its data and its signal).
//  - proxy_wait_completed(t + 1): request t has completed at its target. quiet() waits for every
//    request taken before it; the barriers quiet first, so they complete the requests too.
//  - Memory the proxy reads or writes (`local`) must be global memory of this process: data in
//    registers, shared memory or the stack travels inside the request, 16 bytes at a time.
//  - A request waits for a free slot (a full ring makes the kernel wait, never fail). When the proxy
//    stops on a failed operation, a kernel waiting on the ring ends with a trap; the host log says which
//    operation failed and why before the job ends.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/ordering.cuh"
#include "gshmem/device/proxy.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace detail {

// The offset of symmetric address `sym` in every PE's heap.
__device__ __forceinline__ uint64_t heap_offset(const void* sym) {
  return static_cast<uint64_t>(static_cast<const char*>(sym) - state().heap_base);
}

__device__ __forceinline__ ProxyRequest net_request(uint32_t op, int pe, uint64_t offset) {
  ProxyRequest r{};
  r.op = op;
  r.pe = pe;
  r.offset = offset;
  return r;
}

// Posts a put of `bytes` from `src` to `pe`'s heap at `offset`: one request when `src` is global memory,
// else requests that carry the data, 16 bytes each. Returns the last ticket.
static __device__ __noinline__ uint64_t net_put(uint64_t offset, const void* src, size_t bytes, int pe) {
  if (__isGlobal(src)) {
    ProxyRequest r = net_request(kProxyPut, pe, offset);
    r.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(src));
    r.bytes = bytes;
    return proxy_post(r);
  }
  uint64_t t = 0;
  const char* s = static_cast<const char*>(src);
  for (size_t at = 0; at < bytes; at += kProxyInlineBytes) {
    ProxyRequest r = net_request(kProxyPut, pe, offset + at);
    r.bytes = bytes - at < kProxyInlineBytes ? bytes - at : kProxyInlineBytes;
    __builtin_memcpy(r.data, s + at, r.bytes);
    t = proxy_post(r);
  }
  return t;
}

// A get of `bytes` from `pe`'s heap at `offset` into `dst`. Into global memory: one request, complete
// by quiet, or by proxy_wait_completed of what it returns (its ticket + 1). Elsewhere (registers, shared memory, the
// stack): requests of 16 bytes whose results this thread copies before it returns (returns 0: nothing to wait for).
static __device__ __noinline__ uint64_t net_get(void* dst, uint64_t offset, size_t bytes, int pe) {
  if (__isGlobal(dst)) {
    ProxyRequest r = net_request(kProxyGet, pe, offset);
    r.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dst));
    r.bytes = bytes;
    return proxy_post(r) + 1;
  }
  char* d = static_cast<char*>(dst);
  for (size_t at = 0; at < bytes; at += kProxyInlineBytes) {
    ProxyRequest r = net_request(kProxyGet | kProxyFetch, pe, offset + at);
    r.bytes = bytes - at < kProxyInlineBytes ? bytes - at : kProxyInlineBytes;
    uint64_t v[2];
    proxy_result(proxy_post(r), v);
    __builtin_memcpy(d + at, v, r.bytes);
  }
  return 0;
}

// An atomic on the word of `bytes` (4 or 8) at `offset` of `pe`; with `fetch` it returns the old value.
static __device__ __noinline__ uint64_t net_amo(int32_t amo, uint64_t offset, int bytes, uint64_t operand,
                                                uint64_t compare, bool fetch, int pe) {
  ProxyRequest r = net_request(kProxyAmo | (fetch ? kProxyFetch : 0u), pe, offset);
  r.amo = amo;
  r.amo_bytes = bytes;
  r.bytes = static_cast<uint64_t>(bytes);
  r.data[0] = operand;
  r.data[1] = compare;
  const uint64_t t = proxy_post(r);
  if (!fetch) return 0;
  uint64_t v[2];
  proxy_result(t, v);
  return v[0];
}

// A barrier's arrival: `seq` into `pe`'s copy of the flag at `flag`, as a put that carries it. A flag has
// one writer and only grows, so a store is all it needs (no atomic: networks that emulate atomics cannot
// apply them to GPU memory). Requests before it that the barrier must complete were completed by its quiet.
__device__ __forceinline__ void net_flag(uint64_t* flag, uint64_t seq, int pe) {
  net_put(heap_offset(flag), &seq, sizeof seq, pe);
}

// Orders the requests before it with those after it, at every PE.
__device__ __forceinline__ uint64_t net_fence() { return proxy_post(net_request(kProxyFence, 0, 0)); }

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
