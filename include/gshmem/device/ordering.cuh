// Memory-ordering primitives of the device API, at system scope because peers are other GPUs
// (and, through a host proxy, other hosts).
//
// Rules (tested by the ordering tests):
//  - quiet(): every put and store this thread issued before is complete and visible to every PE
//    before anything the thread issues after (fence.sc.sys, and a wait for the copies handed to the
//    copy engines, ce.cuh).
//  - fence(): puts to one PE issued before are seen by that PE before puts issued after (the same
//    as quiet(): a weaker fence is not enough for stores to two different peers' addresses that a
//    third party may observe, and a copy-engine copy is ordered only by completing it).
//  - a barrier's flag store is a release at system scope, its wait an acquire at system scope.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>

namespace gshmem {
namespace detail {

__device__ __forceinline__ void fence_sc_sys() { asm volatile("fence.sc.sys;" ::: "memory"); }

__device__ __forceinline__ void store_release_sys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Acquire-release fence at system scope: before a relaxed store or atomic it makes that a release.
__device__ __forceinline__ void fence_acq_rel_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// Morally-strong loads and stores of 2, 4 or 8 bytes at system scope, for values that another GPU
// or the host writes concurrently (flags, signals, wait variables). Any trivially copyable T of
// those sizes; the bits travel unchanged.
//
// load_relaxed_sys is a plain morally-strong load. load_acquire_sys adds acquire semantics: what
// this thread reads after it is at least as new as what the writer of the value wrote before its
// release (a release store, or a fence then a store). A waiter polls with it directly: on H200 an
// acquire poll costs the same round trip as a relaxed one, while a fence.acq_rel.sys after a
// relaxed poll adds about 0.6 us to every wake-up. The two differ only in the PTX memory order.
#define GSHMEMI_DEFINE_LOAD_SYS(name, order)                                               \
  template <class T>                                                                       \
  __device__ __forceinline__ T name(const T* p) {                                          \
    static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "2, 4 or 8 bytes");  \
    T v;                                                                                   \
    if constexpr (sizeof(T) == 2) {                                                        \
      unsigned short r;                                                                    \
      asm volatile("ld." order ".sys.global.b16 %0, [%1];" : "=h"(r) : "l"(p) : "memory"); \
      __builtin_memcpy(&v, &r, 2);                                                         \
    } else if constexpr (sizeof(T) == 4) {                                                 \
      unsigned r;                                                                          \
      asm volatile("ld." order ".sys.global.b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory"); \
      __builtin_memcpy(&v, &r, 4);                                                         \
    } else {                                                                               \
      unsigned long long r;                                                                \
      asm volatile("ld." order ".sys.global.b64 %0, [%1];" : "=l"(r) : "l"(p) : "memory"); \
      __builtin_memcpy(&v, &r, 8);                                                         \
    }                                                                                      \
    return v;                                                                              \
  }
GSHMEMI_DEFINE_LOAD_SYS(load_relaxed_sys, "relaxed")
GSHMEMI_DEFINE_LOAD_SYS(load_acquire_sys, "acquire")
#undef GSHMEMI_DEFINE_LOAD_SYS

template <class T>
__device__ __forceinline__ void store_relaxed_sys(T* p, T v) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "2, 4 or 8 bytes");
  if constexpr (sizeof(T) == 2) {
    unsigned short r;
    __builtin_memcpy(&r, &v, 2);
    asm volatile("st.relaxed.sys.global.b16 [%0], %1;" ::"l"(p), "h"(r) : "memory");
  } else if constexpr (sizeof(T) == 4) {
    unsigned r;
    __builtin_memcpy(&r, &v, 4);
    asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(p), "r"(r) : "memory");
  } else {
    unsigned long long r;
    __builtin_memcpy(&r, &v, 8);
    asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(p), "l"(r) : "memory");
  }
}

