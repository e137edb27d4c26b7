// The reductions (reduce = all-reduce, and reduce-scatter), written once for kernels (every scope;
// the host and on-stream forms of the GPU backend run them in the library's kernel) and for the CPU
// backend's host code, with the operations and element types of NVSHMEM's reduction families.
//
// Algorithm (one pass, every member's data read where it lies):
//   reduce:         team sync (every member's source is ready, its dest free); member k combines
//                   elements of chunk k (of team-size chunks) over all members' sources and stores
//                   each result into every member's dest; team barrier with quiet.
//   reduce-scatter: team sync; member k combines block k of all members' sources into its own dest;
//                   team sync (no member still reads this PE's source when it returns).
// Each element is computed by one PE, combining the members' values in team order 0, 1, ..., n-1,
// so every member holds bit-identical results, and the same input gives the same output whichever
// PE runs it. In reduce, element e of any dest is written only by the member that read element e
// of every source, after reading it: dest == source (in place) is safe; partial overlap is not.
// Messages of at most TeamSlot::ll_max_bytes per member go in flag-in-data packets instead
// (ll_reduce): every member combines every element itself, in the same order, with no sync.
//
// Semantics of the combination (docs/collectives.md):
//   integers   sum and prod wrap modulo 2^bits (computed in the unsigned type, signed ones too);
//              min/max compare in the type; and/or/xor bitwise.
//   float, double  combined in the type itself, in team order: ((s0 op s1) op s2) ...
//   half, bfloat16 each value widened to float, combined in float in team order, rounded to the
//              16-bit type once at the end (round to nearest even).
//   min/max    NaN if any member's value is NaN; min(-0, +0) = -0 and max(-0, +0) = +0.
//
// The caller provides (all threads of the cooperating group call each member together):
//   ops.peer(i, p)    member i's copy of the symmetric object at p, as a pointer this PE can load
//                     from and store to
//   ops.load(p)       a load of a peer's element (device: one that bypasses the SM's L1)
//   ops.rank(), ops.threads()  this thread's index in the group and the group's size
//   ops.sync()        the team's sync;  ops.barrier()  the team's barrier with quiet
//   Ops::kPackets, ops.packets() and what ll_algo.h needs: small reductions go in flag-in-data packets
//                     when both are true
#ifndef GSHMEM_DETAIL_REDUCE_ALGO_H_
#define GSHMEM_DETAIL_REDUCE_ALGO_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "gshmem/detail/float16.h"
#include "gshmem/detail/ll_algo.h"
#include "gshmem/detail/team.h"
#include "gshmem/types.hpp"

#if defined(__CUDACC__)
#define GSHMEMI_RED_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_RED_FN inline
#endif

