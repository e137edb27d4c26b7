// Host atomics between PEs: every AMO operation on every type of its set (from the generated type
// lists), under contention (every PE hits the same word on one PE), checked against the value the
// operations must produce together: exact totals, fetched values that form the sequence the
// operation implies, bits that only their owner changes, and swap chains without loss. The float
// adds (NVSHMEM 3.7: float, double, and half through its bits) under contention, with sums that are
// exact, and rounded to nearest even where they are not.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gen/type_lists.h"
#include "gshmem/detail/float16.h"
#include "gshmem/host.hpp"
#include "mp_test.h"

namespace {

constexpr int kRounds = 64;

int me() { return nvshmem_my_pe(); }
int npes() { return nvshmem_n_pes(); }

template <class T>
T read_local(const T* p) {
  T v;
  nvshmem_getmem(&v, p, sizeof v, me());
  return v;
}
template <class T>
void write_local(T* p, T v) {
  nvshmem_putmem(p, &v, sizeof v, me());
}

// The operations every standard and bitwise type has.
template <class T>
struct StdOps {
  void (*inc)(T*, int);
  T (*fetch_inc)(T*, int);
  void (*add)(T*, T, int);
  T (*fetch_add)(T*, T, int);
  T (*fetch)(const T*, int);
  void (*set)(T*, T, int);
  T (*swap)(T*, T, int);
  T (*compare_swap)(T*, T, T, int);
};

template <class T>
void check_std(const char* type, const StdOps<T>& op) {
  const int tgt = npes() - 1;  // the PE every PE hits
  const int n = npes();
  T* w = static_cast<T*>(nvshmem_calloc(8, sizeof(T)));
  // Gathered at tgt: each PE's fetch_inc and fetch_add results, and its swap result.
  T* got = static_cast<T*>(nvshmem_calloc(static_cast<size_t>(n) * (2 * kRounds + 1), sizeof(T)));
  MP_CHECK(w && got, "nvshmem_calloc failed");
  nvshmem_barrier_all();

  // Odd PEs add a value that is negative for signed types (and wraps for unsigned ones).
  const T addend = static_cast<T>(me() % 2 ? -3 : 5);
  std::vector<T> mine(2 * kRounds + 1);
  for (int k = 0; k < kRounds; ++k) {
    op.inc(w + 0, tgt);
    op.add(w + 1, addend, tgt);
    mine[k] = op.fetch_inc(w + 2, tgt);
    mine[kRounds + k] = op.fetch_add(w + 3, static_cast<T>(7), tgt);
    // An increment made of fetch and compare_swap: retried until no other PE got in between.
    T old = op.fetch(w + 4, tgt);
    for (;;) {
      T seen = op.compare_swap(w + 4, old, static_cast<T>(old + 1), tgt);
      if (seen == old) break;
      old = seen;
    }
  }
  mine[2 * kRounds] = op.swap(w + 5, static_cast<T>(me() + 1), tgt);
  nvshmem_putmem(got + static_cast<size_t>(me()) * mine.size(), mine.data(), mine.size() * sizeof(T), tgt);
  nvshmem_barrier_all();

  if (me() == tgt) {
    T sum = 0;
    for (int pe = 0; pe < n; ++pe) {
      for (int k = 0; k < kRounds; ++k) sum = static_cast<T>(sum + static_cast<T>(pe % 2 ? -3 : 5));
    }
    const T total = static_cast<T>(n * kRounds);
    MP_CHECK(read_local(w + 0) == total, "%s atomic_inc: %lld instead of %lld", type,
             static_cast<long long>(read_local(w + 0)), static_cast<long long>(total));
    MP_CHECK(read_local(w + 1) == sum, "%s atomic_add: %lld instead of %lld", type,
             static_cast<long long>(read_local(w + 1)), static_cast<long long>(sum));
    MP_CHECK(read_local(w + 2) == total, "%s atomic_fetch_inc: final %lld instead of %lld", type,
             static_cast<long long>(read_local(w + 2)), static_cast<long long>(total));
    MP_CHECK(read_local(w + 3) == static_cast<T>(7 * n * kRounds), "%s atomic_fetch_add: final value", type);
    MP_CHECK(read_local(w + 4) == total, "%s compare_swap increments: %lld instead of %lld", type,
             static_cast<long long>(read_local(w + 4)), static_cast<long long>(total));
    std::vector<T> inc, add, swaps;
    std::vector<T> host(static_cast<size_t>(n) * mine.size());
    nvshmem_getmem(host.data(), got, host.size() * sizeof(T), me());
    for (int pe = 0; pe < n; ++pe) {
      const T* p = host.data() + static_cast<size_t>(pe) * mine.size();
      inc.insert(inc.end(), p, p + kRounds);
      add.insert(add.end(), p + kRounds, p + 2 * kRounds);
      swaps.push_back(p[2 * kRounds]);
    }
    // fetch_inc and fetch_add returned every value of the sequence exactly once.
    std::sort(inc.begin(), inc.end());
    std::sort(add.begin(), add.end());
    for (int i = 0; i < n * kRounds; ++i) {
      MP_CHECK(inc[i] == static_cast<T>(i), "%s atomic_fetch_inc: the fetched values are not 0..%d (value %d is %lld)",
               type, n * kRounds - 1, i, static_cast<long long>(inc[i]));
      MP_CHECK(add[i] == static_cast<T>(7 * i), "%s atomic_fetch_add: fetched value %d is %lld, not %d", type, i,
               static_cast<long long>(add[i]), 7 * i);
    }
    // The swaps form a chain from 0: the values returned plus the final one are 0, 1, ..., n.
    swaps.push_back(read_local(w + 5));
    std::sort(swaps.begin(), swaps.end());
    for (int i = 0; i <= n; ++i) {
      MP_CHECK(swaps[i] == static_cast<T>(i), "%s atomic_swap: value %d of the chain is %lld", type, i,
               static_cast<long long>(swaps[i]));
    }
  }
  nvshmem_barrier_all();

  // set and fetch, on the next PE and back.
  const int next = (me() + 1) % n, prev = (me() + n - 1) % n;
  op.set(w + 6, static_cast<T>(me() * 11 + 3), next);
  nvshmem_barrier_all();
  MP_CHECK(op.fetch(w + 6, me()) == static_cast<T>(prev * 11 + 3), "%s atomic_set/atomic_fetch from PE %d", type, prev);
  MP_CHECK(op.fetch(w + 6, next) == static_cast<T>(me() * 11 + 3), "%s atomic_fetch of PE %d", type, next);
  // compare_swap that does not match changes nothing and returns the current value.
  MP_CHECK(op.compare_swap(w + 6, static_cast<T>(99), static_cast<T>(1), next) == static_cast<T>(me() * 11 + 3),
           "%s atomic_compare_swap (no match) returned another value", type);
  MP_CHECK(op.fetch(w + 6, next) == static_cast<T>(me() * 11 + 3), "%s atomic_compare_swap (no match) wrote", type);
  nvshmem_barrier_all();
  nvshmem_free(got);
  nvshmem_free(w);
}

// Bit `b` of T, shifted as unsigned (the sign bit of a signed type included).
template <class T>
T bit(int b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(1) << b);
}

