// Device atomics: every NVSHMEM atomic for every type of its family, called from kernels on both
// PEs at once against one word, which lives on PE 0 and then on PE 1 (so each PE hits it both
// locally and remotely). Results are checked against what the host computes:
//  - fetch_inc, fetch_add and compare_swap increment loops under contention: the final value is
//    exact, and the fetched values are exactly the sequence the operations must have produced
//    (a permutation of start..start+N-1; for fetch_add, a chain in which each value is the previous
//    one plus the operand of the operation that fetched it);
//  - inc and add under contention: the final value is exact;
//  - swap under contention: the fetched values and the final value are, as a multiset, the start
//    value and every value swapped in;
//  - set and fetch under contention: every fetched value is a whole value that some set stored (no
//    torn 64-bit words), and the final value is one of them;
//  - and/or/xor and their fetch_ forms: each thread owns one bit and flips it many times; every
//    fetched value shows the caller's bit in the state the caller left it, and the final word is
//    the one the host predicts;
//  - one thread's sequence of every operation, with each return value checked (compare_swap that
//    fails and one that succeeds, set, swap, fetch_add, fetch_inc, inc, add).
// float and double: fetch, set and swap; and with half the float adds (nvshmemx_<T>_atomic_add, _fetch_add):
// both PEs add one step many times to one word (the total exact, the fetched values distinct multiples of
// the step), sums that are not representable round to nearest even, and half's fetch, set and swap.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../gen/type_lists.h"
#include "gpu_test.cuh"