namespace gshmem {
namespace detail {

// The operations and element types (gshmem/types.hpp), as the host library, its kernels and the
// generated names pass them.
using gshmem::ReduceOp;
using gshmem::ReduceType;

template <class T>
constexpr ReduceType reduce_type_of() {
  static_assert(std::is_arithmetic<T>::value && sizeof(T) <= 8, "not a reduction type");
  return std::is_floating_point<T>::value ? (sizeof(T) == 4 ? ReduceType::kF32 : ReduceType::kF64)
         : sizeof(T) == 1                 ? (std::is_signed<T>::value ? ReduceType::kI8 : ReduceType::kU8)
         : sizeof(T) == 2                 ? (std::is_signed<T>::value ? ReduceType::kI16 : ReduceType::kU16)
         : sizeof(T) == 4                 ? (std::is_signed<T>::value ? ReduceType::kI32 : ReduceType::kU32)
                                          : (std::is_signed<T>::value ? ReduceType::kI64 : ReduceType::kU64);
}

GSHMEMI_RED_FN constexpr size_t reduce_type_size(ReduceType t) {
  return t == ReduceType::kI8 || t == ReduceType::kU8                                                        ? 1
         : t == ReduceType::kI16 || t == ReduceType::kU16 || t == ReduceType::kF16 || t == ReduceType::kBF16 ? 2
         : t == ReduceType::kI32 || t == ReduceType::kU32 || t == ReduceType::kF32                           ? 4
                                                                                                             : 8;
}
GSHMEMI_RED_FN constexpr bool reduce_type_is_float(ReduceType t) {
  return t == ReduceType::kF16 || t == ReduceType::kBF16 || t == ReduceType::kF32 || t == ReduceType::kF64;
}

// ---- the combinations. Combiner<Op, T>: Acc the accumulator type; in/out convert; apply combines.
template <class F, class Bits>
GSHMEMI_RED_FN F float_min(F a, F b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return bit_cast_value<F>(static_cast<Bits>(bit_cast_value<Bits>(a) | bit_cast_value<Bits>(b)));
  return b < a ? b : a;
}
template <class F, class Bits>
GSHMEMI_RED_FN F float_max(F a, F b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return bit_cast_value<F>(static_cast<Bits>(bit_cast_value<Bits>(a) & bit_cast_value<Bits>(b)));
  return b > a ? b : a;
}

template <ReduceOp Op, class F, class Bits>
struct FloatCombine {
  static GSHMEMI_RED_FN F apply(F a, F b) {
    if (Op == ReduceOp::kSum) return a + b;
    if (Op == ReduceOp::kProd) return a * b;
    if (Op == ReduceOp::kMin) return float_min<F, Bits>(a, b);
    return float_max<F, Bits>(a, b);
  }
};

template <ReduceOp Op, class T, class Enable = void>
struct Combiner;

template <ReduceOp Op, class T>
struct Combiner<Op, T, typename std::enable_if<std::is_integral<T>::value>::type> {
  using Acc = T;
  static GSHMEMI_RED_FN Acc in(T v) { return v; }
  static GSHMEMI_RED_FN T out(Acc a) { return a; }
  static GSHMEMI_RED_FN Acc apply(Acc a, Acc b) {
    using U = typename std::make_unsigned<T>::type;
    switch (Op) {
      case ReduceOp::kAnd:
        return static_cast<T>(a & b);
      case ReduceOp::kOr:
        return static_cast<T>(a | b);
      case ReduceOp::kXor:
        return static_cast<T>(a ^ b);
      case ReduceOp::kMin:
        return b < a ? b : a;
      case ReduceOp::kMax:
        return b > a ? b : a;
      case ReduceOp::kSum:  // in 64 unsigned bits: no promotion to int, no signed overflow
        return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) + static_cast<U>(b)));
      default:
        return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) * static_cast<U>(b)));
    }
  }
};
template <ReduceOp Op>
struct Combiner<Op, float> : FloatCombine<Op, float, uint32_t> {
  using Acc = float;
  static GSHMEMI_RED_FN float in(float v) { return v; }
  static GSHMEMI_RED_FN float out(float a) { return a; }
};
template <ReduceOp Op>
struct Combiner<Op, double> : FloatCombine<Op, double, uint64_t> {
  using Acc = double;
  static GSHMEMI_RED_FN double in(double v) { return v; }
  static GSHMEMI_RED_FN double out(double a) { return a; }
};
template <ReduceOp Op>
struct Combiner<Op, F16> : FloatCombine<Op, float, uint32_t> {
  using Acc = float;
  static GSHMEMI_RED_FN float in(F16 v) { return widen(v); }
  static GSHMEMI_RED_FN F16 out(float a) { return narrow_f16(a); }
};
template <ReduceOp Op>
struct Combiner<Op, BF16> : FloatCombine<Op, float, uint32_t> {
  using Acc = float;
  static GSHMEMI_RED_FN float in(BF16 v) { return widen(v); }
  static GSHMEMI_RED_FN BF16 out(float a) { return narrow_bf16(a); }
};

// Which operations a type has (NVSHMEM's classes: bitwise ops on integers only; maxloc on the device's
// double2 only, handled there).
GSHMEMI_RED_FN constexpr bool reduce_op_allowed(ReduceType t, ReduceOp op) {
  return op == ReduceOp::kMaxloc ? false : !(reduce_type_is_float(t) && op <= ReduceOp::kXor);
}