template <class T>
struct BitOps {
  void (*and_)(T*, T, int);
  T (*fetch_and)(T*, T, int);
  void (*or_)(T*, T, int);
  T (*fetch_or)(T*, T, int);
  void (*xor_)(T*, T, int);
  T (*fetch_xor)(T*, T, int);
};

template <class T>
void check_bit(const char* type, const BitOps<T>& op) {
  const int tgt = 0;
  const int n = npes();
  const int bits = 8 * static_cast<int>(sizeof(T));
  T* w = static_cast<T*>(nvshmem_calloc(4, sizeof(T)));
  MP_CHECK(w, "nvshmem_calloc failed");
  if (me() == tgt) {
    write_local(w + 0, static_cast<T>(~T(0)));
    write_local(w + 1, static_cast<T>(~T(0)));
  }
  nvshmem_barrier_all();
  // Each PE owns one bit near the top (the sign bit for signed types) and one near the bottom.
  const T high = bit<T>(bits - 1 - me());
  const T low = bit<T>(me());
  T all_high = 0, all_low = 0;
  for (int pe = 0; pe < n; ++pe) {
    all_high = static_cast<T>(all_high | bit<T>(bits - 1 - pe));
    all_low = static_cast<T>(all_low | bit<T>(pe));
  }
  // Only the owner changes its bits, so what it fetched shows them in their state before its call.
  T before = op.fetch_and(w + 0, static_cast<T>(~high), tgt);
  MP_CHECK((before & high) == high, "%s atomic_fetch_and: PE %d's bit was already clear", type, me());
  op.and_(w + 1, static_cast<T>(~low), tgt);
  before = op.fetch_or(w + 2, high, tgt);
  MP_CHECK((before & high) == 0, "%s atomic_fetch_or: PE %d's bit was already set", type, me());
  op.or_(w + 2, low, tgt);
  op.xor_(w + 3, high, tgt);
  before = op.fetch_xor(w + 3, low, tgt);
  MP_CHECK((before & low) == 0, "%s atomic_fetch_xor: PE %d's low bit was already set", type, me());
  op.xor_(w + 3, low, tgt);  // back to clear
  before = op.fetch_xor(w + 3, low, tgt);
  MP_CHECK((before & (high | low)) == high, "%s atomic_xor: PE %d's bits are %llx", type, me(),
           static_cast<unsigned long long>(before & (high | low)));
  nvshmem_barrier_all();
  if (me() == tgt) {
    MP_CHECK(read_local(w + 0) == static_cast<T>(~all_high), "%s atomic_fetch_and: final %llx", type,
             static_cast<unsigned long long>(read_local(w + 0)));
    MP_CHECK(read_local(w + 1) == static_cast<T>(~all_low), "%s atomic_and: final %llx", type,
             static_cast<unsigned long long>(read_local(w + 1)));
    MP_CHECK(read_local(w + 2) == static_cast<T>(all_high | all_low), "%s atomic_or / fetch_or: final %llx", type,
             static_cast<unsigned long long>(read_local(w + 2)));
    MP_CHECK(read_local(w + 3) == static_cast<T>(all_high | all_low), "%s atomic_xor / fetch_xor: final %llx", type,
             static_cast<unsigned long long>(read_local(w + 3)));
  }
  nvshmem_barrier_all();
  nvshmem_free(w);
}

