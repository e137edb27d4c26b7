// The copy loop behind every device put and get: all threads of the scope move the bytes, with
// the widest access both addresses allow (16, 8, 4, 2 or 1 bytes) and `Unroll` independent
// accesses per thread in flight, so that loads from a peer over NVLink overlap.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/scope.cuh"

namespace gshmem {
namespace detail {

// Copies n < W bytes with the widest accesses (8, 4, 2 or 1 bytes, narrower than W) that the
// position allows; one thread does it. Contract: `d` and `s` agree modulo W, so every access
// aligned for `d` is aligned for `s` too. A message of 4 or 8 bytes is then one access, not 4 or 8.
template <size_t W>
__device__ __forceinline__ void copy_small(char* d, const char* s, size_t n) {
  while (n > 0) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(d);
    size_t w = 1;
    if (W > 8 && n >= 8 && (a & 7) == 0) {
      *reinterpret_cast<uint2*>(d) = *reinterpret_cast<const uint2*>(s);
      w = 8;
    } else if (W > 4 && n >= 4 && (a & 3) == 0) {
      *reinterpret_cast<uint32_t*>(d) = *reinterpret_cast<const uint32_t*>(s);
      w = 4;
    } else if (W > 2 && n >= 2 && (a & 1) == 0) {
      *reinterpret_cast<uint16_t*>(d) = *reinterpret_cast<const uint16_t*>(s);
      w = 2;
    } else {
      *d = *s;
    }
    d += w;
    s += w;
    n -= w;
  }
}

// Copies one element of n = 1, 2, 4 or 8 bytes; `d` and `s` are aligned to n.
__device__ __forceinline__ void copy_element(char* d, const char* s, size_t n) {
  if (n == 8) {
    *reinterpret_cast<unsigned long long*>(d) = *reinterpret_cast<const unsigned long long*>(s);
  } else if (n == 4) {
    *reinterpret_cast<uint32_t*>(d) = *reinterpret_cast<const uint32_t*>(s);
  } else if (n == 2) {
    *reinterpret_cast<uint16_t*>(d) = *reinterpret_cast<const uint16_t*>(s);
  } else {
    *d = *s;
  }
}

// Copies `nv` whole vectors from `sv` to `dv`, thread `tid` of `nt` taking vectors tid, tid + nt, ...
template <class V, int Unroll>
__device__ __forceinline__ void copy_whole(V* dv, const V* sv, size_t nv, int tid, int nt) {
  const size_t step = static_cast<size_t>(nt);
  if (nv < 0x80000000u) {
    // 32-bit indices (which cannot wrap below 2^31): the unrolled loop then fits in 64 registers,
    // so a kernel of 1024 threads per block that calls it still launches.
    const unsigned nv32 = static_cast<unsigned>(nv), step32 = static_cast<unsigned>(nt);
    unsigned i = static_cast<unsigned>(tid);
    // A thread with one vector (most threads of a group that moves a short message) moves it alone.
    if (i < nv32 && nv32 - i <= step32) {
      dv[i] = sv[i];
      return;
    }
    // Each pass loads up to Unroll vectors, then stores them. In a thread's last pass, with fewer
    // vectors left, the loads past its last vector load vector i again, and only the stores that
    // exist are made. Measured on H200 against a plain loop for that rest: a plain loop issues each
    // load only after the store before it (the compiler must assume the buffers may overlap), so a
    // thread's get of 64 bytes waited for 4 round trips over the link (2.78 us against 1.80).
    // Predicated loads in place of the repeated ones, or a second unrolled loop without the
    // comparisons for the full passes, take a warp-scope get_bw kernel past the 64 registers that
    // blocks of 1024 threads allow. The comparisons cost the full passes of a block's puts a little:
    // a put of 32 or 64 KiB by 1024 threads, then quiet, took 2.41 and 3.15 us (NVSHMEM: 2.27, 2.99).
    // A last pass of exactly the vectors left (a branch to a pass of 1 ... Unroll - 1 vectors) gained
    // get_bw -c 32 at 1 MiB 186 -> 197 GB/s, but a warp's get of 1 KiB took 2.86 us against 1.96, and
    // a 1024-thread test kernel no longer launched (registers).
    for (; i < nv32; i += Unroll * step32) {
      V t[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const unsigned k = i + u * step32;
        t[u] = sv[k < nv32 ? k : i];
      }
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const unsigned k = i + u * step32;
        if (k < nv32) dv[k] = t[u];
      }
    }
  } else {
    for (size_t i = tid; i < nv; i += step) dv[i] = sv[i];
  }
}

// The thread of a group that copies the bytes after the last whole vector: not thread 0, which may
// still be busy with those before the first one.
__device__ __forceinline__ int tail_thread(int nt) { return nt > 1 ? 1 : 0; }

// Whether thread `tid` has nothing to move in a copy of `n` bytes in vectors of `w` bytes: it is
// neither the head's thread (0) nor the tail's (1), and there are no more vectors than tid. Such
// threads leave at once: in a block, they would otherwise all work out the bounds of the copy, and
// their warps' instructions compete for issue slots with the warp that moves a short message.
__device__ __forceinline__ bool idle_in_copy(int tid, size_t n, size_t w) {
  return tid > 1 && static_cast<size_t>(tid) >= n / w;
}