// ---- the algorithms.
// Elements [begin, end) of member `k`'s chunk when `n` elements are shared by `members`; chunks are
// whole multiples of 16 bytes (but the last), so that no two members store into one 16-byte unit.
template <class T>
GSHMEMI_RED_FN void reduce_chunk(size_t n, int members, int k, size_t* begin, size_t* end) {
  const size_t unit = sizeof(T) >= 16 ? 1 : 16 / sizeof(T);
  size_t per = (n + static_cast<size_t>(members) - 1) / static_cast<size_t>(members);
  per = (per + unit - 1) / unit * unit;
  const size_t b = per * static_cast<size_t>(k);
  *begin = b < n ? b : n;
  *end = per < n - *begin ? *begin + per : n;
}

template <class C, class T, class Ops>
GSHMEMI_RED_FN typename C::Acc combine_members(Ops& ops, const TeamSlot& t, const T* src, size_t e) {
  typename C::Acc acc = C::in(ops.load(ops.peer(0, src) + e));
  for (int j = 1; j < t.size; ++j) acc = C::apply(acc, C::in(ops.load(ops.peer(j, src) + e)));
  return acc;
}

// 16 bytes of elements, moved by one load or store.
template <class T>
struct alignas(16) Vec16 {
  static constexpr int kCount = static_cast<int>(16 / sizeof(T));
  T v[kCount];
};

// The elements [e, e + Vec16<T>::kCount) combined over the members, a vector at a time.
template <class C, class T, class Ops>
GSHMEMI_RED_FN Vec16<T> combine_members_vec(Ops& ops, const TeamSlot& t, const T* src, size_t e) {
  using V = Vec16<T>;
  typename C::Acc acc[V::kCount];
  V x = ops.load(reinterpret_cast<const V*>(ops.peer(0, src) + e));
  for (int k = 0; k < V::kCount; ++k) acc[k] = C::in(x.v[k]);
  for (int j = 1; j < t.size; ++j) {
    x = ops.load(reinterpret_cast<const V*>(ops.peer(j, src) + e));
    for (int k = 0; k < V::kCount; ++k) acc[k] = C::apply(acc[k], C::in(x.v[k]));
  }
  V r;
  for (int k = 0; k < V::kCount; ++k) r.v[k] = C::out(acc[k]);
  return r;
}

GSHMEMI_RED_FN bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// For e in [begin, end): dest[e - shift] = the members' combination of src[e], stored into this PE's
// dest (all = false) or every member's (all = true, each member from the next one on): 16 bytes at a
// time where src and dest allow it (16-byte aligned, as heap allocations are), one element at a time
// for the rest.
template <class C, class T, class Ops>
GSHMEMI_RED_FN void combine_range(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t begin, size_t end,
                                  size_t shift, bool all) {
  size_t e = begin;
  if (sizeof(T) < 16 && aligned16(src + begin) && aligned16(dest + (begin - shift))) {
    using V = Vec16<T>;
    const size_t vectors = (end - begin) / V::kCount;
    for (size_t v = ops.rank(); v < vectors; v += ops.threads()) {
      const size_t at = begin + v * V::kCount;
      const V r = combine_members_vec<C>(ops, t, src, at);
      T* to = dest + (at - shift);
      if (!all) {
        *reinterpret_cast<V*>(to) = r;
        continue;
      }
      for (int k = 1; k <= t.size; ++k) *reinterpret_cast<V*>(ops.peer((t.my_index + k) % t.size, to)) = r;
    }
    e = begin + vectors * V::kCount;
  }
  for (e += ops.rank(); e < end; e += ops.threads()) {
    const T r = C::out(combine_members<C>(ops, t, src, e));
    T* to = dest + (e - shift);
    if (!all) {
      *to = r;
      continue;
    }
    for (int k = 1; k <= t.size; ++k) *ops.peer((t.my_index + k) % t.size, to) = r;
  }
}

