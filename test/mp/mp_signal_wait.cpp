// Host signals and point-to-point synchronisation between PEs:
//  - put_signal and put_signal_nbi of every RMA type, size and mem form, with NVSHMEM_SIGNAL_SET and
//    _ADD: the receiver waits for the signal and then finds the data complete;
//  - signal_op, signal_fetch, signal_wait_until;
//  - every wait and test call of every WAIT type, for every comparison, with status masks and the
//    _vector forms. Waits block until the previous PE writes; tests are checked before and after.
#include <climits>
#include <cstdint>
#include <cstring>
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
}

}  // namespace

int main() {
  nvshmem_init();
  check_signals();
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
