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

// Copies `nv` whole vectors from `sv` to `dv`, thread `tid` of `nt` taking vectors tid, tid + nt, ...
template <class V, int Unroll>
__device__ __forceinline__ void copy_whole(V* dv, const V* sv, size_t nv, int tid, int nt) {
  const size_t step = static_cast<size_t>(nt);
  if (nv < 0x80000000u) {
    // 32-bit indices (which cannot wrap below 2^31): the unrolled loop then fits in 64 registers,
    // so a kernel of 1024 threads per block that calls it still launches.
    const unsigned nv32 = static_cast<unsigned>(nv), step32 = static_cast<unsigned>(nt);
    unsigned i = static_cast<unsigned>(tid);
    for (; i < nv32 && nv32 - i > (Unroll - 1) * step32; i += Unroll * step32) {
      V t[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) t[u] = sv[i + u * step32];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) dv[i + u * step32] = t[u];
    }
    for (; i < nv32; i += step32) dv[i] = sv[i];
  } else {
    for (size_t i = tid; i < nv; i += step) dv[i] = sv[i];
  }
}

template <class V, int Unroll>
__device__ __forceinline__ void copy_vectors(char* d, const char* s, size_t n, int tid, int nt) {
  constexpr size_t W = sizeof(V);
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
  // The tail, under W bytes, by the last thread (the first may still be busy with the head).
  if (nv * W < n && tid == nt - 1) copy_small<W>(d + nv * W, s + nv * W, n - nv * W);
}

// Copies `n` bytes from `src` to `dst` using every thread of scope S. Contract: every thread of
// the group calls it with the same arguments; the ranges do not overlap.
template <Scope S, int Unroll = 4>
__device__ __forceinline__ void group_copy(void* dst, const void* src, size_t n) {
  const int tid = group_rank<S>();
  const int nt = group_size<S>();
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  const uintptr_t skew = reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s);
  // Both addresses and the length multiples of 16 (symmetric buffers, whole vectors): no head or
  // tail to work out, which every thread of the group would otherwise do before its first access
  // (measured: a block-scope put of 16 to 1024 bytes, 1024 threads, then quiet, 1.47-1.51 against
  // 1.60-1.66 us). Only for puts (Unroll 4): for gets (Unroll 8) this second copy loop takes a
  // kernel that calls every copy variant past 64 registers per thread, and gets gained nothing.
  if (Unroll <= 4 && ((reinterpret_cast<uintptr_t>(d) | skew | n) & 15) == 0) {
    copy_whole<uint4, Unroll>(reinterpret_cast<uint4*>(d), reinterpret_cast<const uint4*>(s), n / 16, tid, nt);
  } else if ((skew & 15) == 0) {
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