// A small integer reduce across the network (messages) on a team whose size is a power of two goes by
// recursive doubling: in round d (1, 2, 4, ...) each member sends what it has combined so far to member
// my_index ^ d and combines what that member sent: log2(n) messages from each member instead of n - 1, in
// rounds that follow one another. The integer combinations do not depend on their order (sums and products
// wrap), so every member gets the team-order result, bit for bit. The rounds use ll_algo.h's slots (member
// k's message in slot k of the receiver): a member reaches a given partner in one round only, and it
// finishes a collective only after every member has started it, that is, has finished reading the one
// before, so the buffers alternate safely as in the exchange of every member with every member.
// Returns false, doing nothing, where it does not apply.
template <class C, class T, class Ops>
GSHMEMI_RED_FN bool ll_reduce_doubling(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t n) {
  if constexpr (Ops::kMessages && std::is_integral<T>::value && std::is_same<typename C::Acc, T>::value) {
    if (!ops.messages() || (t.size & (t.size - 1)) != 0) return false;
    LLRound<Ops> r(ops, t);
    T mine[kLLBytes / sizeof(T)], theirs[kLLBytes / sizeof(T)];
    memcpy(mine, src, n * sizeof(T));
    for (int d = 1; d < t.size; d <<= 1) {
      const int partner = t.my_index ^ d;
      r.send(partner, reinterpret_cast<const char*>(mine), n * sizeof(T));
      r.receive(partner, reinterpret_cast<char*>(theirs), n * sizeof(T));
      for (size_t e = 0; e < n; ++e) mine[e] = C::apply(mine[e], theirs[e]);
    }
    memcpy(dest, mine, n * sizeof(T));
    r.end();
    return true;
  }
  return false;
}

// Small reductions in packets (ll_algo.h): every member sends its source (reduce) or block i of it
// (reduce-scatter, to member i) to every member, which combines the members' values in team order,
// as combine_members does: the same result as the one-pass algorithm, bit for bit.
template <class C, class T, class Ops>
GSHMEMI_RED_FN void ll_reduce(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t n, bool scatter) {
  if (!scatter && ll_reduce_doubling<C>(ops, t, dest, src, n)) return;
  LLRound<Ops> r(ops, t);
  for (int k = 1; k <= t.size; ++k) {
    const int i = (t.my_index + k) % t.size;
    r.send(i, reinterpret_cast<const char*>(scatter ? src + static_cast<size_t>(i) * n : src), n * sizeof(T));
  }
  for (size_t e = static_cast<size_t>(ops.rank()); e < n; e += static_cast<size_t>(ops.threads())) {
    T v;
    r.element(0, e, sizeof(T), &v);
    typename C::Acc acc = C::in(v);
    for (int j = 1; j < t.size; ++j) {
      r.element(j, e, sizeof(T), &v);
      acc = C::apply(acc, C::in(v));
    }
    dest[e] = C::out(acc);
  }
  r.end();
}

// reduce with the combination C (a Combiner, or another type with Acc, in, out and apply).
template <class C, class T, class Ops>
GSHMEMI_RED_FN void reduce_with(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t n) {
  if constexpr (Ops::kPackets) {
    if (ops.packets() && use_ll(t, n * sizeof(T))) return ll_reduce<C>(ops, t, dest, src, n, false);
  }
  ops.sync();
  size_t begin, end;
  reduce_chunk<T>(n, t.size, t.my_index, &begin, &end);
  combine_range<C>(ops, t, dest, src, begin, end, 0, true);
  ops.barrier();
}

template <ReduceOp Op, class T, class Ops>
GSHMEMI_RED_FN void reduce(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t n) {
  reduce_with<Combiner<Op, T>>(ops, t, dest, src, n);
}

template <ReduceOp Op, class T, class Ops>
GSHMEMI_RED_FN void reducescatter(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t n) {
  if constexpr (Ops::kPackets) {
    if (ops.packets() && use_ll(t, n * sizeof(T))) return ll_reduce<Combiner<Op, T>>(ops, t, dest, src, n, true);
  }
  ops.sync();
  const size_t begin = n * static_cast<size_t>(t.my_index);
  combine_range<Combiner<Op, T>>(ops, t, dest, src, begin, begin + n, begin, false);
  ops.sync();
}

// Reductions on a team with members across the network, whose sources a kernel cannot load: staged
// through the scratch at the end of every member's sync area (team.h), t.scratch_bytes split into one
// slot per member. In rounds of at most a slot per member: team sync (every member has finished
// reading its scratch in the round before, or the collective before); each member puts its part of
// the round (reduce: its source's elements; reduce-scatter: block i of its source, for member i) into
// its slot of every other member's scratch; team barrier with quiet (every put has landed); each
// member combines its own part and the slots in team order into its own dest. The members' values are
// combined in the same order as in the one-pass algorithm, so the results are the same, bit for bit.
// dest == src (in place, reduce) is safe: an element of dest is written after this PE's puts of it
// completed (the barrier), by the thread that read it.
// Needs, beyond the reductions' operations, ops.put(i, dest, src, bytes) (coll_algo.h), ops.heap() and
// ops.group_sync(). The caller checks staged_elements(t, sizeof(T)) > 0.
GSHMEMI_RED_FN size_t staged_elements(const TeamSlot& t, size_t elem) {
  const uint64_t slot =
      t.size > 0 ? (static_cast<uint64_t>(t.scratch_bytes) / static_cast<uint64_t>(t.size)) & ~15ull : 0;
  return static_cast<size_t>(slot / elem);
}