namespace {

using gputest::bits_of;
using gputest::Failure;
using gputest::from_bits;
using gputest::hash64;

// ---- the NVSHMEM names, one struct per type and family, so that kernels are written once ------------

#define GSHMEMT_ARITH(NAME, TYPE)                                                                                   \
  struct Arith_##NAME {                                                                                             \
    using T = TYPE;                                                                                                 \
    static constexpr const char* name = #NAME;                                                                      \
    __device__ static T fetch(const T* d, int pe) { return nvshmem_##NAME##_atomic_fetch(d, pe); }                  \
    __device__ static void set(T* d, T v, int pe) { nvshmem_##NAME##_atomic_set(d, v, pe); }                        \
    __device__ static T swap(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_swap(d, v, pe); }                  \
    __device__ static T cswap(T* d, T c, T v, int pe) { return nvshmem_##NAME##_atomic_compare_swap(d, c, v, pe); } \
    __device__ static void inc(T* d, int pe) { nvshmem_##NAME##_atomic_inc(d, pe); }                                \
    __device__ static T finc(T* d, int pe) { return nvshmem_##NAME##_atomic_fetch_inc(d, pe); }                     \
    __device__ static void add(T* d, T v, int pe) { nvshmem_##NAME##_atomic_add(d, v, pe); }                        \
    __device__ static T fadd(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_add(d, v, pe); }             \
  };
GSHMEMT_TYPES_AMO_STD(GSHMEMT_ARITH)
GSHMEMT_TYPES_AMO_BIT(GSHMEMT_ARITH)
#undef GSHMEMT_ARITH

#define GSHMEMT_BITWISE(NAME, TYPE)                                                                     \
  struct Bitwise_##NAME {                                                                               \
    using T = TYPE;                                                                                     \
    static constexpr const char* name = #NAME;                                                          \
    __device__ static T fetch(const T* d, int pe) { return nvshmem_##NAME##_atomic_fetch(d, pe); }      \
    __device__ static void and_(T* d, T v, int pe) { nvshmem_##NAME##_atomic_and(d, v, pe); }           \
    __device__ static void or_(T* d, T v, int pe) { nvshmem_##NAME##_atomic_or(d, v, pe); }             \
    __device__ static void xor_(T* d, T v, int pe) { nvshmem_##NAME##_atomic_xor(d, v, pe); }           \
    __device__ static T fand(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_and(d, v, pe); } \
    __device__ static T for_(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_or(d, v, pe); }  \
    __device__ static T fxor(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_fetch_xor(d, v, pe); } \
  };
GSHMEMT_TYPES_AMO_BIT(GSHMEMT_BITWISE)
#undef GSHMEMT_BITWISE

#define GSHMEMT_EXTENDED(NAME, TYPE)                                                               \
  struct Extended_##NAME {                                                                         \
    using T = TYPE;                                                                                \
    static constexpr const char* name = #NAME;                                                     \
    __device__ static T fetch(const T* d, int pe) { return nvshmem_##NAME##_atomic_fetch(d, pe); } \
    __device__ static void set(T* d, T v, int pe) { nvshmem_##NAME##_atomic_set(d, v, pe); }       \
    __device__ static T swap(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_swap(d, v, pe); } \
  };
GSHMEMT_TYPES_AMO_EXT(GSHMEMT_EXTENDED)
#undef GSHMEMT_EXTENDED

// The float adds, and the extended operations of the same types (half's among them). Host conversions to and
// from double, exact for the values the tests use.
#define GSHMEMT_FLOAT_ADD(NAME, TYPE)                                                                    \
  struct FloatAdd_##NAME {                                                                               \
    using T = TYPE;                                                                                      \
    static constexpr const char* name = #NAME;                                                           \
    __device__ static void add(T* d, T v, int pe) { nvshmemx_##NAME##_atomic_add(d, v, pe); }            \
    __device__ static T fadd(T* d, T v, int pe) { return nvshmemx_##NAME##_atomic_fetch_add(d, v, pe); } \
    __device__ static T fetch(const T* d, int pe) { return nvshmem_##NAME##_atomic_fetch(d, pe); }       \
    __device__ static void set(T* d, T v, int pe) { nvshmem_##NAME##_atomic_set(d, v, pe); }             \
    __device__ static T swap(T* d, T v, int pe) { return nvshmem_##NAME##_atomic_swap(d, v, pe); }       \
    __host__ __device__ static T of(double d) { return gputest::float_of<T>(d); }                        \
    __host__ static double value(T v) { return gputest::double_of<T>(v); }                               \
  };
GSHMEMT_TYPES_AMO_FLOAT(GSHMEMT_FLOAT_ADD)
GSHMEMT_TYPES_AMO_FP16(GSHMEMT_FLOAT_ADD)
#undef GSHMEMT_FLOAT_ADD

// ---- values -----------------------------------------------------------------------------------------

// Contention runs: `blocks` x `threads` threads per PE, `ops` operations each; N = both PEs' operations.
// The kernels take the shape from their launch (gridDim, blockDim) and `ops`, and the host's checks
// from the same Shape, so that a scaled run is checked as exactly as the full one.
struct Shape {
  int blocks, threads, ops;
  constexpr int per_pe() const { return blocks * threads * ops; }
  constexpr int n() const { return 2 * per_pe(); }
};
constexpr Shape kFull{8, 256, 4};  // 8192 per PE, N = 16384: ids below whole()'s limit
// compare_swap loops retry under contention: fewer of them.
constexpr Shape kCasFull{4, 64, 4};
constexpr int kBitSteps = 400;  // and/or/xor: operations per bit

// `full` with about 1/gputest::net_scale() of its operations: threads first (down to `min_threads`, at
// least a warp's worth of even count, so that set + fetch has both kinds), then blocks (down to 2: the
// operations of a PE still come from several blocks), then operations per thread (down to 1). Unscaled:
// `full`. At scale 64: 8 x 256 x 4 -> 2 x 32 x 2 (128 per PE); the compare_swap loops 4 x 64 x 4 ->
// 2 x 8 x 1 (16 per PE).
Shape scaled_shape(Shape full, int min_threads) {
  Shape s = full;
  const int target = std::max(1, full.per_pe() / gputest::net_scale());
  while (s.per_pe() > target) {
    if (s.threads / 2 >= min_threads) {
      s.threads /= 2;
    } else if (s.blocks / 2 >= 2) {
      s.blocks /= 2;
    } else if (s.ops / 2 >= 1) {
      s.ops /= 2;
    } else {
      break;
    }
  }
  return s;
}

// T's value with the bits `b` (the low sizeof(T) bytes).
template <class T>
__host__ __device__ T of_bits(uint64_t b) {
  return from_bits<T>(b);
}
template <class T>
__host__ __device__ uint64_t word_mask() {
  if constexpr (sizeof(T) == 8) {
    return ~0ull;
  } else {
    return (1ull << (8 * sizeof(T))) - 1;
  }
}

// a + b with two's complement wrap-around (no signed overflow in the test itself).
template <class T>
__host__ __device__ T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
// (a - b) mod 2^bits: where `a` lies after `b` in T's wrapping sequence.
template <class T>
__host__ __device__ uint64_t offset_of(T a, T b) {
  return (bits_of(a) - bits_of(b)) & word_mask<T>();
}

// The operand of fetch_add/add number `id`: at least 1, small enough that N of them do not wrap
// around T (2^16 for 4-byte types, 2^40 for 8-byte types, so that the upper word is exercised).
template <class T>
__host__ __device__ T add_operand(uint64_t seed, uint64_t id) {
  const uint64_t h = hash64(seed ^ (id * 0x9e3779b97f4a7c15ull));
  return of_bits<T>(1 + (sizeof(T) == 4 ? (h & 0xffff) : (h & ((1ull << 40) - 1))));
}

// "Whole" values: the upper half says which operation stored the value (an id below 0xf000), the
// lower half is a hash of the upper half. A torn read (halves of two values) is not whole. Every
// id gives another value; the start value uses an id no operation has. For float and double these
// are finite normal numbers.
template <class T>
__host__ __device__ T whole(uint64_t id) {
  if (sizeof(T) == 4) {
    const uint64_t hi = 0x1000 + id;
    return of_bits<T>((hi << 16) | (hash64(hi) & 0xffff));
  }
  const uint64_t hi = 0x10000000 + id;
  return of_bits<T>((hi << 32) | (hash64(hi) & 0xffffffffull));
}
constexpr uint64_t kStartId = 0xe000;  // above every operation's id (< N, at most 16384)
// The id of a whole value, or -1 if it is not whole.
template <class T>
long long whole_id(uint64_t b) {
  b &= word_mask<T>();
  if (sizeof(T) == 4) {
    const uint64_t hi = b >> 16;
    if ((b & 0xffff) != (hash64(hi) & 0xffff) || hi < 0x1000) return -1;
    return static_cast<long long>(hi - 0x1000);
  }
  const uint64_t hi = b >> 32;
  if ((b & 0xffffffffull) != (hash64(hi) & 0xffffffffull) || hi < 0x10000000) return -1;
  return static_cast<long long>(hi - 0x10000000);
}

// ---- kernels ------------------------------------------------------------------------------------

enum Op { kFetchInc, kInc, kFetchAdd, kAdd, kCasLoop, kSwap, kSetFetch, kSequence, kBitwise };
const char* const op_names[] = {"fetch_inc", "inc",         "fetch_add", "add",       "compare_swap increment loop",
                                "swap",      "set + fetch", "sequence",  "and/or/xor"};

// Checks of kSequence (the `check` of a Failure).
const char* const sequence_checks[] = {
    "fetch of the start value",
    "compare_swap with a wrong condition: return value",
    "fetch after a compare_swap whose condition was wrong (must not have changed it)",
    "compare_swap with the right condition: return value",
    "fetch after a successful compare_swap",
    "fetch after set",
    "swap: return value",
    "fetch after swap",
    "fetch_add: return value",
    "fetch after fetch_add",
    "fetch_inc: return value",
    "fetch after fetch_inc",
    "fetch after inc, add and quiet",
};

// The operation's index among all operations of both PEs, and where this PE stores what it fetched
// (operation k of `ops` per thread; the host's Shape of the launch numbers them the same way).
__device__ inline void op_index(int me, int k, int ops, uint64_t* id, uint64_t* slot) {
  const uint64_t nthreads = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t tid = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t per_pe = nthreads * static_cast<uint64_t>(ops);
  *slot = static_cast<uint64_t>(k) * nthreads + tid;
  *id = static_cast<uint64_t>(me) * per_pe + *slot;
}

// `ops`: operations per thread of the contention runs (the Shape of the launch).
template <class A>
__global__ void arith_kernel(int op, typename A::T* word, unsigned long long* fetched, int tgt, int me, uint64_t seed,
                             int ops, Failure* f) {
  using T = typename A::T;
  if (op == kSequence) {
    // One thread; the other PE does nothing meanwhile (the host launches this on one PE).
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const T start = of_bits<T>(hash64(seed));
    const T x = of_bits<T>(hash64(seed + 1)), y = of_bits<T>(hash64(seed + 2)), z = of_bits<T>(hash64(seed + 3));
    const T d = add_operand<T>(seed, 7), e = add_operand<T>(seed, 8);
    T v = A::fetch(word, tgt);
    if (v != start) gputest::fail(f, 0, 0, 0, bits_of(start), bits_of(v));
    v = A::cswap(word, wrap_add<T>(start, T(1)), x, tgt);
    if (v != start) gputest::fail(f, 1, 0, 0, bits_of(start), bits_of(v));
    v = A::fetch(word, tgt);
    if (v != start) gputest::fail(f, 2, 0, 0, bits_of(start), bits_of(v));
    v = A::cswap(word, start, x, tgt);
    if (v != start) gputest::fail(f, 3, 0, 0, bits_of(start), bits_of(v));
    v = A::fetch(word, tgt);
    if (v != x) gputest::fail(f, 4, 0, 0, bits_of(x), bits_of(v));
    A::set(word, y, tgt);
    v = A::fetch(word, tgt);
    if (v != y) gputest::fail(f, 5, 0, 0, bits_of(y), bits_of(v));
    v = A::swap(word, z, tgt);
    if (v != y) gputest::fail(f, 6, 0, 0, bits_of(y), bits_of(v));
    v = A::fetch(word, tgt);
    if (v != z) gputest::fail(f, 7, 0, 0, bits_of(z), bits_of(v));
    v = A::fadd(word, d, tgt);
    if (v != z) gputest::fail(f, 8, 0, 0, bits_of(z), bits_of(v));
    const T zd = wrap_add<T>(z, d);
    v = A::fetch(word, tgt);
    if (v != zd) gputest::fail(f, 9, 0, 0, bits_of(zd), bits_of(v));
    v = A::finc(word, tgt);
    if (v != zd) gputest::fail(f, 10, 0, 0, bits_of(zd), bits_of(v));
    v = A::fetch(word, tgt);
    if (v != wrap_add<T>(zd, T(1))) gputest::fail(f, 11, 0, 0, bits_of(wrap_add<T>(zd, T(1))), bits_of(v));
    A::inc(word, tgt);
    A::add(word, e, tgt);
    nvshmem_quiet();
    const T last = wrap_add<T>(wrap_add<T>(zd, T(2)), e);
    v = A::fetch(word, tgt);
    if (v != last) gputest::fail(f, 12, 0, 0, bits_of(last), bits_of(v));
    return;
  }
  for (int k = 0; k < ops; ++k) {
    uint64_t id, slot;
    op_index(me, k, ops, &id, &slot);
    switch (op) {
      case kFetchInc:
        fetched[slot] = bits_of(A::finc(word, tgt));
        break;
      case kInc:
        A::inc(word, tgt);
        break;
      case kFetchAdd:
        fetched[slot] = bits_of(A::fadd(word, add_operand<T>(seed, id), tgt));
        break;
      case kAdd:
        A::add(word, add_operand<T>(seed, id), tgt);
        break;
      case kCasLoop: {
        T old = A::fetch(word, tgt);
        while (true) {
          const T prev = A::cswap(word, old, wrap_add<T>(old, T(1)), tgt);
          if (prev == old) break;
          old = prev;
        }
        fetched[slot] = bits_of(old);
        break;
      }
      case kSwap:
        fetched[slot] = bits_of(A::swap(word, whole<T>(id), tgt));
        break;
      case kSetFetch:
        if (threadIdx.x % 2 == 0) {
          A::set(word, whole<T>(id), tgt);
          fetched[slot] = bits_of(whole<T>(id));  // what a set "fetched": itself (checked like a fetch)
        } else {
          fetched[slot] = bits_of(A::fetch(word, tgt));
        }
        break;
    }
  }
}

template <class E>
__global__ void extended_kernel(int op, typename E::T* word, unsigned long long* fetched, int tgt, int me,
                                uint64_t seed, int ops, Failure* f) {
  using T = typename E::T;
  if (op == kSequence) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const T start = whole<T>(kStartId + (seed & 7));
    const T y = whole<T>(hash64(seed) & 0x3fff), z = whole<T>((hash64(seed) + 1) & 0x3fff);
    T v = E::fetch(word, tgt);
    if (bits_of(v) != bits_of(start)) gputest::fail(f, 0, 0, 0, bits_of(start), bits_of(v));
    E::set(word, y, tgt);
    v = E::fetch(word, tgt);
    if (bits_of(v) != bits_of(y)) gputest::fail(f, 5, 0, 0, bits_of(y), bits_of(v));
    v = E::swap(word, z, tgt);
    if (bits_of(v) != bits_of(y)) gputest::fail(f, 6, 0, 0, bits_of(y), bits_of(v));
    v = E::fetch(word, tgt);
    if (bits_of(v) != bits_of(z)) gputest::fail(f, 7, 0, 0, bits_of(z), bits_of(v));
    return;
  }
  for (int k = 0; k < ops; ++k) {
    uint64_t id, slot;
    op_index(me, k, ops, &id, &slot);
    if (op == kSwap) {
      fetched[slot] = bits_of(E::swap(word, whole<T>(id), tgt));
    } else if (threadIdx.x % 2 == 0) {
      E::set(word, whole<T>(id), tgt);
      fetched[slot] = bits_of(whole<T>(id));
    } else {
      fetched[slot] = bits_of(E::fetch(word, tgt));
    }
  }
}

// and/or/xor: thread t of PE p owns bit p * bits/2 + t of the word. Each step applies one
// operation to the caller's bit only; the fetch_ forms (and fetch) must show that bit as the
// caller left it, whatever the other threads do to theirs. A non-fetching operation is followed by
// a fence, which orders it before the caller's next atomic on the word.
enum BitOp { kOr, kAnd, kXor, kFetchOr, kFetchAnd, kFetchXor, kFetchBit, kBitOps };
const char* const bit_op_names[] = {"atomic_or",        "atomic_and",       "atomic_xor",  "atomic_fetch_or",
                                    "atomic_fetch_and", "atomic_fetch_xor", "atomic_fetch"};

__host__ __device__ inline int bit_op(uint64_t seed, int bit, int step) {
  return static_cast<int>(hash64(seed ^ (static_cast<uint64_t>(bit) << 32) ^ static_cast<uint64_t>(step)) % kBitOps);
}
// The state of a bit after an operation.
__host__ __device__ inline int bit_after(int op, int state) {
  switch (op) {
    case kOr:
    case kFetchOr:
      return 1;
    case kAnd:
    case kFetchAnd:
      return 0;
    case kXor:
    case kFetchXor:
      return state ^ 1;
  }
  return state;
}

// `steps`: operations per bit (kBitSteps, or fewer under the network scale).
template <class B>
__global__ void bitwise_kernel(typename B::T* word, int tgt, int me, uint64_t start, uint64_t seed, int steps,
                               Failure* f) {
  using T = typename B::T;
  constexpr int kBits = 8 * sizeof(T);
  const int bit = me * (kBits / 2) + static_cast<int>(threadIdx.x);
  const T mask = of_bits<T>(1ull << bit), keep = of_bits<T>(~(1ull << bit));
  int state = static_cast<int>((start >> bit) & 1);
  for (int k = 0; k < steps; ++k) {
    const int op = bit_op(seed, bit, k);
    T got{};
    switch (op) {
      case kOr:
        B::or_(word, mask, tgt);
        nvshmem_fence();
        break;
      case kAnd:
        B::and_(word, keep, tgt);
        nvshmem_fence();
        break;
      case kXor:
        B::xor_(word, mask, tgt);
        nvshmem_fence();
        break;
      case kFetchOr:
        got = B::for_(word, mask, tgt);
        break;
      case kFetchAnd:
        got = B::fand(word, keep, tgt);
        break;
      case kFetchXor:
        got = B::fxor(word, mask, tgt);
        break;
      case kFetchBit:
        got = B::fetch(word, tgt);
        break;
    }
    if (op >= kFetchOr) {
      const int seen = static_cast<int>((bits_of(got) >> bit) & 1);
      if (seen != state) gputest::fail(f, op, bit, k, static_cast<unsigned long long>(state), bits_of(got));
    }
    state = bit_after(op, state);
  }
}

// Float adds: `ops` adds of `step` per thread, every other one fetching (the fetched value into its slot,
// kNoFetch into the others'). With ops == 0, one thread's sequence on a word set to `big` (2^p, p the type's
// significand bits): add 1 (a tie, rounds to the even big), fetch_add 3 (returns big; big + 3 is a tie between
// big + 2 and big + 4, rounds to the even big + 4), then set 1.5, swap in 2.5; fetched[0..4] get the word
// after the add, what fetch_add returned, the word after it, what swap returned and the word after it.
constexpr unsigned long long kNoFetch = ~0ull;
template <class F>
__global__ void float_kernel(typename F::T* word, unsigned long long* fetched, int tgt, int me, int ops, double step) {
  using T = typename F::T;
  if (ops == 0) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    F::add(word, F::of(1.0), tgt);
    nvshmem_quiet();
    fetched[0] = bits_of(F::fetch(word, tgt));
    fetched[1] = bits_of(F::fadd(word, F::of(3.0), tgt));
    fetched[2] = bits_of(F::fetch(word, tgt));
    F::set(word, F::of(1.5), tgt);
    nvshmem_quiet();
    fetched[3] = bits_of(F::swap(word, F::of(2.5), tgt));
    fetched[4] = bits_of(F::fetch(word, tgt));
    return;
  }
  for (int k = 0; k < ops; ++k) {
    uint64_t id, slot;
    op_index(me, k, ops, &id, &slot);
    if ((threadIdx.x + k) % 2) {
      fetched[slot] = bits_of(F::fadd(word, F::of(step), tgt));
    } else {
      F::add(word, F::of(step), tgt);
      fetched[slot] = kNoFetch;
    }
  }
}

// ---- the host side ----------------------------------------------------------------------------------

struct Ctx {
  int me = 0;
  Shape shape = kFull;         // the contention runs
  Shape cas_shape = kCasFull;  // the compare_swap loops
  int bit_steps = kBitSteps;
  void* word = nullptr;                   // symmetric: the word every operation targets
  unsigned long long* fetched = nullptr;  // symmetric: what this PE's operations fetched
  gputest::Failures* failures = nullptr;
  std::vector<unsigned long long> others;  // the other PE's fetched values, gathered by the checker
  uint64_t round = 0;
};

std::string where(int me, int tgt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "on PE %d's word (%s for PE %d)", tgt, tgt == me ? "local" : "remote", me);
  return buf;
}

// Sets the word on its PE, runs `launch` on both PEs (or on `only` if >= 0), and returns, on the
// word's PE, every value fetched by both PEs (this PE's first) and the final word. *fl receives
// the kernel's failed checks.
template <class T, class Launch>
bool run(Ctx& c, int tgt, int only, T start, size_t per_pe, const char* what, Launch launch,
         std::vector<unsigned long long>* all, T* final_value, gputest::Failure* fl) {
  if (c.me == tgt) CUDA_CHECK(cudaMemcpy(c.word, &start, sizeof(T), cudaMemcpyHostToDevice));
  c.failures->reset();
  gputest::sync_and_barrier();
  if (only < 0 || only == c.me) {
    launch();
    CUDA_CHECK(cudaGetLastError());
    gputest::sync_or_die(0, 30, [&] { return std::string(what); });
  }
  gputest::sync_and_barrier();
  *fl = c.failures->get();
  const bool checker = c.me == tgt;
  if (checker && per_pe > 0) {
    all->resize(2 * per_pe);
    CUDA_CHECK(cudaMemcpy(all->data(), c.fetched, per_pe * 8, cudaMemcpyDeviceToHost));
    nvshmem_getmem(all->data() + per_pe, c.fetched, per_pe * 8, 1 - c.me);
  }
  if (checker) CUDA_CHECK(cudaMemcpy(final_value, c.word, sizeof(T), cudaMemcpyDeviceToHost));
  gputest::sync_and_barrier();  // the other PE's fetched values are overwritten next
  return checker;
}

// The failed checks of a kSequence kernel.
template <class T>
void check_sequence_run(const std::string& what, const gputest::Failure& fl) {
  MP_CHECK(fl.count == 0, "%s: %llu checks failed; the first: %s returned %s, expected %s", what.c_str(), fl.count,
           sequence_checks[fl.check], gputest::show<T>(fl.actual).c_str(), gputest::show<T>(fl.expected).c_str());
}

// fetch_inc and compare_swap loops: the values fetched are start, start+1, ..., start+N-1, once each.
template <class T>
void check_sequence(const char* what, const std::vector<unsigned long long>& all, T start, T final_value) {
  std::vector<char> seen(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    const uint64_t off = offset_of(from_bits<T>(all[i]), start);
    MP_CHECK(off < all.size(), "%s: operation %zu fetched %s, which is not in start..start+%zu (start %s)", what, i,
             gputest::show<T>(all[i]).c_str(), all.size() - 1, gputest::show<T>(bits_of(start)).c_str());
    MP_CHECK(!seen[off], "%s: the value %s was fetched twice (the second time by operation %zu)", what,
             gputest::show<T>(all[i]).c_str(), i);
    seen[off] = 1;
  }
  const T want = wrap_add<T>(start, static_cast<T>(all.size()));
  MP_CHECK(bits_of(final_value) == bits_of(want), "%s: final value %s, expected %s", what,
           gputest::show<T>(bits_of(final_value)).c_str(), gputest::show<T>(bits_of(want)).c_str());
}

template <class T>
uint64_t id_of_index(size_t i, size_t per_pe, int checker) {
  // all[] holds the checker's values first; ids number PE 0's operations first.
  const int pe = i < per_pe ? checker : 1 - checker;
  return static_cast<uint64_t>(pe) * per_pe + (i % per_pe);
}

template <class T>
void check_swap_chain(const char* what, const std::vector<unsigned long long>& all, T start, T final_value,
                      int checker) {
  const size_t per_pe = all.size() / 2;
  std::vector<uint64_t> got, want;
  for (size_t i = 0; i < all.size(); ++i) {
    got.push_back(all[i] & word_mask<T>());
    want.push_back(bits_of(whole<T>(id_of_index<T>(i, per_pe, checker))) & word_mask<T>());
  }
  got.push_back(bits_of(final_value) & word_mask<T>());
  want.push_back(bits_of(start) & word_mask<T>());
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      // Name a value that is missing or extra.
      auto extra = std::find_if(got.begin(), got.end(),
                                [&](uint64_t v) { return !std::binary_search(want.begin(), want.end(), v); });
      auto dup = std::adjacent_find(got.begin(), got.end());
      MP_CHECK(false,
               "%s: the fetched values and the final value are not the start value and the values swapped in, once "
               "each (first difference in sorted order at %zu: %s, expected %s; %s%s%s%s)",
               what, i, gputest::show<T>(got[i]).c_str(), gputest::show<T>(want[i]).c_str(),
               extra != got.end() ? "a value nobody stored: " : "",
               extra != got.end() ? gputest::show<T>(*extra).c_str() : "",
               dup != got.end() ? ", a value seen twice: " : "",
               dup != got.end() ? gputest::show<T>(*dup).c_str() : "");
    }
  }
}

// set + fetch: every value fetched is whole and was stored by a set of this run (or is the start
// value); the final value is one a set stored.
// `shape`: the launch of the run (a set is an even thread's operation).
template <class T>
void check_set_fetch(const char* what, const std::vector<unsigned long long>& all, T start, T final_value,
                     const Shape& shape) {
  const uint64_t nthreads = static_cast<uint64_t>(shape.blocks) * shape.threads;
  const uint64_t per_pe = static_cast<uint64_t>(shape.per_pe());
  auto stored_by_a_set = [&](long long id) {
    return id >= 0 && id < shape.n() && ((static_cast<uint64_t>(id) % per_pe) % nthreads) % 2 == 0;
  };
  for (size_t i = 0; i < all.size(); ++i) {
    if ((all[i] & word_mask<T>()) == (bits_of(start) & word_mask<T>())) continue;
    const long long id = whole_id<T>(all[i]);
    MP_CHECK(stored_by_a_set(id), "%s: operation %zu fetched %s, which no set stored (a torn or invented value)", what,
             i, gputest::show<T>(all[i]).c_str());
  }
  const long long id = whole_id<T>(bits_of(final_value));
  MP_CHECK(stored_by_a_set(id), "%s: the final value %s is not one that a set stored", what,
           gputest::show<T>(bits_of(final_value)).c_str());
}

template <class A>
void arith_suite(Ctx& c) {
  using T = typename A::T;
  const std::string type = A::name;
  for (int tgt = 0; tgt < 2; ++tgt) {
    for (int op = kFetchInc; op <= kSequence; ++op) {
      const uint64_t seed = mp::seed_of(0, ++c.round, 0xa70);
      const T start = op == kSwap || op == kSetFetch ? whole<T>(kStartId) : of_bits<T>(hash64(seed));
      const bool cas = op == kCasLoop;
      const Shape& shape = cas ? c.cas_shape : c.shape;
      const size_t per_pe = op == kInc || op == kAdd || op == kSequence ? 0 : static_cast<size_t>(shape.per_pe());
      auto* word = static_cast<T*>(c.word);
      if (op == kSequence) {
        // Each PE in turn runs the sequence against the word: once local, once remote.
        for (int actor = 0; actor < 2; ++actor) {
          const std::string what = "PE " + std::to_string(actor) + ": nvshmem_" + type + "_atomic_* " + op_names[op] +
                                   " " + where(actor, tgt);
          T fin{};
          std::vector<unsigned long long> all;
          gputest::Failure fl;
          run<T>(
              c, tgt, actor, start, 0, what.c_str(),
              [&] { arith_kernel<A><<<1, 1>>>(op, word, c.fetched, tgt, c.me, seed, 0, c.failures->dev()); }, &all,
              &fin, &fl);
          check_sequence_run<T>(what, fl);
        }
        continue;
      }
      const std::string what = "nvshmem_" + type + "_atomic_" + op_names[op] + " by both PEs " + where(c.me, tgt) +
                               ", " + std::to_string(shape.n()) + " operations";
      std::vector<unsigned long long> all;
      T fin{};
      gputest::Failure fl;
      const bool checker = run<T>(
          c, tgt, -1, start, per_pe, what.c_str(),
          [&] {
            arith_kernel<A>
                <<<shape.blocks, shape.threads>>>(op, word, c.fetched, tgt, c.me, seed, shape.ops, c.failures->dev());
          },
          &all, &fin, &fl);
      if (!checker) continue;
      switch (op) {
        case kFetchInc:
        case kCasLoop:
          check_sequence<T>(what.c_str(), all, start, fin);
          break;
        case kInc: {
          const T want = wrap_add<T>(start, static_cast<T>(shape.n()));
          MP_CHECK(bits_of(fin) == bits_of(want), "%s: final value %s, expected %s", what.c_str(),
                   gputest::show<T>(bits_of(fin)).c_str(), gputest::show<T>(bits_of(want)).c_str());
          break;
        }
        case kFetchAdd: {
          // Order the operations by where their fetched value lies after the start; then each
          // value is the previous one plus the previous operation's operand.
          std::vector<std::pair<uint64_t, uint64_t>> chain;  // (offset, operand)
          for (size_t i = 0; i < all.size(); ++i) {
            chain.emplace_back(offset_of(from_bits<T>(all[i]), start),
                               bits_of(add_operand<T>(seed, id_of_index<T>(i, per_pe, c.me))) & word_mask<T>());
          }
          std::sort(chain.begin(), chain.end());
          uint64_t expect = 0;
          for (size_t k = 0; k < chain.size(); ++k) {
            MP_CHECK(chain[k].first == expect,
                     "%s: the %zu-th value in order is start + %llu, expected start + %llu (the previous value plus "
                     "its operand; start %s): a fetch_add was lost, duplicated or returned a wrong value",
                     what.c_str(), k, static_cast<unsigned long long>(chain[k].first),
                     static_cast<unsigned long long>(expect), gputest::show<T>(bits_of(start)).c_str());
            expect += chain[k].second;
          }
          const T want = wrap_add<T>(start, of_bits<T>(expect));
          MP_CHECK(bits_of(fin) == bits_of(want), "%s: final value %s, expected %s", what.c_str(),
                   gputest::show<T>(bits_of(fin)).c_str(), gputest::show<T>(bits_of(want)).c_str());
          break;
        }
        case kAdd: {
          uint64_t sum = 0;
          for (uint64_t id = 0; id < static_cast<uint64_t>(shape.n()); ++id) sum += bits_of(add_operand<T>(seed, id));
          const T want = wrap_add<T>(start, of_bits<T>(sum));
          MP_CHECK(bits_of(fin) == bits_of(want), "%s: final value %s, expected %s", what.c_str(),
                   gputest::show<T>(bits_of(fin)).c_str(), gputest::show<T>(bits_of(want)).c_str());
          break;
        }
        case kSwap:
          check_swap_chain<T>(what.c_str(), all, start, fin, c.me);
          break;
        case kSetFetch:
          check_set_fetch<T>(what.c_str(), all, start, fin, shape);
          break;
      }
    }
  }
  if (c.me == 0)
    std::printf("gpu_atomic: %s: fetch_inc, inc, fetch_add, add, compare_swap, swap, set, fetch\n", A::name);
}

template <class E>
void extended_suite(Ctx& c) {
  using T = typename E::T;
  const std::string type = E::name;
  auto* word = static_cast<T*>(c.word);
  for (int tgt = 0; tgt < 2; ++tgt) {
    for (int op : {kSwap, kSetFetch, kSequence}) {
      const uint64_t seed = mp::seed_of(0, ++c.round, 0xe47);
      if (op == kSequence) {
        const T start = whole<T>(kStartId + (seed & 7));
        for (int actor = 0; actor < 2; ++actor) {
          const std::string what = "PE " + std::to_string(actor) + ": nvshmem_" + type + "_atomic_{fetch,set,swap} " +
                                   op_names[op] + " " + where(actor, tgt);
          std::vector<unsigned long long> all;
          T fin{};
          gputest::Failure fl;
          run<T>(
              c, tgt, actor, start, 0, what.c_str(),
              [&] { extended_kernel<E><<<1, 1>>>(op, word, c.fetched, tgt, c.me, seed, 0, c.failures->dev()); }, &all,
              &fin, &fl);
          check_sequence_run<T>(what, fl);
        }
        continue;
      }
      const T start = whole<T>(kStartId);
      const Shape& shape = c.shape;
      const std::string what = "nvshmem_" + type + "_atomic_" + op_names[op] + " by both PEs " + where(c.me, tgt) +
                               ", " + std::to_string(shape.n()) + " operations";
      std::vector<unsigned long long> all;
      T fin{};
      gputest::Failure fl;
      const bool checker = run<T>(
          c, tgt, -1, start, static_cast<size_t>(shape.per_pe()), what.c_str(),
          [&] {
            extended_kernel<E>
                <<<shape.blocks, shape.threads>>>(op, word, c.fetched, tgt, c.me, seed, shape.ops, c.failures->dev());
          },
          &all, &fin, &fl);
      if (!checker) continue;
      if (op == kSwap) {
        check_swap_chain<T>(what.c_str(), all, start, fin, c.me);
      } else {
        check_set_fetch<T>(what.c_str(), all, start, fin, shape);
      }
    }
  }
  if (c.me == 0) std::printf("gpu_atomic: %s: swap, set, fetch\n", E::name);
}

// `big` is 2^p for the type's p significand bits; half takes the compare_swap shape with a step of 1 (its sums
// stay exact up to 2048), the others the full shape with a step of 0.25.
template <class F>
void float_suite(Ctx& c, double big) {
  using T = typename F::T;
  const std::string type = F::name;
  const bool half = sizeof(T) == 2;
  const Shape& shape = half ? c.cas_shape : c.shape;
  const double step = half ? 1.0 : 0.25;
  auto* word = static_cast<T*>(c.word);
  for (int tgt = 0; tgt < 2; ++tgt) {
    const std::string what = "nvshmemx_" + type + "_atomic_{add,fetch_add} by both PEs " + where(c.me, tgt) + ", " +
                             std::to_string(shape.n()) + " operations";
    std::vector<unsigned long long> all;
    T fin{};
    gputest::Failure fl;
    const bool checker = run<T>(
        c, tgt, -1, F::of(0.0), static_cast<size_t>(shape.per_pe()), what.c_str(),
        [&] { float_kernel<F><<<shape.blocks, shape.threads>>>(word, c.fetched, tgt, c.me, shape.ops, step); }, &all,
        &fin, &fl);
    if (checker) {
      const double total = step * shape.n();
      MP_CHECK(F::value(fin) == total, "%s: the word is %g, expected %g", what.c_str(), F::value(fin), total);
      std::vector<double> seen;
      for (unsigned long long b : all) {
        if (b != kNoFetch) seen.push_back(F::value(from_bits<T>(b)));
      }
      std::sort(seen.begin(), seen.end());
      MP_CHECK(seen.size() * 2 == all.size(), "%s: %zu fetching adds, expected %zu", what.c_str(), seen.size(),
               all.size() / 2);
      for (size_t i = 0; i < seen.size(); ++i) {
        const double v = seen[i] / step;
        MP_CHECK(v >= 0 && seen[i] < total && v == static_cast<double>(static_cast<long long>(v)),
                 "%s: fetch_add returned %g, not a sum before an add", what.c_str(), seen[i]);
        MP_CHECK(i == 0 || seen[i - 1] != seen[i], "%s: fetch_add returned %g twice", what.c_str(), seen[i]);
      }
    }
    for (int actor = 0; actor < 2; ++actor) {
      const std::string seq =
          "PE " + std::to_string(actor) + ": " + type + " add/fetch_add rounding, set, swap " + where(actor, tgt);
      std::vector<unsigned long long> got;
      const bool mine = run<T>(
          c, tgt, actor, F::of(big), 5, seq.c_str(),
          [&] { float_kernel<F><<<1, 1>>>(word, c.fetched, tgt, c.me, 0, 0.0); }, &got, &fin, &fl);
      if (!mine) continue;
      // The actor's values: this PE's when it is the target, else the other PE's (the second half).
      const unsigned long long* v = got.data() + (actor == c.me ? 0 : 5);
      const double want[5] = {big, big, big + 4, big + 4, 2.5};
      const char* label[5] = {"big + 1 (rounded to even)", "fetch_add's result", "big + 3 (rounded to even)",
                              "swap's result (after set 1.5)", "the word after swap"};
      for (int i = 0; i < 5; ++i) {
        const double w = i == 3 ? 1.5 : want[i];
        MP_CHECK(F::value(from_bits<T>(v[i])) == w, "%s: %s is %g, expected %g", seq.c_str(), label[i],
                 F::value(from_bits<T>(v[i])), w);
      }
    }
  }
  if (c.me == 0) std::printf("gpu_atomic: %s: add, fetch_add (contention, rounding), fetch, set, swap\n", F::name);
}

template <class B>
void bitwise_suite(Ctx& c) {
  using T = typename B::T;
  constexpr int kBits = 8 * sizeof(T);
  auto* word = static_cast<T*>(c.word);
  for (int tgt = 0; tgt < 2; ++tgt) {
    const uint64_t seed = mp::seed_of(0, ++c.round, 0xb17);
    const uint64_t start = hash64(seed ^ 0x5) & word_mask<T>();
    const std::string what = std::string("nvshmem_") + B::name + "_atomic_{and,or,xor,fetch_and,fetch_or,fetch_xor," +
                             "fetch} on one bit per thread, by both PEs " + where(c.me, tgt);
    c.failures->reset();
    if (c.me == tgt) CUDA_CHECK(cudaMemcpy(word, &start, sizeof(T), cudaMemcpyHostToDevice));
    gputest::sync_and_barrier();
    bitwise_kernel<B><<<1, kBits / 2>>>(word, tgt, c.me, start, seed, c.bit_steps, c.failures->dev());
    CUDA_CHECK(cudaGetLastError());
    gputest::sync_or_die(0, 30, [&] { return what; });
    gputest::sync_and_barrier();
    gputest::Failure fl = c.failures->get();
    MP_CHECK(fl.count == 0,
             "%s: %llu fetched values show the caller's bit wrong; the first: bit %lld, step %lld, %s returned %s, "
             "in which bit %lld should be %llu",
             what.c_str(), fl.count, fl.index, fl.round, bit_op_names[fl.check], gputest::show<T>(fl.actual).c_str(),
             fl.index, fl.expected);
    if (c.me == tgt) {
      uint64_t want = 0;
      for (int bit = 0; bit < kBits; ++bit) {
        int state = static_cast<int>((start >> bit) & 1);
        for (int k = 0; k < c.bit_steps; ++k) state = bit_after(bit_op(seed, bit, k), state);
        want |= static_cast<uint64_t>(state) << bit;
      }
      T fin{};
      CUDA_CHECK(cudaMemcpy(&fin, word, sizeof(T), cudaMemcpyDeviceToHost));
      MP_CHECK((bits_of(fin) & word_mask<T>()) == want, "%s: final word %s, expected %s (start %s)", what.c_str(),
               gputest::show<T>(bits_of(fin)).c_str(), gputest::show<T>(want).c_str(), gputest::show<T>(start).c_str());
    }
    gputest::sync_and_barrier();
  }
  if (c.me == 0) std::printf("gpu_atomic: %s: and, or, xor, fetch_and, fetch_or, fetch_xor\n", B::name);
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  Ctx c;
  c.me = nvshmem_my_pe();
  // Under the network scale every atomic on the other PE's word is a network round trip: fewer of them,
  // still from both PEs and several blocks at once. The bit runs keep their threads (one per bit) and take
  // fewer steps (8 at scale 64: with 16 to 32 bits per PE every operation still comes up).
  c.shape = scaled_shape(kFull, 32);
  c.cas_shape = scaled_shape(kCasFull, 8);
  c.bit_steps = gputest::scaled(kBitSteps, 8);
  c.word = nvshmem_malloc(64);
  // Sized for the full shape (the scaled one uses its start).
  c.fetched = static_cast<unsigned long long*>(nvshmem_malloc(kFull.per_pe() * sizeof(unsigned long long)));
  MP_CHECK(c.word && c.fetched, "nvshmem_malloc failed");
  {
    gputest::Failures failures;
    c.failures = &failures;
#define GSHMEMT_RUN(NAME, TYPE) arith_suite<Arith_##NAME>(c);
    GSHMEMT_TYPES_AMO_STD(GSHMEMT_RUN)
    GSHMEMT_TYPES_AMO_BIT(GSHMEMT_RUN)
#undef GSHMEMT_RUN
#define GSHMEMT_RUN(NAME, TYPE) bitwise_suite<Bitwise_##NAME>(c);
    GSHMEMT_TYPES_AMO_BIT(GSHMEMT_RUN)
#undef GSHMEMT_RUN
#define GSHMEMT_RUN(NAME, TYPE) extended_suite<Extended_##NAME>(c);
    GSHMEMT_TYPES_AMO_EXT(GSHMEMT_RUN)
#undef GSHMEMT_RUN
    float_suite<FloatAdd_float>(c, 16777216.0);
    float_suite<FloatAdd_double>(c, 9007199254740992.0);
    float_suite<FloatAdd_half>(c, 2048.0);
    gputest::sync_and_barrier();
  }
  nvshmem_free(c.fetched);
  nvshmem_free(c.word);
  if (c.me == 0) std::printf("gpu_atomic: every check passed on 2 PEs%s\n", gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
