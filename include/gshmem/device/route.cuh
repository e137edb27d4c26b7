// The one place where device code decides how a PE is reached. Every remote operation of the device
// API (rma.cuh, atomic.cuh, signal.cuh, the collectives' copies and the barriers' flags) is one of the
// operations below; none of the API's headers asks "mapped or across the network" itself.
//
//   route::proxied(pe)             whether `pe` is reached through the proxy (net.cuh: requests that a
//                                  host thread of this PE issues through the network transport) rather
//                                  than by loads and stores to its heap, mapped here
//   route::address(sym, pe)        a mapped `pe`'s copy of the symmetric address `sym`
//   route::all_mapped(team)        whether no member of a team is proxied
//   route::store / load            one element (p, g)
//   route::copy<S, Dir, Done>      a group's copy (put, get; blocking, _nbi, or posted for the collectives)
//   route::strided<S, Dir>         a group's strided copy (iput, iget)
//   route::amo<Op, Fetch>          an atomic, fetching or not, of 4 or 8 bytes (a half's: 2)
//   route::signal, put_signal<S, Done>  a signal update; the data then the signal
//   route::flag                    a barrier's arrival (a release on a mapped peer)
//
// Contracts:
//  - Mapped peers keep their speed: with no proxy the decision is one constant-cache load; the address
//    of a PE whose window lies beside the others is arithmetic on the constant state, of any other one
//    load of its base. Each operation has the shape "if proxied: requests, else: loads and stores", so
//    that the mapped form compiles as it did when written alone (registers matter: a block of 1024
//    threads has 64 per thread).
//  - The proxy's forms follow net.cuh: one request per group, posted by the group's first thread;
//    blocking forms wait for their requests to complete at the target.
//  - With GSHMEM_DEVICE_CHECKS=1, check() ends the kernel with a message on a PE out of range, an address
//    outside the heap, or a PE that nothing reaches.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gshmem/constants.h"
#include "gshmem/device/ce.cuh"
#include "gshmem/device/copy.cuh"
#include "gshmem/device/net.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"
#include "gshmem/device/tma.cuh"

#ifndef GSHMEM_DEVICE_CHECKS
#define GSHMEM_DEVICE_CHECKS 0  // 1: check PE numbers and heap bounds on the device (trap on error)
#endif