template <class C, class T, class Ops>
GSHMEMI_RED_FN void staged_reduce(Ops& ops, const TeamSlot& t, T* dest, const T* src, size_t n, bool scatter) {
  const size_t per = staged_elements(t, sizeof(T));  // elements of a slot
  const uint64_t slot_bytes = static_cast<uint64_t>(per) * sizeof(T);
  const uint64_t scratch = SyncLayout(t.size).scratch;
  char* const heap = ops.heap();
  const T* mine = reinterpret_cast<const T*>(heap + t.sync + scratch);   // this PE's slots
  const size_t own = scatter ? n * static_cast<size_t>(t.my_index) : 0;  // this PE's part of its source
  for (size_t b = 0; b < n; b += per) {
    const size_t m = n - b < per ? n - b : per;
    ops.sync();
    for (int k = 1; k < t.size; ++k) {
      const int i = (t.my_index + k) % t.size;
      // Slot my_index of member i's scratch, as the address of the same offset in this PE's heap.
      char* to = heap + t.sync_of[i] + scratch + static_cast<uint64_t>(t.my_index) * slot_bytes;
      const T* from = src + (scatter ? n * static_cast<size_t>(i) : 0) + b;
      ops.put(i, to, reinterpret_cast<const char*>(from), m * sizeof(T));
    }
    ops.barrier();
    for (size_t e = static_cast<size_t>(ops.rank()); e < m; e += static_cast<size_t>(ops.threads())) {
      typename C::Acc acc{};
      for (int j = 0; j < t.size; ++j) {
        const T v = j == t.my_index ? src[own + b + e] : ops.load(mine + static_cast<size_t>(j) * per + e);
        acc = j == 0 ? C::in(v) : C::apply(acc, C::in(v));
      }
      dest[b + e] = C::out(acc);
    }
  }
  ops.group_sync();  // every thread of the group sees the whole dest on return
}

// ---- dispatch from (type, op) values to the templates: f.template run<Op, T>() for a valid pair
// (returns false for an invalid one). Signed integers use the unsigned type where the bits of the
// result do not depend on the sign (and, or, xor, sum, prod), so that fewer variants are compiled.
template <ReduceOp Op, class T, class F>
GSHMEMI_RED_FN bool reduce_run_as(F& f) {
  using U = typename std::conditional<
      std::is_integral<T>::value && Op != ReduceOp::kMin && Op != ReduceOp::kMax,
      typename std::make_unsigned<typename std::conditional<std::is_integral<T>::value, T, int>::type>::type, T>::type;
  f.template run<Op, U>();
  return true;
}

template <class T, class F>
GSHMEMI_RED_FN bool reduce_dispatch_op(ReduceOp op, F& f) {
  constexpr bool integral = std::is_integral<T>::value;
  switch (op) {
    case ReduceOp::kAnd:
      return integral && reduce_run_as<ReduceOp::kAnd, typename std::conditional<integral, T, unsigned>::type>(f);
    case ReduceOp::kOr:
      return integral && reduce_run_as<ReduceOp::kOr, typename std::conditional<integral, T, unsigned>::type>(f);
    case ReduceOp::kXor:
      return integral && reduce_run_as<ReduceOp::kXor, typename std::conditional<integral, T, unsigned>::type>(f);
    case ReduceOp::kMin:
      return reduce_run_as<ReduceOp::kMin, T>(f);
    case ReduceOp::kMax:
      return reduce_run_as<ReduceOp::kMax, T>(f);
    case ReduceOp::kSum:
      return reduce_run_as<ReduceOp::kSum, T>(f);
    case ReduceOp::kProd:
      return reduce_run_as<ReduceOp::kProd, T>(f);
    default:
      return false;
  }
}

