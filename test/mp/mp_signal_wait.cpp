// Host signals and point-to-point synchronisation between PEs:
//  - put_signal and put_signal_nbi of every RMA type, size and mem form, with NVSHMEM_SIGNAL_SET and
//    _ADD: the receiver waits for the signal and then finds the data complete; with 0 bytes (and a
//    NULL destination) only the signal is updated;
//  - signal_op, signal_fetch, signal_wait_until;
//  - nvshmem_fence between a put of data (blocking or _nbi) and a put of a flag: the receiver waits
//    for the flag and then finds the data of this round, word for word;
//  - every wait and test call of every WAIT type, for every comparison, with status masks and the
//    _vector forms. Waits block until the previous PE writes; tests are checked before and after.
//    The grouped forms are checked with every comparison on elements of which some satisfy it and
//    some do not, down to which indices they report.
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gen/type_lists.h"
#include "mp_test.h"

namespace {

int me() { return nvshmem_my_pe(); }
int npes() { return nvshmem_n_pes(); }
int next_pe() { return (me() + 1) % npes(); }
int prev_pe() { return (me() + npes() - 1) % npes(); }

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

// ---- put with signal ------------------------------------------------------------------------

constexpr size_t kBytes = 80;  // a multiple of every element size, 16-byte elements included

struct SignalBuffers {
  char* data;      // symmetric, kBytes
  uint64_t* sig;   // symmetric, 2 signals: SET and ADD
  uint64_t round;  // signal value of the current round
  uint64_t adds;   // ADD signals received so far
};

// One put-with-signal call: `put` delivers kBytes from `src` to the next PE with the given signal.
using PutSignal = void (*)(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t value, int op, int pe);

void check_put_signal(const char* name, SignalBuffers& b, PutSignal put) {
  std::vector<char> src(kBytes), got(kBytes);
  // SET: the round number; the receiver waits for exactly it.
  ++b.round;
  mp::fill(src.data(), kBytes, mp::seed_of(me(), b.round, 7));
  put(b.data, src.data(), kBytes, b.sig, b.round, NVSHMEM_SIGNAL_SET, next_pe());
  uint64_t seen = nvshmem_signal_wait_until(b.sig, NVSHMEM_CMP_EQ, b.round);
  MP_CHECK(seen == b.round, "%s (SET): signal_wait_until returned %llu, not %llu", name,
           static_cast<unsigned long long>(seen), static_cast<unsigned long long>(b.round));
  nvshmem_getmem(got.data(), b.data, kBytes, me());
  long bad = mp::first_mismatch(got.data(), kBytes, mp::seed_of(prev_pe(), b.round, 7));
  MP_CHECK(bad < 0, "%s (SET): the signal arrived but byte %ld of the data from PE %d differs", name, bad, prev_pe());
  nvshmem_barrier_all();  // the data is checked before the next round overwrites it
  // ADD: one more on every call; the receiver waits for the count.
  ++b.round;
  mp::fill(src.data(), kBytes, mp::seed_of(me(), b.round, 8));
  put(b.data, src.data(), kBytes, b.sig + 1, 1, NVSHMEM_SIGNAL_ADD, next_pe());
  ++b.adds;
  nvshmem_uint64_wait_until(b.sig + 1, NVSHMEM_CMP_GE, b.adds);
  MP_CHECK(nvshmem_signal_fetch(b.sig + 1) == b.adds, "%s (ADD): the signal is %llu, not %llu", name,
           static_cast<unsigned long long>(nvshmem_signal_fetch(b.sig + 1)), static_cast<unsigned long long>(b.adds));
  nvshmem_getmem(got.data(), b.data, kBytes, me());
  bad = mp::first_mismatch(got.data(), kBytes, mp::seed_of(prev_pe(), b.round, 8));
  MP_CHECK(bad < 0, "%s (ADD): the signal arrived but byte %ld of the data from PE %d differs", name, bad, prev_pe());
  nvshmem_barrier_all();
}

void check_signals() {
  SignalBuffers b{static_cast<char*>(nvshmem_malloc(kBytes)), static_cast<uint64_t*>(nvshmem_calloc(4, 8)), 0, 0};
  MP_CHECK(b.data && b.sig, "nvshmem_malloc failed");
  nvshmem_barrier_all();
  int calls = 0;
  // Typed forms, blocking and _nbi (+ quiet), as one call each.
#define GSHMEMT_PUT_SIGNAL(NAME, T)                                                                                    \
  check_put_signal("nvshmem_" #NAME "_put_signal", b,                                                                  \
                   [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {                   \
                     nvshmem_##NAME##_put_signal(static_cast<T*>(d), static_cast<const T*>(s), n / sizeof(T), sig, v,  \
                                                 op, pe);                                                              \
                   });                                                                                                 \
  check_put_signal("nvshmem_" #NAME "_put_signal_nbi", b,                                                              \
                   [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {                   \
                     nvshmem_##NAME##_put_signal_nbi(static_cast<T*>(d), static_cast<const T*>(s), n / sizeof(T), sig, \
                                                     v, op, pe);                                                       \
                     nvshmem_quiet();                                                                                  \
                   });                                                                                                 \
  calls += 2;
  GSHMEMT_TYPES_RMA(GSHMEMT_PUT_SIGNAL)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  GSHMEMT_TYPES_RMA_FP16(GSHMEMT_PUT_SIGNAL)
#endif
#undef GSHMEMT_PUT_SIGNAL
#define GSHMEMT_SIZED(BITS)                                                                          \
  check_put_signal("nvshmem_put" #BITS "_signal", b,                                                 \
                   [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) { \
                     nvshmem_put##BITS##_signal(d, s, n / (BITS / 8), sig, v, op, pe);               \
                   });                                                                               \
  check_put_signal("nvshmem_put" #BITS "_signal_nbi", b,                                             \
                   [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) { \
                     nvshmem_put##BITS##_signal_nbi(d, s, n / (BITS / 8), sig, v, op, pe);           \
                     nvshmem_quiet();                                                                \
                   });                                                                               \
  calls += 2;
  GSHMEMT_SIZED(8)
  GSHMEMT_SIZED(16)
  GSHMEMT_SIZED(32)
  GSHMEMT_SIZED(64)
  GSHMEMT_SIZED(128)
#undef GSHMEMT_SIZED
  check_put_signal("nvshmem_putmem_signal", b, nvshmem_putmem_signal);
  check_put_signal("nvshmem_putmem_signal_nbi", b,
                   [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {
                     nvshmem_putmem_signal_nbi(d, s, n, sig, v, op, pe);
                     nvshmem_quiet();
                   });
  calls += 2;

  // 0 bytes of data: only the signal is updated, and the destination may be NULL (nvshmem_malloc(0)).
  nvshmem_barrier_all();
  nvshmem_putmem_signal(nullptr, nullptr, 0, b.sig + 2, 30, NVSHMEM_SIGNAL_SET, next_pe());
  nvshmem_int_put_signal_nbi(nullptr, nullptr, 0, b.sig + 2, 7, NVSHMEM_SIGNAL_ADD, next_pe());
  nvshmem_quiet();
  nvshmem_barrier_all();
  MP_CHECK(nvshmem_signal_fetch(b.sig + 2) == 37, "put_signal of 0 bytes: SET 30 then ADD 7 left %llu",
           static_cast<unsigned long long>(nvshmem_signal_fetch(b.sig + 2)));
  nvshmem_barrier_all();  // every PE has read it before signal_op overwrites it

  // signal_op and signal_fetch.
  nvshmemx_signal_op(b.sig + 2, 40, NVSHMEM_SIGNAL_SET, next_pe());
  nvshmemx_signal_op(b.sig + 2, 2, NVSHMEM_SIGNAL_ADD, next_pe());
  nvshmem_barrier_all();
  MP_CHECK(nvshmem_signal_fetch(b.sig + 2) == 42, "signal_op SET 40 then ADD 2 left %llu",
           static_cast<unsigned long long>(nvshmem_signal_fetch(b.sig + 2)));
  // signal_wait_until returns the value that satisfied it.
  nvshmem_barrier_all();
  nvshmemx_signal_op(b.sig + 3, 1000 + static_cast<uint64_t>(me()), NVSHMEM_SIGNAL_SET, next_pe());
  uint64_t v = nvshmem_signal_wait_until(b.sig + 3, NVSHMEM_CMP_GT, 999);
  MP_CHECK(v == 1000 + static_cast<uint64_t>(prev_pe()), "signal_wait_until returned %llu",
           static_cast<unsigned long long>(v));
  nvshmem_barrier_all();
  if (me() == 0) std::printf("mp_signal_wait: %d put-with-signal forms checked\n", calls);
  nvshmem_free(b.sig);
  nvshmem_free(b.data);
}

// ---- fence ----------------------------------------------------------------------------------

// Word i of the data PE `pe` sends in round `round`: different in every round, so a stale word shows.
uint64_t fence_word(int pe, uint64_t round, size_t i) {
  return (static_cast<uint64_t>(pe) << 48) | (round << 32) | static_cast<uint64_t>(i);
}

// Each PE puts a block to the next PE, fences, then puts a flag with the round number; the next PE
// waits for the flag and must then find every word of this round's block. The data goes by putmem,
// putmem_nbi, uint64_put_nbi or uint64_put, the flag by uint64_p or uint64_put: each pair once.
void check_fence() {
  constexpr size_t kWords = 32768;  // 256 KiB
  constexpr uint64_t kRounds = 8;
  uint64_t* data = static_cast<uint64_t*>(nvshmem_malloc(kWords * sizeof(uint64_t)));
  uint64_t* flag = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  MP_CHECK(data && flag, "nvshmem_malloc failed");
  const char* data_forms[] = {"putmem", "putmem_nbi", "uint64_put_nbi", "uint64_put"};
  const char* flag_forms[] = {"uint64_p", "uint64_put"};
  std::vector<uint64_t> src(kWords), got(kWords);
  nvshmem_barrier_all();
  for (uint64_t round = 1; round <= kRounds; ++round) {
    const int data_form = static_cast<int>(round % 4), flag_form = static_cast<int>(round / 4 % 2);
    for (size_t i = 0; i < kWords; ++i) src[i] = fence_word(me(), round, i);
    switch (data_form) {
      case 0:
        nvshmem_putmem(data, src.data(), kWords * sizeof(uint64_t), next_pe());
        break;
      case 1:
        nvshmem_putmem_nbi(data, src.data(), kWords * sizeof(uint64_t), next_pe());
        break;
      case 2:
        nvshmem_uint64_put_nbi(data, src.data(), kWords, next_pe());
        break;
      default:
        nvshmem_uint64_put(data, src.data(), kWords, next_pe());
    }
    nvshmem_fence();
    if (flag_form == 0) {
      nvshmem_uint64_p(flag, round, next_pe());
    } else {
      nvshmem_uint64_put(flag, &round, 1, next_pe());
    }
    nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_EQ, round);
    nvshmem_getmem(got.data(), data, kWords * sizeof(uint64_t), me());
    for (size_t i = 0; i < kWords; ++i) {
      MP_CHECK(got[i] == fence_word(prev_pe(), round, i),
               "round %llu (%s, fence, %s): the flag arrived, but data word %zu from PE %d is 0x%llx, not 0x%llx",
               static_cast<unsigned long long>(round), data_forms[data_form], flag_forms[flag_form], i, prev_pe(),
               static_cast<unsigned long long>(got[i]),
               static_cast<unsigned long long>(fence_word(prev_pe(), round, i)));
    }
    nvshmem_barrier_all();  // checked before the next round overwrites it; the _nbi source is free again
  }
  if (me() == 0) {
    std::printf("mp_signal_wait: nvshmem_fence checked in %llu rounds\n", static_cast<unsigned long long>(kRounds));
  }
  nvshmem_free(flag);
  nvshmem_free(data);
}

// ---- waits and tests ------------------------------------------------------------------------

template <class T>
struct WaitOps {
  void (*wait_until)(T*, int, T);
  void (*wait_until_all)(T*, size_t, const int*, int, T);
  size_t (*wait_until_any)(T*, size_t, const int*, int, T);
  size_t (*wait_until_some)(T*, size_t, size_t*, const int*, int, T);
  void (*wait_until_all_vector)(T*, size_t, const int*, int, T*);
  size_t (*wait_until_any_vector)(T*, size_t, const int*, int, T*);
  size_t (*wait_until_some_vector)(T*, size_t, size_t*, const int*, int, T*);
  int (*test)(T*, int, T);
  int (*test_all)(T*, size_t, const int*, int, T);
  size_t (*test_any)(T*, size_t, const int*, int, T);
  size_t (*test_some)(T*, size_t, size_t*, const int*, int, T);
  int (*test_all_vector)(T*, size_t, const int*, int, T*);
  size_t (*test_any_vector)(T*, size_t, const int*, int, T*);
  size_t (*test_some_vector)(T*, size_t, size_t*, const int*, int, T*);
};

// Writes `v` into element i of the next PE's ivars (each PE waits for what the previous PE writes
// into its own).
template <class T>
void send(T* ivars, size_t i, T v) {
  nvshmem_putmem(ivars + i, &v, sizeof v, next_pe());
}

template <class T>
void reset(T* ivars, size_t n, T v) {
  std::vector<T> h(n, v);
  nvshmem_putmem(ivars, h.data(), n * sizeof(T), me());
}

// ---- the grouped forms with every comparison ----

constexpr size_t kN = 6;
constexpr unsigned kAll = (1u << kN) - 1;
constexpr unsigned kEligible = kAll & ~(1u << 4);  // the status array excludes element 4

// The elements {3, 5, 7, 5, 9, ~0} compared with 5 and with the values {3, 6, 7, 4, 9, 0}: each
// comparison holds for another set of elements (a bit mask of the indices), and the last element
// is -1 for a signed type and the largest value for an unsigned one. Then a blocking round:
// `before` fails the comparison with `value`, `after` satisfies it.
struct CmpCase {
  int cmp;
  const char* name;
  unsigned scalar[2];  // [signed, unsigned]
  unsigned vector[2];
  int before, after, value;
};
constexpr CmpCase kCmpCases[] = {
    {NVSHMEM_CMP_EQ, "EQ", {0x0A, 0x0A}, {0x15, 0x15}, 0, 5, 5},
    {NVSHMEM_CMP_NE, "NE", {0x35, 0x35}, {0x2A, 0x2A}, 0, 5, 0},
    {NVSHMEM_CMP_GT, "GT", {0x14, 0x34}, {0x08, 0x28}, 0, 5, 4},
    {NVSHMEM_CMP_GE, "GE", {0x1E, 0x3E}, {0x1D, 0x3D}, 0, 5, 5},
    {NVSHMEM_CMP_LT, "LT", {0x21, 0x01}, {0x22, 0x02}, 10, 5, 6},
    {NVSHMEM_CMP_LE, "LE", {0x2B, 0x0B}, {0x37, 0x17}, 10, 5, 5},
};

// A status array (0: take part) that leaves exactly the elements of `mask` in.
void status_for(unsigned mask, int* status) {
  for (size_t i = 0; i < kN; ++i) status[i] = (mask >> i & 1u) ? 0 : 1;
}

// The indices that test_some/wait_until_some returned, as a mask; ~0 (no expected mask) when one
// is out of range or repeated.
unsigned mask_of(const size_t* found, size_t k) {
  if (k > kN) return ~0u;
  unsigned m = 0;
  for (size_t j = 0; j < k; ++j) {
    if (found[j] >= kN || (m >> found[j] & 1u)) return ~0u;
    m |= 1u << found[j];
  }
  return m;
}

unsigned lowest_bit(unsigned m) { return m & (0u - m); }

// One comparison through the scalar forms (`values` null) or the _vector forms.
template <class T>
struct Grouped {
  const WaitOps<T>& op;
  T* iv;
  int cmp;
  T value;
  T* values;
  int test_all(const int* st) const {
    return values ? op.test_all_vector(iv, kN, st, cmp, values) : op.test_all(iv, kN, st, cmp, value);
  }
  size_t test_any(const int* st) const {
    return values ? op.test_any_vector(iv, kN, st, cmp, values) : op.test_any(iv, kN, st, cmp, value);
  }
  size_t test_some(size_t* found, const int* st) const {
    return values ? op.test_some_vector(iv, kN, found, st, cmp, values) : op.test_some(iv, kN, found, st, cmp, value);
  }
  void wait_until_all(const int* st) const {
    values ? op.wait_until_all_vector(iv, kN, st, cmp, values) : op.wait_until_all(iv, kN, st, cmp, value);
  }
  size_t wait_until_any(const int* st) const {
    return values ? op.wait_until_any_vector(iv, kN, st, cmp, values) : op.wait_until_any(iv, kN, st, cmp, value);
  }
  size_t wait_until_some(size_t* found, const int* st) const {
    return values ? op.wait_until_some_vector(iv, kN, found, st, cmp, values)
                  : op.wait_until_some(iv, kN, found, st, cmp, value);
  }
};

// Checks one comparison whose true set is `holds` (over all kN elements) on elements that no other
// PE writes. The tests come before the waits, so a wrong comparison fails a check instead of hanging.
template <class T>
void check_grouped(const char* type, const char* what, const Grouped<T>& g, unsigned holds) {
  int st[kN];
  size_t found[kN] = {};
  const unsigned want = holds & kEligible, fails = kAll & ~holds;
  MP_CHECK(want != 0 && fails != 0, "%s %s: the case must have elements that satisfy it and elements that do not", type,
           what);
  status_for(kEligible, st);
  // _some: exactly the elements that satisfy it, with and without the status array.
  size_t k = g.test_some(found, nullptr);
  MP_CHECK(mask_of(found, k) == holds, "%s %s: test_some found the elements 0x%x, not 0x%x", type, what,
           mask_of(found, k), holds);
  k = g.test_some(found, st);
  MP_CHECK(mask_of(found, k) == want, "%s %s: test_some with status found the elements 0x%x, not 0x%x", type, what,
           mask_of(found, k), want);
  // _any: one element that satisfies it; none when the status leaves only those that do not; the
  // only one when the status leaves one that does.
  for (size_t r = 0; r < kN; ++r) {  // whatever index the scan starts from
    size_t i = g.test_any(st);
    MP_CHECK(i < kN && (want >> i & 1u), "%s %s: test_any returned %zu, not one of the elements 0x%x", type, what, i,
             want);
  }
  status_for(fails, st);
  size_t i = g.test_any(st);
  MP_CHECK(i == SIZE_MAX, "%s %s: test_any returned %zu where no element of 0x%x satisfies it", type, what, i, fails);
  const unsigned one = lowest_bit(want);
  status_for(fails | one, st);
  i = g.test_any(st);
  MP_CHECK(i < kN && (1u << i) == one, "%s %s: test_any returned %zu where only element %d satisfies it", type, what, i,
           __builtin_ctz(one));
  // _all: false while an element that fails is in, true when the status leaves only those that hold.
  status_for(kEligible, st);
  int all = g.test_all(st);
  MP_CHECK(all == (want == kEligible ? 1 : 0), "%s %s: test_all is %d for the elements 0x%x", type, what, all, want);
  status_for(holds | lowest_bit(fails), st);
  all = g.test_all(st);
  MP_CHECK(all == 0, "%s %s: test_all is true although element %d, which fails it, takes part", type, what,
           __builtin_ctz(lowest_bit(fails)));
  status_for(holds, st);
  all = g.test_all(st);
  MP_CHECK(all == 1, "%s %s: test_all is false on the elements 0x%x that satisfy it", type, what, holds);
  // The waits, now known to be satisfied, return at once with the same answers.
  g.wait_until_all(st);
  status_for(kEligible, st);
  i = g.wait_until_any(st);
  MP_CHECK(i < kN && (want >> i & 1u), "%s %s: wait_until_any returned %zu, not one of the elements 0x%x", type, what,
           i, want);
  k = g.wait_until_some(found, st);
  MP_CHECK(mask_of(found, k) == want, "%s %s: wait_until_some found the elements 0x%x, not 0x%x", type, what,
           mask_of(found, k), want);
}

template <class T>
void check_grouped_cmps(const char* type, const WaitOps<T>& op) {
  T* iv = static_cast<T*>(nvshmem_calloc(2 * kN, sizeof(T)));
  MP_CHECK(iv, "nvshmem_calloc failed");
  T* local = iv + kN;  // written by this PE only
  const T elems[kN] = {T(3), T(5), T(7), T(5), T(9), T(~T(0))};
  T vec[kN] = {T(3), T(6), T(7), T(4), T(9), T(0)};
  nvshmem_putmem(local, elems, sizeof elems, me());
  const int sign = std::is_signed<T>::value ? 0 : 1;
  char what[64];
  for (const CmpCase& c : kCmpCases) {
    std::snprintf(what, sizeof what, "%s against 5", c.name);
    check_grouped(type, what, Grouped<T>{op, local, c.cmp, T(5), nullptr}, c.scalar[sign]);
    std::snprintf(what, sizeof what, "%s _vector", c.name);
    check_grouped(type, what, Grouped<T>{op, local, c.cmp, T(0), vec}, c.vector[sign]);

    // Blocking: element 2 arrives first, and wait_until_any must wait for it and return it; then the
    // rest arrive, and wait_until_all_vector must wait for all of them.
    T each[kN];
    for (T& v : each) v = T(c.value);
    const Grouped<T> scalar{op, iv, c.cmp, T(c.value), nullptr}, vector{op, iv, c.cmp, T(0), each};
    reset(iv, kN, T(c.before));
    nvshmem_barrier_all();
    send(iv, 2, T(c.after));
    size_t idx = scalar.wait_until_any(nullptr);
    MP_CHECK(idx == 2, "%s %s: wait_until_any returned %zu, not 2, the only element written", type, c.name, idx);
    size_t found[kN] = {};
    size_t k = vector.wait_until_some(found, nullptr);
    MP_CHECK(k == 1 && found[0] == 2, "%s %s: wait_until_some_vector found %zu elements (first %zu), not element 2",
             type, c.name, k, found[0]);
    MP_CHECK(scalar.test_all(nullptr) == 0, "%s %s: test_all is true with one element of %zu written", type, c.name,
             kN);
    nvshmem_barrier_all();  // every PE has seen element 2 alone
    const size_t rest[] = {5, 0, 4, 1, 3};
    for (size_t e : rest) send(iv, e, T(c.after));
    vector.wait_until_all(nullptr);
    for (size_t e = 0; e < kN; ++e) {
      MP_CHECK(read_local(iv + e) == T(c.after), "%s %s: wait_until_all_vector returned before element %zu arrived",
               type, c.name, e);
    }
    MP_CHECK(scalar.test_all(nullptr) == 1, "%s %s: test_all is false with every element written", type, c.name);
    scalar.wait_until_all(nullptr);
  }
  nvshmem_barrier_all();
  nvshmem_free(iv);
}

template <class T>
void check_wait(const char* type, const WaitOps<T>& op) {
  T* iv = static_cast<T*>(nvshmem_calloc(8, sizeof(T)));
  MP_CHECK(iv, "nvshmem_calloc failed");
  const int status[4] = {0, 0, 1, 0};  // element 2 is excluded
  const int none[4] = {1, 1, 1, 1};

  // wait_until and test, every comparison: (before, after, value) with the comparison false
  // before and true after.
  struct Case {
    int cmp;
    const char* name;
    T before, after, value;
  } cases[] = {
      {NVSHMEM_CMP_EQ, "EQ", 0, 5, 5}, {NVSHMEM_CMP_NE, "NE", 0, 5, 0},  {NVSHMEM_CMP_GT, "GT", 0, 5, 4},
      {NVSHMEM_CMP_GE, "GE", 0, 5, 5}, {NVSHMEM_CMP_LT, "LT", 10, 5, 6}, {NVSHMEM_CMP_LE, "LE", 10, 5, 5},
  };
  for (const Case& c : cases) {
    reset(iv, 1, c.before);
    nvshmem_barrier_all();
    MP_CHECK(op.test(iv, c.cmp, c.value) == 0, "%s test %s is true before the write", type, c.name);
    nvshmem_barrier_all();  // every PE tested before any writes
    send(iv, 0, c.after);
    op.wait_until(iv, c.cmp, c.value);
    MP_CHECK(read_local(iv) == c.after, "%s wait_until %s returned before the value arrived", type, c.name);
    MP_CHECK(op.test(iv, c.cmp, c.value) == 1, "%s test %s is false after the write", type, c.name);
    nvshmem_barrier_all();
  }

  // _all: elements 0, 1 and 3 arrive; 2 is excluded and never satisfies.
  reset(iv, 4, T(0));
  nvshmem_barrier_all();
  MP_CHECK(op.test_all(iv, 4, status, NVSHMEM_CMP_EQ, T(7)) == 0, "%s test_all true before", type);
  MP_CHECK(op.test_all(iv, 4, none, NVSHMEM_CMP_EQ, T(7)) == 1, "%s test_all with every element excluded", type);
  nvshmem_barrier_all();
  send(iv, 0, T(7));
  send(iv, 3, T(7));
  send(iv, 1, T(7));
  op.wait_until_all(iv, 4, status, NVSHMEM_CMP_EQ, T(7));
  MP_CHECK(read_local(iv + 0) == T(7) && read_local(iv + 1) == T(7) && read_local(iv + 3) == T(7),
           "%s wait_until_all returned early", type);
  MP_CHECK(op.test_all(iv, 4, status, NVSHMEM_CMP_EQ, T(7)) == 1, "%s test_all false after", type);
  MP_CHECK(op.test_all(iv, 4, nullptr, NVSHMEM_CMP_EQ, T(7)) == 0, "%s test_all ignores the unmasked element 2", type);
  nvshmem_barrier_all();
  // _all_vector: per-element values.
  T want[4] = {T(7), T(8), T(99), T(9)};
  reset(iv, 4, T(0));
  nvshmem_barrier_all();
  MP_CHECK(op.test_all_vector(iv, 4, status, NVSHMEM_CMP_EQ, want) == 0, "%s test_all_vector true before", type);
  nvshmem_barrier_all();
  send(iv, 3, T(9));
  send(iv, 0, T(7));
  send(iv, 1, T(8));
  op.wait_until_all_vector(iv, 4, status, NVSHMEM_CMP_EQ, want);
  MP_CHECK(read_local(iv + 1) == T(8) && read_local(iv + 3) == T(9), "%s wait_until_all_vector returned early", type);
  MP_CHECK(op.test_all_vector(iv, 4, status, NVSHMEM_CMP_EQ, want) == 1, "%s test_all_vector false after", type);
  nvshmem_barrier_all();

  // _any: only element 3 arrives.
  reset(iv, 4, T(0));
  nvshmem_barrier_all();
  MP_CHECK(op.test_any(iv, 4, status, NVSHMEM_CMP_GT, T(0)) == SIZE_MAX, "%s test_any found one before", type);
  MP_CHECK(op.wait_until_any(iv, 4, none, NVSHMEM_CMP_GT, T(0)) == SIZE_MAX,
           "%s wait_until_any with every element excluded", type);
  nvshmem_barrier_all();
  send(iv, 3, T(1));
  size_t idx = op.wait_until_any(iv, 4, status, NVSHMEM_CMP_GT, T(0));
  MP_CHECK(idx == 3, "%s wait_until_any returned %zu, not 3", type, idx);
  for (int k = 0; k < 5; ++k) {  // whatever index the scan starts from
    MP_CHECK(op.test_any(iv, 4, status, NVSHMEM_CMP_GT, T(0)) == 3, "%s test_any after", type);
  }
  const int mask3[4] = {0, 0, 0, 1};
  MP_CHECK(op.test_any(iv, 4, mask3, NVSHMEM_CMP_GT, T(0)) == SIZE_MAX, "%s test_any ignores status", type);
  T want_any[4] = {T(5), T(5), T(5), T(1)};
  MP_CHECK(op.wait_until_any_vector(iv, 4, status, NVSHMEM_CMP_EQ, want_any) == 3, "%s wait_until_any_vector", type);
  MP_CHECK(op.test_any_vector(iv, 4, status, NVSHMEM_CMP_EQ, want_any) == 3, "%s test_any_vector", type);
  nvshmem_barrier_all();

  // _some: elements 1 and 3 arrive (then a barrier, so the results are deterministic).
  reset(iv, 4, T(0));
  nvshmem_barrier_all();
  size_t found[4] = {99, 99, 99, 99};
  MP_CHECK(op.test_some(iv, 4, found, status, NVSHMEM_CMP_GT, T(0)) == 0, "%s test_some found some before", type);
  nvshmem_barrier_all();
  send(iv, 1, T(2));
  send(iv, 3, T(1));
  nvshmem_barrier_all();
  size_t k = op.wait_until_some(iv, 4, found, status, NVSHMEM_CMP_GT, T(0));
  MP_CHECK(k == 2 && found[0] == 1 && found[1] == 3, "%s wait_until_some: %zu indices (%zu, %zu)", type, k, found[0],
           found[1]);
  k = op.test_some(iv, 4, found, mask3, NVSHMEM_CMP_GT, T(0));
  MP_CHECK(k == 1 && found[0] == 1, "%s test_some with status: %zu indices (%zu)", type, k, found[0]);
  T want_some[4] = {T(0), T(2), T(0), T(5)};  // elements 0 and 1 hold; 2 is excluded; 3 does not
  k = op.wait_until_some_vector(iv, 4, found, status, NVSHMEM_CMP_EQ, want_some);
  MP_CHECK(k == 2 && found[0] == 0 && found[1] == 1, "%s wait_until_some_vector: %zu indices (%zu, %zu)", type, k,
           found[0], found[1]);
  k = op.test_some_vector(iv, 4, found, status, NVSHMEM_CMP_EQ, want_some);
  MP_CHECK(k == 2 && found[0] == 0 && found[1] == 1, "%s test_some_vector: %zu indices", type, k);
  MP_CHECK(op.wait_until_some(iv, 4, found, none, NVSHMEM_CMP_GT, T(0)) == 0,
           "%s wait_until_some with every element excluded", type);
  nvshmem_barrier_all();
  nvshmem_free(iv);
  check_grouped_cmps(type, op);
}

}  // namespace