// Reductions at system scope that return nothing (red): the issuing thread does not wait for the
// reply, which an atom with an unused result would make it do. Words of 4 or 8 bytes.
enum class RedOp { kAdd, kAnd, kOr, kXor };
template <RedOp Op, class W>
__device__ __forceinline__ void red_relaxed_sys(W* p, W v) {
  static_assert(sizeof(W) == 4 || sizeof(W) == 8, "4 or 8 bytes");
  if constexpr (sizeof(W) == 4) {
    const unsigned x = static_cast<unsigned>(v);
    if constexpr (Op == RedOp::kAdd)
      asm volatile("red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
    if constexpr (Op == RedOp::kAnd)
      asm volatile("red.relaxed.sys.global.and.b32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
    if constexpr (Op == RedOp::kOr) asm volatile("red.relaxed.sys.global.or.b32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
    if constexpr (Op == RedOp::kXor)
      asm volatile("red.relaxed.sys.global.xor.b32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
  } else {
    const unsigned long long x = static_cast<unsigned long long>(v);
    if constexpr (Op == RedOp::kAdd)
      asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
    if constexpr (Op == RedOp::kAnd)
      asm volatile("red.relaxed.sys.global.and.b64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
    if constexpr (Op == RedOp::kOr) asm volatile("red.relaxed.sys.global.or.b64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
    if constexpr (Op == RedOp::kXor)
      asm volatile("red.relaxed.sys.global.xor.b64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
  }
}

// Float add at system scope on the bits of a half (2 bytes), float or double: the sum rounded to nearest
// even, the old bits returned (atom) when Fetch, else nothing (red: the thread does not wait for the reply).
template <bool Fetch, class W>
__device__ __forceinline__ W float_add_sys(W* p, W v) {
  static_assert(sizeof(W) == 2 || sizeof(W) == 4 || sizeof(W) == 8, "half, float or double bits");
  W old = 0;
  if constexpr (sizeof(W) == 2) {
    const unsigned short x = v;
    unsigned short r = 0;
    if constexpr (Fetch)
      asm volatile("atom.relaxed.sys.global.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(p), "h"(x) : "memory");
    else
      asm volatile("red.relaxed.sys.global.add.noftz.f16 [%0], %1;" ::"l"(p), "h"(x) : "memory");
    old = r;
  } else if constexpr (sizeof(W) == 4) {
    float x, r = 0.f;
    __builtin_memcpy(&x, &v, 4);
    if constexpr (Fetch)
      asm volatile("atom.relaxed.sys.global.add.f32 %0, [%1], %2;" : "=f"(r) : "l"(p), "f"(x) : "memory");
    else
      asm volatile("red.relaxed.sys.global.add.f32 [%0], %1;" ::"l"(p), "f"(x) : "memory");
    __builtin_memcpy(&old, &r, 4);
  } else {
    double x, r = 0.0;
    __builtin_memcpy(&x, &v, 8);
    if constexpr (Fetch)
      asm volatile("atom.relaxed.sys.global.add.f64 %0, [%1], %2;" : "=d"(r) : "l"(p), "d"(x) : "memory");
    else
      asm volatile("red.relaxed.sys.global.add.f64 [%0], %1;" ::"l"(p), "d"(x) : "memory");
    __builtin_memcpy(&old, &r, 8);
  }
  return old;
}

// Compare-and-swap and exchange of 2 bytes at system scope (the half's swap; there is no 16-bit exch).
__device__ __forceinline__ unsigned short cas16_sys(unsigned short* p, unsigned short compare, unsigned short v) {
  unsigned short old;
  asm volatile("atom.relaxed.sys.global.cas.b16 %0, [%1], %2, %3;"
               : "=h"(old)
               : "l"(p), "h"(compare), "h"(v)
               : "memory");
  return old;
}
__device__ __forceinline__ unsigned short exchange16_sys(unsigned short* p, unsigned short v) {
  unsigned short seen = load_relaxed_sys(p);
  for (;;) {
    const unsigned short old = cas16_sys(p, seen, v);
    if (old == seen) return old;
    seen = old;
  }
}

// The poll of every wait: the first polls back to back (a signal that is already on its way
// arrives within a microsecond), then with a sleep that doubles up to ~1 us, so that a long wait
// neither floods the memory system nor delays the wake-up by more than that.
struct Backoff {
  unsigned spins = 0;
  unsigned ns = 32;
  __device__ __forceinline__ void pause() {
    if (++spins <= 64) return;
    __nanosleep(ns);
    if (ns < 1024) ns *= 2;
  }
};

// Waits until *p >= target, polling with relaxed loads and a short sleep after a while so that
// the poll does not flood the link, then makes the value an acquire.
__device__ __forceinline__ void wait_at_least(const uint64_t* p, uint64_t target) {
  Backoff backoff;
  while (load_relaxed_sys(p) < target) backoff.pause();
  (void)load_acquire_sys(p);
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