template <class F>
GSHMEMI_RED_FN bool reduce_dispatch(ReduceType type, ReduceOp op, F& f) {
  switch (type) {
    case ReduceType::kI8:
      return reduce_dispatch_op<int8_t>(op, f);
    case ReduceType::kU8:
      return reduce_dispatch_op<uint8_t>(op, f);
    case ReduceType::kI16:
      return reduce_dispatch_op<int16_t>(op, f);
    case ReduceType::kU16:
      return reduce_dispatch_op<uint16_t>(op, f);
    case ReduceType::kI32:
      return reduce_dispatch_op<int32_t>(op, f);
    case ReduceType::kU32:
      return reduce_dispatch_op<uint32_t>(op, f);
    case ReduceType::kI64:
      return reduce_dispatch_op<int64_t>(op, f);
    case ReduceType::kU64:
      return reduce_dispatch_op<uint64_t>(op, f);
    case ReduceType::kF16:
      return reduce_dispatch_op<F16>(op, f);
    case ReduceType::kBF16:
      return reduce_dispatch_op<BF16>(op, f);
    case ReduceType::kF32:
      return reduce_dispatch_op<float>(op, f);
    case ReduceType::kF64:
      return reduce_dispatch_op<double>(op, f);
  }
  return false;
}

// A reduction whose type and operation are values (the library's kernel and the CPU backend's engine
// get them so): reduce or reducescatter of `n` elements with the memory operations `ops`, or with
// `Staged` through the team's scratch (staged_reduce). False for a (type, op) pair that has no reduction.
template <class Ops, bool Staged = false>
struct ReduceByValue {
  Ops& ops;
  const TeamSlot& t;
  bool scatter;
  void* dest;
  const void* src;
  size_t n;
  template <ReduceOp Op, class T>
  GSHMEMI_RED_FN void run() {
    if constexpr (Staged) {
      staged_reduce<Combiner<Op, T>>(ops, t, static_cast<T*>(dest), static_cast<const T*>(src), n, scatter);
    } else if (scatter) {
      reducescatter<Op>(ops, t, static_cast<T*>(dest), static_cast<const T*>(src), n);
    } else {
      reduce<Op>(ops, t, static_cast<T*>(dest), static_cast<const T*>(src), n);
    }
  }
};

template <class Ops>
GSHMEMI_RED_FN bool reduce_by_value(Ops& ops, const TeamSlot& t, ReduceType type, ReduceOp op, bool scatter, void* dest,
                                    const void* src, size_t n) {
  ReduceByValue<Ops> r{ops, t, scatter, dest, src, n};
  return reduce_dispatch(type, op, r);
}

// staged_reduce with the type and operation as values (the library's kernel, for the host and on-stream
// reductions of the GPU backend on teams across the network).
template <class Ops>
GSHMEMI_RED_FN bool staged_by_value(Ops& ops, const TeamSlot& t, ReduceType type, ReduceOp op, bool scatter, void* dest,
                                    const void* src, size_t n) {
  ReduceByValue<Ops, true> r{ops, t, scatter, dest, src, n};
  return reduce_dispatch(type, op, r);
}

// Combines n elements for this PE only, with no sync: dest[e] = the members' src[e] combined in team
// order, where ops.peer(j, src) is member j's copy (the CPU backend gathers the members' copies across
// the network first). False for a (type, op) pair that has no reduction.
template <class Ops>
struct CombineByValue {
  Ops& ops;
  const TeamSlot& t;
  void* dest;
  const void* src;
  size_t n;
  template <ReduceOp Op, class T>
  GSHMEMI_RED_FN void run() {
    combine_range<Combiner<Op, T>>(ops, t, static_cast<T*>(dest), static_cast<const T*>(src), 0, n, 0, false);
  }
};

template <class Ops>
GSHMEMI_RED_FN bool combine_by_value(Ops& ops, const TeamSlot& t, ReduceType type, ReduceOp op, void* dest,
                                     const void* src, size_t n) {
  CombineByValue<Ops> r{ops, t, dest, src, n};
  return reduce_dispatch(type, op, r);
}

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_RED_FN

#endif  // GSHMEM_DETAIL_REDUCE_ALGO_H_