// float and double: fetch, set and swap only; they move the bits unchanged (a NaN payload too).
template <class T>
struct ExtOps {
  T (*fetch)(const T*, int);
  void (*set)(T*, T, int);
  T (*swap)(T*, T, int);
};

template <class T>
void check_ext(const char* type, const ExtOps<T>& op) {
  const int n = npes(), tgt = n - 1;
  const int next = (me() + 1) % n, prev = (me() + n - 1) % n;
  T* w = static_cast<T*>(nvshmem_calloc(2, sizeof(T)));
  T* got = static_cast<T*>(nvshmem_calloc(static_cast<size_t>(n), sizeof(T)));
  MP_CHECK(w && got, "nvshmem_calloc failed");
  if (me() == tgt) write_local(w + 1, static_cast<T>(-1.0));
  nvshmem_barrier_all();
  op.set(w + 0, static_cast<T>(1.5 * me() + 0.25), next);
  T old = op.swap(w + 1, static_cast<T>(me() + 0.5), tgt);
  nvshmem_putmem(got + me(), &old, sizeof old, tgt);
  nvshmem_barrier_all();
  MP_CHECK(op.fetch(w + 0, me()) == static_cast<T>(1.5 * prev + 0.25), "%s atomic_set from PE %d", type, prev);
  if (me() == tgt) {
    std::vector<T> chain(static_cast<size_t>(n));
    nvshmem_getmem(chain.data(), got, chain.size() * sizeof(T), me());
    chain.push_back(read_local(w + 1));
    std::sort(chain.begin(), chain.end());
    MP_CHECK(chain[0] == static_cast<T>(-1.0), "%s atomic_swap: the first value is lost", type);
    for (int i = 0; i < n; ++i) {
      MP_CHECK(chain[i + 1] == static_cast<T>(i + 0.5), "%s atomic_swap: value %d of the chain is %g", type, i + 1,
               static_cast<double>(chain[i + 1]));
    }
  }
  nvshmem_barrier_all();
  // The bits travel unchanged: a NaN with a payload.
  T nan;
  uint64_t pattern = sizeof(T) == 4 ? 0x7fc12345u : 0x7ff8123456789abcull;
  std::memcpy(&nan, &pattern, sizeof nan);
  op.set(w + 0, nan, next);
  nvshmem_barrier_all();
  T back = op.fetch(w + 0, me());
  MP_CHECK(std::memcmp(&back, &nan, sizeof nan) == 0, "%s atomic_set/fetch changed the bits of a NaN", type);
  nvshmem_barrier_all();
  nvshmem_free(got);
  nvshmem_free(w);
}

