// What the device atomic perftests share (shmem_atomic_latency, shmem_atomic_bw,
// shmem_atomic_ping_pong_latency): the -a operations, the NVSHMEM atomic types with the operations
// each one has, and one call of an operation on a type.
//
// Types and operations, as NVSHMEM defines them:
//  - extended (set, swap): float, double and every type below;
//  - standard (inc, fetch_inc, add, fetch_add, compare_swap): int, long, longlong, size, ptrdiff and
//    every type below (but int64, longlong and ptrdiff without inc, fetch_inc, add and fetch_add:
//    see kAmoArithMissing);
//  - bitwise (and, or, xor and their fetch_ forms): uint, ulong, ulonglong, int32, int64, uint32,
//    uint64.
#pragma once

#include <cstring>
#include <string>
#include <type_traits>

#include "device_common.cuh"

namespace {

enum class AmoOp {
  kInc,
  kFetchInc,
  kSet,
  kAdd,
  kFetchAdd,
  kAnd,
  kFetchAnd,
  kOr,
  kFetchOr,
  kXor,
  kFetchXor,
  kSwap,
  kCompareSwap
};

// The class an operation needs (a type of class c has the operations of every class <= c).
enum AmoClass { kAmoExt = 0, kAmoStd = 1, kAmoBit = 2 };

struct AmoOpInfo {
  const char *name;  // as -a spells it
  AmoOp op;
  AmoClass needs;
  bool fetches;  // returns the old value
};

const AmoOpInfo kAmoOps[] = {
    {"inc", AmoOp::kInc, kAmoStd, false},
    {"fetch_inc", AmoOp::kFetchInc, kAmoStd, true},
    {"set", AmoOp::kSet, kAmoExt, false},
    {"add", AmoOp::kAdd, kAmoStd, false},
    {"fetch_add", AmoOp::kFetchAdd, kAmoStd, true},
    {"and", AmoOp::kAnd, kAmoBit, false},
    {"fetch_and", AmoOp::kFetchAnd, kAmoBit, true},
    {"or", AmoOp::kOr, kAmoBit, false},
    {"fetch_or", AmoOp::kFetchOr, kAmoBit, true},
    {"xor", AmoOp::kXor, kAmoBit, false},
    {"fetch_xor", AmoOp::kFetchXor, kAmoBit, true},
    {"swap", AmoOp::kSwap, kAmoExt, true},
    {"compare_swap", AmoOp::kCompareSwap, kAmoStd, true},
};

// The operation -a names (perftest_parse_args accepts only these names).
const AmoOpInfo &amo_op_info(const std::string &name) {
  for (const AmoOpInfo &info : kAmoOps) {
    if (name == info.name) return info;
  }
  return kAmoOps[0];
}

__host__ __device__ constexpr AmoClass amo_op_class(AmoOp op) {
  switch (op) {
    case AmoOp::kSet:
    case AmoOp::kSwap:
      return kAmoExt;
    case AmoOp::kAnd:
    case AmoOp::kFetchAnd:
    case AmoOp::kOr:
    case AmoOp::kFetchOr:
    case AmoOp::kXor:
    case AmoOp::kFetchXor:
      return kAmoBit;
    default:
      return kAmoStd;
  }
}

__host__ __device__ constexpr bool amo_op_fetches(AmoOp op) {
  return op == AmoOp::kFetchInc || op == AmoOp::kFetchAdd || op == AmoOp::kFetchAnd || op == AmoOp::kFetchOr ||
         op == AmoOp::kFetchXor || op == AmoOp::kSwap || op == AmoOp::kCompareSwap;
}

// One struct per type: Type, kName, kClass and the NVSHMEM calls of its class (and_, or_, xor_: the
// plain names are C++ operator keywords).
// clang-format off
#define PT_AMO_Ext_CALLS(NAME, T)                                                                               \
  static __device__ __forceinline__ void set(T *d, T v, int pe) { nvshmem_##NAME##_atomic_set(d, v, pe); }      \
  static __device__ __forceinline__ T swap(T *d, T v, int pe) { return nvshmem_##NAME##_atomic_swap(d, v, pe); }
#define PT_AMO_Std_CALLS(NAME, T)                                                                               \
  PT_AMO_Ext_CALLS(NAME, T)                                                                                     \
  static __device__ __forceinline__ void inc(T *d, int pe) { nvshmem_##NAME##_atomic_inc(d, pe); }             \
  static __device__ __forceinline__ T fetch_inc(T *d, int pe) { return nvshmem_##NAME##_atomic_fetch_inc(d, pe); } \
  static __device__ __forceinline__ void add(T *d, T v, int pe) { nvshmem_##NAME##_atomic_add(d, v, pe); }     \
  static __device__ __forceinline__ T fetch_add(T *d, T v, int pe) {                                            \
    return nvshmem_##NAME##_atomic_fetch_add(d, v, pe);                                                         \
  }                                                                                                             \
  static __device__ __forceinline__ T compare_swap(T *d, T c, T v, int pe) {                                    \
    return nvshmem_##NAME##_atomic_compare_swap(d, c, v, pe);                                                   \
  }
#define PT_AMO_Bit_CALLS(NAME, T)                                                                               \
  PT_AMO_Std_CALLS(NAME, T)                                                                                     \
  static __device__ __forceinline__ void and_(T *d, T v, int pe) { nvshmem_##NAME##_atomic_and(d, v, pe); }    \
  static __device__ __forceinline__ T fetch_and(T *d, T v, int pe) {                                            \
    return nvshmem_##NAME##_atomic_fetch_and(d, v, pe);                                                         \
  }                                                                                                             \
  static __device__ __forceinline__ void or_(T *d, T v, int pe) { nvshmem_##NAME##_atomic_or(d, v, pe); }      \
  static __device__ __forceinline__ T fetch_or(T *d, T v, int pe) {                                             \
    return nvshmem_##NAME##_atomic_fetch_or(d, v, pe);                                                          \
  }                                                                                                             \
  static __device__ __forceinline__ void xor_(T *d, T v, int pe) { nvshmem_##NAME##_atomic_xor(d, v, pe); }    \
  static __device__ __forceinline__ T fetch_xor(T *d, T v, int pe) {                                            \
    return nvshmem_##NAME##_atomic_fetch_xor(d, v, pe);                                                         \
  }
// clang-format on
#define PT_AMO_TYPE(NAME, T, CLASS)                 \
  struct Amo_##NAME {                               \
    using Type = T;                                 \
    static constexpr const char *kName = #NAME;     \
    static constexpr AmoClass kClass = kAmo##CLASS; \
    PT_AMO_##CLASS##_CALLS(NAME, T)                 \
  };

PT_AMO_TYPE(int, int, Std)
PT_AMO_TYPE(long, long, Std)
PT_AMO_TYPE(longlong, long long, Std)
PT_AMO_TYPE(uint, unsigned int, Bit)
PT_AMO_TYPE(ulong, unsigned long, Bit)
PT_AMO_TYPE(ulonglong, unsigned long long, Bit)
PT_AMO_TYPE(int32, int32_t, Bit)
PT_AMO_TYPE(int64, int64_t, Bit)
PT_AMO_TYPE(uint32, uint32_t, Bit)
PT_AMO_TYPE(uint64, uint64_t, Bit)
PT_AMO_TYPE(size, size_t, Std)
PT_AMO_TYPE(ptrdiff, ptrdiff_t, Std)
PT_AMO_TYPE(float, float, Ext)
PT_AMO_TYPE(double, double, Ext)

#undef PT_AMO_TYPE
#undef PT_AMO_Bit_CALLS
#undef PT_AMO_Std_CALLS
#undef PT_AMO_Ext_CALLS

constexpr int kAmoTypeCount = 14;

// Calls fn(Amo_<type>{}, index) for every type, in the order above.
template <class Fn>
void for_each_amo_type(Fn &&fn) {
  fn(Amo_int{}, 0);
  fn(Amo_long{}, 1);
  fn(Amo_longlong{}, 2);
  fn(Amo_uint{}, 3);
  fn(Amo_ulong{}, 4);
  fn(Amo_ulonglong{}, 5);
  fn(Amo_int32{}, 6);
  fn(Amo_int64{}, 7);
  fn(Amo_uint32{}, 8);
  fn(Amo_uint64{}, 9);
  fn(Amo_size{}, 10);
  fn(Amo_ptrdiff{}, 11);
  fn(Amo_float{}, 12);
  fn(Amo_double{}, 13);
}

template <AmoOp Op>
using AmoOpConstant = std::integral_constant<AmoOp, Op>;

// Calls fn(AmoOpConstant<op>{}) with `op` as a compile-time constant.
template <class Fn>
void with_amo_op(AmoOp op, Fn &&fn) {
  switch (op) {
    case AmoOp::kInc:
      return fn(AmoOpConstant<AmoOp::kInc>{});
    case AmoOp::kFetchInc:
      return fn(AmoOpConstant<AmoOp::kFetchInc>{});
    case AmoOp::kSet:
      return fn(AmoOpConstant<AmoOp::kSet>{});
    case AmoOp::kAdd:
      return fn(AmoOpConstant<AmoOp::kAdd>{});
    case AmoOp::kFetchAdd:
      return fn(AmoOpConstant<AmoOp::kFetchAdd>{});
    case AmoOp::kAnd:
      return fn(AmoOpConstant<AmoOp::kAnd>{});
    case AmoOp::kFetchAnd:
      return fn(AmoOpConstant<AmoOp::kFetchAnd>{});
    case AmoOp::kOr:
      return fn(AmoOpConstant<AmoOp::kOr>{});
    case AmoOp::kFetchOr:
      return fn(AmoOpConstant<AmoOp::kFetchOr>{});
    case AmoOp::kXor:
      return fn(AmoOpConstant<AmoOp::kXor>{});
    case AmoOp::kFetchXor:
      return fn(AmoOpConstant<AmoOp::kFetchXor>{});
    case AmoOp::kSwap:
      return fn(AmoOpConstant<AmoOp::kSwap>{});
    case AmoOp::kCompareSwap:
      return fn(AmoOpConstant<AmoOp::kCompareSwap>{});
  }
}

// NVSHMEM 3.4.5's device library declares inc, fetch_inc, add and fetch_add for the signed 64-bit
// types int64, longlong and ptrdiff but does not define them, so a program calling them does not
// link against it: the tests leave these out (with either library, so that both measure the same
// set; inc then covers 9 types).
template <class A>
inline constexpr bool kAmoArithMissing = false;
template <>
inline constexpr bool kAmoArithMissing<Amo_int64> = true;
template <>
inline constexpr bool kAmoArithMissing<Amo_longlong> = true;
template <>
inline constexpr bool kAmoArithMissing<Amo_ptrdiff> = true;

__host__ __device__ constexpr bool amo_op_arith(AmoOp op) {
  return op == AmoOp::kInc || op == AmoOp::kFetchInc || op == AmoOp::kAdd || op == AmoOp::kFetchAdd;
}

// Whether type A has operation Op (and the tests measure it).
template <class A, AmoOp Op>
inline constexpr bool kAmoHas = amo_op_class(Op) <= A::kClass && !(kAmoArithMissing<A> && amo_op_arith(Op));

// One call of Op on `pe`'s copy of *dest. `operand` is the value of add, set, swap, and, or, xor and
// compare_swap's new value; `cond` is compare_swap's comparand. Returns the old value for the
// fetching operations, T() for the others.
template <class A, AmoOp Op>
__device__ __forceinline__ typename A::Type amo_call(typename A::Type *dest, typename A::Type operand,
                                                     typename A::Type cond, int pe) {
  using T = typename A::Type;
  static_assert(kAmoHas<A, Op>, "this type does not have this atomic operation");
  if constexpr (Op == AmoOp::kInc) {
    A::inc(dest, pe);
  } else if constexpr (Op == AmoOp::kFetchInc) {
    return A::fetch_inc(dest, pe);
  } else if constexpr (Op == AmoOp::kSet) {
    A::set(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kAdd) {
    A::add(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kFetchAdd) {
    return A::fetch_add(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kAnd) {
    A::and_(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kFetchAnd) {
    return A::fetch_and(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kOr) {
    A::or_(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kFetchOr) {
    return A::fetch_or(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kXor) {
    A::xor_(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kFetchXor) {
    return A::fetch_xor(dest, operand, pe);
  } else if constexpr (Op == AmoOp::kSwap) {
    return A::swap(dest, operand, pe);
  } else {
    return A::compare_swap(dest, cond, operand, pe);
  }
  (void)cond;
  (void)operand;
  return T();
}

// The unsigned word of T's size, for waiting on and comparing bit patterns (float and double
// included, which have no wait_until).
template <class T>
using AmoWord = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T>
__host__ __device__ __forceinline__ AmoWord<T> amo_bits(T v) {
  AmoWord<T> w;
  memcpy(&w, &v, sizeof w);
  return w;
}
template <class T>
__host__ __device__ __forceinline__ T amo_from_bits(AmoWord<T> w) {
  T v;
  memcpy(&v, &w, sizeof v);
  return v;
}

// Keeps a fetched value alive at no cost in the loop: the compiler must compute it (and so wait for
// it) because it may be stored at the end.
template <class T>
__device__ __forceinline__ void amo_sink(AmoWord<T> acc, AmoWord<T> *out) {
  if (acc == static_cast<AmoWord<T>>(0x5a5a5a5a5a5a5a5aull)) *out = acc;
}

}  // namespace