template <class V, int Unroll>
__device__ __forceinline__ void copy_vectors(char* d, const char* s, size_t n, int tid, int nt) {
  constexpr size_t W = sizeof(V);
  if (idle_in_copy(tid, n, W)) return;
  // Bytes before `d` reaches a multiple of W (`s` reaches it at the same time). A message shorter
  // than W is all head: thread 0 moves it at once, before the loop bounds are worked out. Measured
  // on H200 with this rule, a block-scope get of 4 to 1024 bytes by 1024 threads, then quiet, took
  // 2.40 us against 2.63 before; that the larger sizes gained too says the compiler lays out the
  // group's code better with it, so keep it unless a measurement says otherwise. (`n < W` alone
  // would say the same, since head < W, but compiles differently and was not the form measured.)
  size_t head = (W - (reinterpret_cast<uintptr_t>(d) & (W - 1))) & (W - 1);
  if (head > n || n < W) head = n;
  if (head > 0 && tid == 0) copy_small<W>(d, s, head);
  d += head;
  s += head;
  n -= head;
  const size_t nv = n / W;
  copy_whole<V, Unroll>(reinterpret_cast<V*>(d), reinterpret_cast<const V*>(s), nv, tid, nt);
  // The tail, under W bytes.
  if (nv * W < n && tid == tail_thread(nt)) copy_small<W>(d + nv * W, s + nv * W, n - nv * W);
}

// Whether the calling thread of its group has no part in a copy of `n` bytes between `a` and `b`:
// its rank is 2 or more and not below n (threads 0 and 1 take the head and the tail, and no copy has
// more than n pieces), or the copy is of whole 16-byte vectors at addresses aligned to 16 and there
// are no more of them than the thread's rank. Thread 0 always has a part (it also hands copies to the
// copy engines). `a` and `b` may be symmetric addresses of this PE in place of their peer images,
// which keep their alignment modulo 16 (heaps are mapped at multiples of the mapping granularity).
// The caller skips the whole call for such a thread, between the group's barriers: in a block, every
// instruction that all of its warps run there competes for issue slots with the warp that moves a
// short message. Measured on H200, 1024 threads, a put of 16 bytes then a fence: 1.37 us against 1.65
// when every thread ran the call; a get: 1.91 against 2.04.
template <Scope S>
__device__ __forceinline__ bool idle_in_group_copy(const void* a, const void* b, size_t n) {
  if constexpr (S == Scope::kThread) {
    return false;
  } else {
    const size_t tid = static_cast<size_t>(group_rank<S>());
    // Whatever the alignment, a copy has at most n pieces, and threads 0 and 1 take the head and tail.
    if (tid > 1 && tid >= n) return true;
    return tid > 0 && ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | n) & 15) == 0 &&
           tid >= n / 16;
  }
}

// Copies `n` bytes from `src` to `dst` using every thread of scope S. Contract: every thread of
// the group calls it with the same arguments; the ranges do not overlap.
template <Scope S, int Unroll = 4>
__device__ __forceinline__ void group_copy(void* dst, const void* src, size_t n) {
  const int tid = group_rank<S>();
  const int nt = group_size<S>();
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  // `n` as the compiler cannot know it: a kernel that loops over calls with the same arguments would
  // otherwise compute the copy's bounds once, before its loop, and keep them in registers throughout
  // (a warp-scope get_bw kernel needed 72, past the 64 that blocks of 1024 threads allow).
  asm volatile("" : "+l"(n));
  const uintptr_t skew = reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s);
  // Both addresses and the length multiples of 16 (symmetric buffers, whole vectors): no head or
  // tail to work out. At most one vector per thread (a group's short message) is one load and one
  // store by each of the first threads: measured on H200, a block-scope get of 16 bytes by 1024
  // threads, then a fence, 1.81 us against 2.01 through copy_vectors; a put 1.29 against 1.40.
  if (((reinterpret_cast<uintptr_t>(d) | skew | n) & 15) == 0) {
    const size_t nv = n / 16;
    if (nv <= static_cast<size_t>(nt)) {
      if (static_cast<size_t>(tid) < nv) reinterpret_cast<uint4*>(d)[tid] = reinterpret_cast<const uint4*>(s)[tid];
    } else {
      copy_whole<uint4, Unroll>(reinterpret_cast<uint4*>(d), reinterpret_cast<const uint4*>(s), nv, tid, nt);
    }
    return;
  }
  // One element of 1, 2, 4 or 8 bytes at addresses aligned to its size (a single int, long, ...): one
  // access by thread 0, without working out a head, vectors and a tail. Measured on H200, a get of 4
  // bytes, then quiet: 1.71 us by a thread, 1.86 by a warp, 2.01 by a block of 1024 threads, against
  // 1.86, 2.08 and 2.20 through copy_vectors (NVSHMEM: 1.89, 1.94, 2.24). Placed after the 16-byte
  // case, which it cost 0.01-0.02 us where it was tried ahead of it.
  if (n - 1 < 8 && (n & (n - 1)) == 0 &&
      ((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & (n - 1)) == 0) {
    if (tid == 0) copy_element(d, s, n);
    return;
  }
  if ((skew & 15) == 0) {
    copy_vectors<uint4, Unroll>(d, s, n, tid, nt);
  } else if ((skew & 7) == 0) {
    copy_vectors<uint2, Unroll>(d, s, n, tid, nt);
  } else if ((skew & 3) == 0) {
    copy_vectors<uint32_t, Unroll>(d, s, n, tid, nt);
  } else if ((skew & 1) == 0) {
    copy_vectors<uint16_t, Unroll>(d, s, n, tid, nt);
  } else {
    copy_vectors<uint8_t, Unroll>(d, s, n, tid, nt);
  }
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