// Float adds of T (or, with Half, a half's bits through the native API's kFloatAdd on 2 bytes). Every PE
// adds kRounds quarters to one word on the last PE, half of them fetching: the total is exact, and the
// fetched values (each the sum before one add) are distinct multiples of a quarter. Then on one word of
// its own, a sum that is not representable rounds to nearest even.
template <class T>
struct FloatOps {
  void (*add)(T*, T, int);
  T (*fetch_add)(T*, T, int);
  double (*to_double)(T);
  T (*from_double)(double);
};

template <class T>
void check_float(const char* type, const FloatOps<T>& op, double big) {
  const int n = npes(), tgt = n - 1;
  T* w = static_cast<T*>(nvshmem_calloc(2, sizeof(T)));
  T* seen = static_cast<T*>(nvshmem_calloc(static_cast<size_t>(n * kRounds), sizeof(T)));
  MP_CHECK(w && seen, "nvshmem_calloc failed");
  nvshmem_barrier_all();
  std::vector<T> mine;
  for (int i = 0; i < kRounds; ++i) {
    if (i % 2) {
      mine.push_back(op.fetch_add(w, op.from_double(0.25), tgt));
    } else {
      op.add(w, op.from_double(0.25), tgt);
    }
  }
  nvshmem_quiet();
  if (!mine.empty()) nvshmem_putmem(seen + me() * kRounds, mine.data(), mine.size() * sizeof(T), tgt);
  nvshmem_barrier_all();
  if (me() == tgt) {
    const double total = op.to_double(read_local(w));
    MP_CHECK(total == 0.25 * n * kRounds, "%s float add: %d PEs x %d adds of 0.25 gave %g", type, n, kRounds, total);
    std::vector<double> fetched;
    std::vector<T> all(static_cast<size_t>(n * kRounds));
    nvshmem_getmem(all.data(), seen, all.size() * sizeof(T), me());
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < mine.size(); ++i) fetched.push_back(op.to_double(all[p * kRounds + i]));
    }
    std::sort(fetched.begin(), fetched.end());
    for (size_t i = 0; i < fetched.size(); ++i) {
      const double v = fetched[i];
      MP_CHECK(v >= 0 && v < total && v * 4 == static_cast<double>(static_cast<long>(v * 4)),
               "%s float fetch_add returned %g, not a sum before an add", type, v);
      MP_CHECK(i == 0 || fetched[i - 1] != v, "%s float fetch_add returned %g twice", type, v);
    }
  }
  nvshmem_barrier_all();
  // `big` is 2^p, p the significand's bits: big + 1 is halfway between big and big + 2, and rounds to the
  // even big; big + 3 is halfway between big + 2 and big + 4 and rounds to big + 4.
  const int self = me();
  write_local(w + 1, op.from_double(big));
  op.add(w + 1, op.from_double(1.0), self);
  MP_CHECK(op.to_double(read_local(w + 1)) == big, "%s float add: %g + 1 did not round to even (%g)", type, big,
           op.to_double(read_local(w + 1)));
  const T before = op.fetch_add(w + 1, op.from_double(3.0), self);
  MP_CHECK(op.to_double(before) == big, "%s float fetch_add returned %g, not %g", type, op.to_double(before), big);
  MP_CHECK(op.to_double(read_local(w + 1)) == big + 4, "%s float add: %g + 3 did not round to even (%g)", type, big,
           op.to_double(read_local(w + 1)));
  nvshmem_barrier_all();
  nvshmem_free(seen);
  nvshmem_free(w);
}