namespace gshmem {
namespace detail {
namespace route {

// Whether `pe` is reached through the proxy (its heap is not mapped here). When every PE is mapped (no
// proxy) it costs one constant-cache load, so the load/store paths keep their speed.
__device__ __forceinline__ bool proxied(int pe) {
  const DeviceState& st = state();
  if (st.proxy_net == 0) return false;
  if (static_cast<unsigned>(pe - st.window_first) < static_cast<unsigned>(st.window_count)) return false;
  return __ldg(reinterpret_cast<const unsigned long long*>(st.peer_base) + pe) == 0;
}

// The address of `pe`'s copy of `sym` in this GPU's address space, for a mapped `pe`. For the PEs whose
// windows lie side by side (all of a node's, normally) it is arithmetic on the constant state: no memory
// load, which after a system-scope fence would go to L2.
__device__ __forceinline__ char* address(const void* sym, int pe) {
  const DeviceState& st = state();
  const uint64_t offset = static_cast<uint64_t>(static_cast<const char*>(sym) - st.heap_base);
  const unsigned index = static_cast<unsigned>(pe - st.window_first);
  if (index < static_cast<unsigned>(st.window_count)) {
    return reinterpret_cast<char*>(st.window_base + index * st.heap_span + offset);
  }
  const char* base =
      reinterpret_cast<const char*>(__ldg(reinterpret_cast<const unsigned long long*>(st.peer_base) + pe));
  return const_cast<char*>(base) + offset;
}

// Whether every member of `t` is mapped here (no request through the proxy).
__device__ __forceinline__ bool all_mapped(const TeamSlot& t) {
  if (state().proxy_net == 0) return true;
  for (int i = 0; i < t.size; ++i) {
    if (proxied(t.pe(i))) return false;
  }
  return true;
}

__device__ __forceinline__ void check(const void* sym, size_t bytes, int pe) {
#if GSHMEM_DEVICE_CHECKS
  const auto& st = state();
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
  if (st.peer_base[pe] == nullptr && st.proxy_net == 0) {
    printf("gshmem: PE %d is not reachable from PE %d\n", pe, st.mype);
    __trap();
  }
#else
  (void)sym;
  (void)bytes;
  (void)pe;
#endif
}

// p: `value` into `pe`'s copy of `sym`. A plain store on a mapped peer; through the proxy a request that
// carries the value (the caller's variable may change as soon as it returns).
template <class T>
__device__ __forceinline__ void store(T* sym, const T& value, int pe) {
  check(sym, sizeof(T), pe);
  if (proxied(pe)) {
    net_put(heap_offset(sym), &value, sizeof(T), pe);
    return;
  }
  *reinterpret_cast<T*>(address(sym, pe)) = value;
}

// g: `pe`'s copy of `sym` as it is now: a morally-strong load on a mapped peer (never cached in L1,
// merged with another or hoisted out of a loop, so polling a peer's variable terminates); through the
// proxy a request whose result the thread waits for.
template <class T>
__device__ __forceinline__ T load(const T* sym, int pe) {
  check(sym, sizeof(T), pe);
  T v;
  if (proxied(pe)) {
    net_get(&v, heap_offset(sym), sizeof(T), pe);
    return v;
  }
  const T* remote = reinterpret_cast<const T*>(address(sym, pe));
  if constexpr (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    return load_relaxed_sys(remote);
  } else {
    static_assert(sizeof(T) == 1, "g reads 1, 2, 4 or 8 bytes");
    unsigned char b = *reinterpret_cast<const volatile unsigned char*>(remote);
    __builtin_memcpy(&v, &b, 1);
    return v;
  }
}

enum class Dir { kPut, kGet };
// When a copy is complete: kBlocking on return; kNbi by the next quiet; kPosted on return on a mapped
// peer (the group's threads copy, never the copy engines) and by the next quiet through the proxy (what
// the collectives' copies need: the barrier after them quiets, a sync after them does not).
enum class Done { kBlocking, kNbi, kPosted };

// A copy of `bytes` by the group of scope S between this PE and `pe`: into `pe`'s copy of `dest`
// (kPut) or from `pe`'s copy of `source` (kGet); the other pointer is any memory of this PE.
//  - Mapped: the group's threads copy (a get keeps more loads in flight: each waits for a round trip
//    over the link); an _nbi copy of at least GSHMEM_CE_MIN_SIZE bytes from or into global memory is
//    handed to the copy engines by the group's first thread instead (ce.cuh), complete by quiet.
//    Threads with no part in the copy (idle_in_group_copy) return at once. With NVSHMEM_TMA_POLICY on, a
//    blocking or _nbi copy that the bulk-copy path can take (tma.cuh: the block lent shared memory, 16-byte
//    aligned, GSHMEM_TMA_MIN_SIZE or more) is made by one thread of the group with bulk copies instead.
//  - Through the proxy: one request of the group's first thread; a blocking copy waits for it (a put's
//    source may then be reused, a get's data is there), an _nbi or posted one completes by quiet.
// The caller synchronises the group around the call.
template <Scope S, Dir D, Done C>
__device__ __forceinline__ void copy(void* dest, const void* source, size_t bytes, int pe) {
  const void* sym = D == Dir::kPut ? dest : source;
  if (proxied(pe)) {
    check(sym, bytes, pe);
    if (group_rank<S>() != 0 || bytes == 0) return;
    const uint64_t upto =
        D == Dir::kPut ? net_put(heap_offset(sym), source, bytes, pe) + 1 : net_get(dest, heap_offset(sym), bytes, pe);
    if (C == Done::kBlocking && upto != 0) proxy_wait_completed(upto);
    return;
  }
  void* to_addr = D == Dir::kPut ? static_cast<void*>(address(dest, pe)) : dest;
  const void* from_addr = D == Dir::kPut ? source : static_cast<const void*>(address(source, pe));
  check(sym, bytes, pe);
  // The bulk-copy path first: every thread of the group takes part in its decision.
  if (C != Done::kPosted && tma::candidate<S>(to_addr, from_addr, bytes) && tma::copy<S>(to_addr, from_addr, bytes)) {
    return;
  }
  // (The collectives' copies run inside loops over the members, where the early return of the idle
  // threads costs more registers than it saves issue slots: a block-scope alltoall went past 64.)
  if (C != Done::kPosted && idle_in_group_copy<S>(dest, source, bytes)) return;
  constexpr int kUnroll = D == Dir::kPut ? 4 : 8;
  if constexpr (C != Done::kNbi) {
    group_copy<S, kUnroll>(to_addr, from_addr, bytes);
  } else {
    // One path for both cases: the group's copy gets no bytes when the copy engines take them. (Two
    // branches around the copy loop cost a kernel that loops over these calls ~30 registers.)
    const bool ce = ce_enabled(bytes, D == Dir::kPut ? source : dest);
    group_copy<S, kUnroll>(to_addr, from_addr, ce ? 0 : bytes);
    if (ce && group_rank<S>() == 0) ce_post(to_addr, from_addr, bytes);
  }
}

// The strided copies (iput, iget): element i from source[i * sst] to dest[i * dst], the group's threads
// taking every group_size-th element. Mapped: plain loads and stores through the peer's address; through
// the proxy one request per element (a put's carries it, so the source may be reused on return; a get's
// result the thread stores).
template <Scope S, Dir D, class T>
__device__ __forceinline__ void strided(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  const T* sym = D == Dir::kPut ? dest : source;
  if (nelems > 0) check(sym, ((nelems - 1) * (D == Dir::kPut ? dst : sst) + 1) * sizeof(T), pe);
  const size_t step = static_cast<size_t>(group_size<S>());
  if (proxied(pe)) {
    for (size_t i = group_rank<S>(); i < nelems; i += step) {
      if constexpr (D == Dir::kPut) {
        const T v = source[i * sst];
        net_put(heap_offset(sym) + i * dst * sizeof(T), &v, sizeof(T), pe);
      } else {
        T v;
        net_get(&v, heap_offset(sym) + i * sst * sizeof(T), sizeof(T), pe);
        dest[i * dst] = v;
      }
    }
    return;
  }
  if constexpr (D == Dir::kPut) {
    T* remote = reinterpret_cast<T*>(address(dest, pe));
    for (size_t i = group_rank<S>(); i < nelems; i += step) remote[i * dst] = source[i * sst];
  } else {
    const T* remote = reinterpret_cast<const T*>(address(source, pe));
    for (size_t i = group_rank<S>(); i < nelems; i += step) dest[i * dst] = remote[i * sst];
  }
}

// The atomics, with the network's operation codes (gshmem/detail/device_state.h).
// On a mapped peer each is one system-scope instruction on the peer's word: red.relaxed.sys (no
// result: the thread does not wait for the reply) or atom.sys (with result) for the read-modify-
// writes, ld.relaxed.sys for a fetch and st.relaxed.sys for a set. Through the proxy one request; a
// fetching one waits for its result. Relaxed: they order nothing else.
template <int32_t Op, bool Fetch, class W>
__device__ __forceinline__ W amo_mapped(W* w, W operand, W compare) {
  static_assert(sizeof(W) == 4 || sizeof(W) == 8 ||
                    (sizeof(W) == 2 &&
                     (Op == kProxyAmoLoad || Op == kProxyAmoStore || Op == kProxyAmoSwap || Op == kProxyAmoFloatAdd)),
                "atomics operate on 4- or 8-byte words, and a half's fetch, set, swap and add on 2");
  if constexpr (Op == kProxyAmoLoad) {
    return load_relaxed_sys(w);
  } else if constexpr (Op == kProxyAmoStore) {
    store_relaxed_sys(w, operand);
    return W();
  } else if constexpr (Op == kProxyAmoFloatAdd) {
    return float_add_sys<Fetch>(w, operand);
  } else if constexpr (Op == kProxyAmoSwap && sizeof(W) == 2) {
    return exchange16_sys(w, operand);
  } else if constexpr (Op == kProxyAmoSwap) {
    return atomicExch_system(w, operand);
  } else if constexpr (Op == kProxyAmoCompareSwap) {
    return atomicCAS_system(w, compare, operand);
  } else if constexpr (!Fetch) {
    constexpr RedOp kRed = Op == kProxyAmoAdd   ? RedOp::kAdd
                           : Op == kProxyAmoAnd ? RedOp::kAnd
                           : Op == kProxyAmoOr  ? RedOp::kOr
                                                : RedOp::kXor;
    static_assert(Op == kProxyAmoAdd || Op == kProxyAmoAnd || Op == kProxyAmoOr || Op == kProxyAmoXor, "an atomic op");
    red_relaxed_sys<kRed>(w, operand);
    return W();
  } else if constexpr (Op == kProxyAmoAdd) {
    return atomicAdd_system(w, operand);
  } else if constexpr (Op == kProxyAmoAnd) {
    return atomicAnd_system(w, operand);
  } else if constexpr (Op == kProxyAmoOr) {
    return atomicOr_system(w, operand);
  } else {
    static_assert(Op == kProxyAmoXor, "an atomic op");
    return atomicXor_system(w, operand);
  }
}

// An atomic on the word `sym` (unsigned short, int or long long) of `pe`; its old value when Fetch.
template <int32_t Op, bool Fetch, class W>
__device__ __forceinline__ W amo(const W* sym, W operand, W compare, int pe) {
  check(sym, sizeof(W), pe);
  if (proxied(pe)) return static_cast<W>(net_amo(Op, heap_offset(sym), sizeof(W), operand, compare, Fetch, pe));
  return amo_mapped<Op, Fetch>(reinterpret_cast<W*>(address(sym, pe)), operand, compare);
}

// A barrier's arrival: `seq` into `pe`'s copy of the flag at `flag`. On a mapped peer a release store
// at system scope (what this thread did before is seen before the flag); through the proxy a put that
// carries it, after the quiet that the barrier does first (net_flag).
__device__ __forceinline__ void flag(uint64_t* flag, uint64_t seq, int pe) {
  if (proxied(pe)) {
    net_flag(flag, seq, pe);
    return;
  }
  store_release_sys(reinterpret_cast<uint64_t*>(address(flag, pe)), seq);
}

static __device__ __noinline__ void bad_signal_op(int sig_op) {
  printf("gshmem: signal operation %d is not NVSHMEM_SIGNAL_SET (%d) or NVSHMEM_SIGNAL_ADD (%d)\n", sig_op,
         GSHMEM_SIGNAL_SET, GSHMEM_SIGNAL_ADD);
  __trap();
}

// signal_op: `pe`'s copy of the signal at `sig` updated (SET a store, ADD an add, both relaxed); orders
// nothing else. Another sig_op ends the kernel with a message.
__device__ __forceinline__ void signal(uint64_t* sig, uint64_t value, int sig_op, int pe) {
  check(sig, sizeof(uint64_t), pe);
  if (proxied(pe)) {
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD) bad_signal_op(sig_op);
    net_amo(sig_op == GSHMEM_SIGNAL_SET ? kProxyAmoStore : kProxyAmoAdd, heap_offset(sig), 8, value, 0, false, pe);
    return;
  }
  uint64_t* remote = reinterpret_cast<uint64_t*>(address(sig, pe));
  if (sig_op == GSHMEM_SIGNAL_SET) {
    store_relaxed_sys(remote, value);
  } else if (sig_op == GSHMEM_SIGNAL_ADD) {
    red_relaxed_sys<RedOp::kAdd>(remote, value);
  } else {
    bad_signal_op(sig_op);
  }
}

// A put with signal by the group of scope S: the data, then the signal, so that a PE that sees the
// signal and then reads `dest` sees the data. Every thread of the group calls; the group synchronises
// before and after.
//  - Mapped: the group copies (never the copy engines: the signal must follow the data; the bulk-copy path
//    where tma.cuh takes it, complete before the signal), the group's barrier orders its copies before the
//    first thread's release fence at system scope, then the signal.
//    The data is in place on return, in both forms.
//  - Through the proxy: the first thread posts the data, a fence request (the network orders nothing
//    between two requests otherwise) and the signal; the blocking form waits for all three (its source may
//    then be reused), the _nbi form leaves them to quiet.
template <Scope S, Done C>
__device__ __forceinline__ void put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig, uint64_t value,
                                           int sig_op, int pe) {
  group_sync<S>();
  if (proxied(pe)) {
    if (group_rank<S>() == 0) {
      check(dest, bytes, pe);
      if (bytes > 0) net_put(heap_offset(dest), source, bytes, pe);
      net_fence();
      signal(sig, value, sig_op, pe);
      if (C == Done::kBlocking) proxy_wait_completed(proxy_posted());
    }
    group_sync<S>();
    return;
  }
  char* to = address(dest, pe);
  check(dest, bytes, pe);
  // The data by the bulk-copy path (complete on return, before the signal), else by the group.
  const bool bulk = tma::candidate<S>(to, source, bytes) && tma::copy<S>(to, source, bytes);
  if (!bulk && !idle_in_group_copy<S>(dest, source, bytes)) group_copy<S, 4>(to, source, bytes);
  group_sync<S>();
  if (group_rank<S>() == 0) {
    fence_acq_rel_sys();
    signal(sig, value, sig_op, pe);
  }
  group_sync<S>();
}

}  // namespace route
}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