int main() {
  nvshmem_init();
  check_signals();
  check_fence();
  int types = 0;
#define GSHMEMT_WAIT(NAME, T)                                                                                          \
  check_wait<T>(                                                                                                       \
      #NAME, WaitOps<T>{nvshmem_##NAME##_wait_until, nvshmem_##NAME##_wait_until_all, nvshmem_##NAME##_wait_until_any, \
                        nvshmem_##NAME##_wait_until_some, nvshmem_##NAME##_wait_until_all_vector,                      \
                        nvshmem_##NAME##_wait_until_any_vector, nvshmem_##NAME##_wait_until_some_vector,               \
                        nvshmem_##NAME##_test, nvshmem_##NAME##_test_all, nvshmem_##NAME##_test_any,                   \
                        nvshmem_##NAME##_test_some, nvshmem_##NAME##_test_all_vector,                                  \
                        nvshmem_##NAME##_test_any_vector, nvshmem_##NAME##_test_some_vector});                         \
  ++types;
  GSHMEMT_TYPES_WAIT(GSHMEMT_WAIT)
#undef GSHMEMT_WAIT
  if (me() == 0) std::printf("mp_signal_wait: 14 wait and test calls of %d types checked on %d PEs\n", types, npes());
  nvshmem_finalize();
  return 0;
}