// A half as its bits, through the native API (no cuda_fp16.h needed).
struct Half {
  uint16_t bits;
};
void half_add(Half* dest, Half value, int pe) {
  gshmem::host::atomic(dest, gshmem::AmoOp::kFloatAdd, 2, value.bits, 0, false, pe);
}
Half half_fetch_add(Half* dest, Half value, int pe) {
  return Half{static_cast<uint16_t>(gshmem::host::atomic(dest, gshmem::AmoOp::kFloatAdd, 2, value.bits, 0, true, pe))};
}
double half_to_double(Half h) { return gshmem::detail::widen(gshmem::detail::F16{h.bits}); }
Half half_from_double(double d) { return Half{gshmem::detail::narrow_f16(static_cast<float>(d)).bits}; }

}  // namespace

int main() {
  nvshmem_init();
  int tested = 0;
#define GSHMEMT_STD(NAME, T)                                                                                          \
  check_std<T>(                                                                                                       \
      #NAME, StdOps<T>{nvshmem_##NAME##_atomic_inc, nvshmem_##NAME##_atomic_fetch_inc, nvshmem_##NAME##_atomic_add,   \
                       nvshmem_##NAME##_atomic_fetch_add, nvshmem_##NAME##_atomic_fetch, nvshmem_##NAME##_atomic_set, \
                       nvshmem_##NAME##_atomic_swap, nvshmem_##NAME##_atomic_compare_swap});                          \
  ++tested;
  GSHMEMT_TYPES_AMO_STD(GSHMEMT_STD)
  GSHMEMT_TYPES_AMO_BIT(GSHMEMT_STD)
#undef GSHMEMT_STD
#define GSHMEMT_BIT(NAME, T)                                                                      \
  check_bit<T>(#NAME, BitOps<T>{nvshmem_##NAME##_atomic_and, nvshmem_##NAME##_atomic_fetch_and,   \
                                nvshmem_##NAME##_atomic_or, nvshmem_##NAME##_atomic_fetch_or,     \
                                nvshmem_##NAME##_atomic_xor, nvshmem_##NAME##_atomic_fetch_xor}); \
  ++tested;
  GSHMEMT_TYPES_AMO_BIT(GSHMEMT_BIT)
#undef GSHMEMT_BIT
#define GSHMEMT_EXT(NAME, T)                                                                                         \
  check_ext<T>(#NAME,                                                                                                \
               ExtOps<T>{nvshmem_##NAME##_atomic_fetch, nvshmem_##NAME##_atomic_set, nvshmem_##NAME##_atomic_swap}); \
  ++tested;
  GSHMEMT_TYPES_AMO_EXT(GSHMEMT_EXT)
#undef GSHMEMT_EXT
  check_float<float>(
      "float",
      FloatOps<float>{nvshmemx_float_atomic_add, nvshmemx_float_atomic_fetch_add,
                      [](float v) { return static_cast<double>(v); }, [](double d) { return static_cast<float>(d); }},
      16777216.0);
  check_float<double>("double",
                      FloatOps<double>{nvshmemx_double_atomic_add, nvshmemx_double_atomic_fetch_add,
                                       [](double v) { return v; }, [](double d) { return d; }},
                      9007199254740992.0);
  check_float<Half>("half", FloatOps<Half>{half_add, half_fetch_add, half_to_double, half_from_double}, 2048.0);
  tested += 3;
  if (nvshmem_my_pe() == 0) std::printf("mp_atomic: %d PEs, %d type/operation-set checks passed\n", npes(), tested);
  nvshmem_finalize();
  return 0;
}
