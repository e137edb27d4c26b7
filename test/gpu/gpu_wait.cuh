// Point-to-point synchronisation from kernels: every wait and test function (wait_until,
// wait_until_all/_any/_some, their _vector forms, test, test_all/_any/_some and their _vector
// forms) for every type of the wait family and every comparison (EQ, NE, GT, GE, LT, LE).
//
// Each PE's kernel has a waiter (block 0) and an updater (block 1). For every comparison and
// phase, the waiter sets its variables to values that do not satisfy the comparison, checks that
// the tests say so, tells the peer's updater it is ready, and blocks in the wait; the updater
// waits a while (so the waiter is really blocked), then stores values that satisfy it with
// nvshmem_<T>_p, one variable after another. The waiter then checks what the wait returned, that
// it sees the new values, and what the tests say now. Values and comparison values are random
// (boundary values next to the comparison value half the time, and values across zero for signed
// types); status masks exclude random elements, and the excluded elements are set so that a
// wait that ignored the mask would return the wrong index or never return (a hang is reported
// with the phase it hangs in). All-masked and empty calls must return SIZE_MAX / 0 / 1 at once.
//
// The suites of the types are compiled in kGpuWaitParts parts side by side (gpu_wait_part.cuh,
// once per part, by CMake; one unit of all types takes minutes in ptxas): part k runs the types
// whose index in GSHMEMT_TYPES_WAIT satisfies index % kGpuWaitParts == k. gpu_wait.cu holds main.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../gen/type_lists.h"
#include "gpu_test.cuh"

// What main allocates and every part uses (outside the anonymous namespace: it crosses units).
struct GpuWaitShared {
  void* iv = nullptr;  // symmetric: the variables
  uint64_t* ready = nullptr;
  uint64_t* done = nullptr;
  void* plans = nullptr;    // device memory: Plan<T>[kNumCmps * kPhases]
  void* results = nullptr;  // device memory: Result[kNumCmps * kPhases]
  gputest::Progress* progress = nullptr;
};

namespace {

using gputest::bits_of;
using gputest::from_bits;
using gputest::hash64;

constexpr int kN = 12;  // variables per phase
constexpr int kCmps[] = {NVSHMEM_CMP_EQ, NVSHMEM_CMP_NE, NVSHMEM_CMP_GT,
                         NVSHMEM_CMP_GE, NVSHMEM_CMP_LT, NVSHMEM_CMP_LE};
constexpr int kNumCmps = 6;

enum Phase {
  kWait,      // wait_until on one variable
  kAll,       // wait_until_all with a status mask: the excluded variables never satisfy
  kAllNull,   // wait_until_all, status NULL
  kAllVec,    // wait_until_all_vector with a status mask
  kAny,       // wait_until_any with a mask: the excluded variables satisfy from the start
  kAnyNull,   // wait_until_any, status NULL
  kAnyVec,    // wait_until_any_vector with a mask
  kSome,      // wait_until_some with a mask: the excluded variables satisfy from the start
  kSomeNull,  // wait_until_some, status NULL
  kSomeVec,   // wait_until_some_vector with a mask
  kMasked,    // every element excluded, and nelems == 0: immediate results
  kPhases
};
const char* const phase_names[] = {"wait_until",
                                   "wait_until_all (status mask)",
                                   "wait_until_all (status NULL)",
                                   "wait_until_all_vector (status mask)",
                                   "wait_until_any (status mask)",
                                   "wait_until_any (status NULL)",
                                   "wait_until_any_vector (status mask)",
                                   "wait_until_some (status mask)",
                                   "wait_until_some (status NULL)",
                                   "wait_until_some_vector (status mask)",
                                   "all elements excluded, or none"};

bool is_all(int ph) { return ph == kAll || ph == kAllNull || ph == kAllVec; }
bool is_any(int ph) { return ph == kAny || ph == kAnyNull || ph == kAnyVec; }
bool is_some(int ph) { return ph == kSome || ph == kSomeNull || ph == kSomeVec; }
bool is_vec(int ph) { return ph == kAllVec || ph == kAnyVec || ph == kSomeVec; }
bool is_masked(int ph) {
  return ph == kAll || ph == kAllVec || ph == kAny || ph == kAnyVec || ph == kSome || ph == kSomeVec;
}

// What one phase does, the same on both PEs (the updater of one PE serves the waiter of the other).
template <class T>
struct Plan {
  T init[kN];  // the waiter's values before it says it is ready
  T fin[kN];   // the updater's values (equal to init for the variables it leaves alone)
  T cmpv[kN];  // comparison values of the _vector forms
  T cv;        // comparison value of the other forms
  int status[kN];
  int order[kN];  // the variables the updater stores, in this order
  int nupd;
  int j;    // kWait: the variable; kAny*: the one variable the updater stores
  int cmp;  // NVSHMEM_CMP_*
};

// What the waiter saw. r[]: see the slots below; idx: wait_until_some's indices; idx2, idx3:
// test_some's (status form, NULL form) after the updater is done.
struct Result {
  unsigned long long r[16];
  size_t idx[kN], idx2[kN], idx3[kN];
  unsigned long long at_return[kN];  // the variables just after the wait returned
  unsigned long long after[kN];      // and once the updater is done
};
enum Slot { kPre, kRet, kPostStatus, kPostNull, kSomeStatus, kSomeNullCount };
// kMasked's slots, and what each must return.
const char* const masked_names[] = {"wait_until_any, all excluded",
                                    "wait_until_some, all excluded",
                                    "wait_until_any_vector, all excluded",
                                    "wait_until_some_vector, all excluded",
                                    "test_all, all excluded",
                                    "test_any, all excluded",
                                    "test_some, all excluded",
                                    "test_all_vector, all excluded",
                                    "test_any_vector, all excluded",
                                    "test_some_vector, all excluded",
                                    "wait_until_any, nelems 0",
                                    "wait_until_some, nelems 0",
                                    "test_any, nelems 0",
                                    "test_all, nelems 0",
                                    "test_some, nelems 0"};
constexpr unsigned long long kNone = static_cast<unsigned long long>(SIZE_MAX);
const unsigned long long masked_want[] = {kNone, 0, kNone, 0, 1, kNone, 0, 1, kNone, 0, kNone, 0, kNone, 1, 0};
constexpr int kMaskedSlots = 15;

// ---- the NVSHMEM names of one type --------------------------------------------------------------

#define GSHMEMT_WAITS(NAME, TYPE)                                                                 \
  struct W_##NAME {                                                                               \
    using T = TYPE;                                                                               \
    static constexpr const char* name = #NAME;                                                    \
    __device__ static void wait_until(T* v, int c, T x) { nvshmem_##NAME##_wait_until(v, c, x); } \
    __device__ static void wait_all(T* v, size_t n, const int* s, int c, T x) {                   \
      nvshmem_##NAME##_wait_until_all(v, n, s, c, x);                                             \
    }                                                                                             \
    __device__ static size_t wait_any(T* v, size_t n, const int* s, int c, T x) {                 \
      return nvshmem_##NAME##_wait_until_any(v, n, s, c, x);                                      \
    }                                                                                             \
    __device__ static size_t wait_some(T* v, size_t n, size_t* i, const int* s, int c, T x) {     \
      return nvshmem_##NAME##_wait_until_some(v, n, i, s, c, x);                                  \
    }                                                                                             \
    __device__ static void wait_all_v(T* v, size_t n, const int* s, int c, T* x) {                \
      nvshmem_##NAME##_wait_until_all_vector(v, n, s, c, x);                                      \
    }                                                                                             \
    __device__ static size_t wait_any_v(T* v, size_t n, const int* s, int c, T* x) {              \
      return nvshmem_##NAME##_wait_until_any_vector(v, n, s, c, x);                               \
    }                                                                                             \
    __device__ static size_t wait_some_v(T* v, size_t n, size_t* i, const int* s, int c, T* x) {  \
      return nvshmem_##NAME##_wait_until_some_vector(v, n, i, s, c, x);                           \
    }                                                                                             \
    __device__ static int test(T* v, int c, T x) { return nvshmem_##NAME##_test(v, c, x); }       \
    __device__ static int test_all(T* v, size_t n, const int* s, int c, T x) {                    \
      return nvshmem_##NAME##_test_all(v, n, s, c, x);                                            \
    }                                                                                             \
    __device__ static size_t test_any(T* v, size_t n, const int* s, int c, T x) {                 \
      return nvshmem_##NAME##_test_any(v, n, s, c, x);                                            \
    }                                                                                             \
    __device__ static size_t test_some(T* v, size_t n, size_t* i, const int* s, int c, T x) {     \
      return nvshmem_##NAME##_test_some(v, n, i, s, c, x);                                        \
    }                                                                                             \
    __device__ static int test_all_v(T* v, size_t n, const int* s, int c, T* x) {                 \
      return nvshmem_##NAME##_test_all_vector(v, n, s, c, x);                                     \
    }                                                                                             \
    __device__ static size_t test_any_v(T* v, size_t n, const int* s, int c, T* x) {              \
      return nvshmem_##NAME##_test_any_vector(v, n, s, c, x);                                     \
    }                                                                                             \
    __device__ static size_t test_some_v(T* v, size_t n, size_t* i, const int* s, int c, T* x) {  \
      return nvshmem_##NAME##_test_some_vector(v, n, i, s, c, x);                                 \
    }                                                                                             \
    __device__ static void p(T* d, T v, int pe) { nvshmem_##NAME##_p(d, v, pe); }                 \
  };
GSHMEMT_TYPES_WAIT(GSHMEMT_WAITS)
#undef GSHMEMT_WAITS

// ---- kernel ----------------------------------------------------------------------------------------

__device__ inline unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ inline void pause_ns(unsigned long long ns) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) __nanosleep(500);
}

template <class W>
__device__ void waiter(Plan<typename W::T>* plans, Result* results, typename W::T* iv, uint64_t* ready, uint64_t* done,
                       int peer, unsigned long long* progress) {
  using T = typename W::T;
  for (int ci = 0; ci < kNumCmps; ++ci) {
    for (int ph = 0; ph < kPhases; ++ph) {
      const int k = ci * kPhases + ph + 1;
      Plan<T>& p = plans[k - 1];
      const int cmp = p.cmp;
      Result& r = results[k - 1];
      const int* st = (ph == kAllNull || ph == kAnyNull || ph == kSomeNull) ? nullptr : p.status;
      for (int i = 0; i < kN; ++i) iv[i] = p.init[i];
      nvshmem_quiet();  // the values are in place before the updater can see "ready"
      // Before: nothing satisfies (among the elements not excluded).
      switch (ph) {
        case kWait:
          r.r[kPre] = W::test(iv + p.j, cmp, p.cv);
          break;
        case kAll:
        case kAllNull:
          r.r[kPre] = W::test_all(iv, kN, st, cmp, p.cv);
          break;
        case kAllVec:
          r.r[kPre] = W::test_all_v(iv, kN, st, cmp, p.cmpv);
          break;
        case kAny:
        case kAnyNull:
          r.r[kPre] = W::test_any(iv, kN, st, cmp, p.cv);
          break;
        case kAnyVec:
          r.r[kPre] = W::test_any_v(iv, kN, st, cmp, p.cmpv);
          break;
        case kSome:
        case kSomeNull:
          r.r[kPre] = W::test_some(iv, kN, r.idx2, st, cmp, p.cv);
          break;
        case kSomeVec:
          r.r[kPre] = W::test_some_v(iv, kN, r.idx2, st, cmp, p.cmpv);
          break;
      }
      nvshmemx_signal_op(ready, static_cast<uint64_t>(k), NVSHMEM_SIGNAL_SET, peer);
      gputest::note(progress, 0, static_cast<unsigned long long>(k));
      // The wait (the updater stores after a pause).
      switch (ph) {
        case kWait:
          W::wait_until(iv + p.j, cmp, p.cv);
          break;
        case kAll:
        case kAllNull:
          W::wait_all(iv, kN, st, cmp, p.cv);
          break;
        case kAllVec:
          W::wait_all_v(iv, kN, st, cmp, p.cmpv);
          break;
        case kAny:
        case kAnyNull:
          r.r[kRet] = W::wait_any(iv, kN, st, cmp, p.cv);
          break;
        case kAnyVec:
          r.r[kRet] = W::wait_any_v(iv, kN, st, cmp, p.cmpv);
          break;
        case kSome:
        case kSomeNull:
          r.r[kRet] = W::wait_some(iv, kN, r.idx, st, cmp, p.cv);
          break;
        case kSomeVec:
          r.r[kRet] = W::wait_some_v(iv, kN, r.idx, st, cmp, p.cmpv);
          break;
        case kMasked: {
          // p.status excludes every element here; nothing is ever stored.
          W::wait_all(iv, kN, p.status, cmp, p.cv);
          W::wait_all_v(iv, kN, p.status, cmp, p.cmpv);
          W::wait_all(iv, 0, nullptr, cmp, p.cv);
          r.r[0] = W::wait_any(iv, kN, p.status, cmp, p.cv);
          r.r[1] = W::wait_some(iv, kN, r.idx, p.status, cmp, p.cv);
          r.r[2] = W::wait_any_v(iv, kN, p.status, cmp, p.cmpv);
          r.r[3] = W::wait_some_v(iv, kN, r.idx, p.status, cmp, p.cmpv);
          r.r[4] = W::test_all(iv, kN, p.status, cmp, p.cv);
          r.r[5] = W::test_any(iv, kN, p.status, cmp, p.cv);
          r.r[6] = W::test_some(iv, kN, r.idx, p.status, cmp, p.cv);
          r.r[7] = W::test_all_v(iv, kN, p.status, cmp, p.cmpv);
          r.r[8] = W::test_any_v(iv, kN, p.status, cmp, p.cmpv);
          r.r[9] = W::test_some_v(iv, kN, r.idx, p.status, cmp, p.cmpv);
          r.r[10] = W::wait_any(iv, 0, nullptr, cmp, p.cv);
          r.r[11] = W::wait_some(iv, 0, r.idx, nullptr, cmp, p.cv);
          r.r[12] = W::test_any(iv, 0, nullptr, cmp, p.cv);
          r.r[13] = W::test_all(iv, 0, nullptr, cmp, p.cv);
          r.r[14] = W::test_some(iv, 0, r.idx, nullptr, cmp, p.cv);
          break;
        }
      }
      // Plain loads: the wait's acquire makes the updater's stores visible to them.
      for (int i = 0; i < kN; ++i) r.at_return[i] = bits_of(iv[i]);
      switch (ph) {
        case kWait:
          r.r[kPostStatus] = W::test(iv + p.j, cmp, p.cv);
          break;
        case kAll:
        case kAllNull:
          r.r[kPostStatus] = W::test_all(iv, kN, st, cmp, p.cv);
          r.r[kPostNull] = W::test_all(iv, kN, nullptr, cmp, p.cv);
          break;
        case kAllVec:
          r.r[kPostStatus] = W::test_all_v(iv, kN, st, cmp, p.cmpv);
          r.r[kPostNull] = W::test_all_v(iv, kN, nullptr, cmp, p.cmpv);
          break;
        case kAny:
        case kAnyNull:
          r.r[kPostStatus] = W::test_any(iv, kN, st, cmp, p.cv);
          r.r[kPostNull] = W::test_any(iv, kN, nullptr, cmp, p.cv);
          break;
        case kAnyVec:
          r.r[kPostStatus] = W::test_any_v(iv, kN, st, cmp, p.cmpv);
          r.r[kPostNull] = W::test_any_v(iv, kN, nullptr, cmp, p.cmpv);
          break;
      }
      nvshmem_signal_wait_until(done, NVSHMEM_CMP_GE, static_cast<uint64_t>(k));
      switch (ph) {
        case kSome:
        case kSomeNull:
          r.r[kSomeStatus] = W::test_some(iv, kN, r.idx2, st, cmp, p.cv);
          r.r[kSomeNullCount] = W::test_some(iv, kN, r.idx3, nullptr, cmp, p.cv);
          break;
        case kSomeVec:
          r.r[kSomeStatus] = W::test_some_v(iv, kN, r.idx2, st, cmp, p.cmpv);
          r.r[kSomeNullCount] = W::test_some_v(iv, kN, r.idx3, nullptr, cmp, p.cmpv);
          break;
      }
      for (int i = 0; i < kN; ++i) r.after[i] = bits_of(iv[i]);
    }
  }
}

template <class W>
__device__ void updater(Plan<typename W::T>* plans, typename W::T* iv, uint64_t* ready, uint64_t* done, int peer,
                        unsigned long long* progress) {
  for (int k = 1; k <= kNumCmps * kPhases; ++k) {
    const Plan<typename W::T>& p = plans[k - 1];
    nvshmem_signal_wait_until(ready, NVSHMEM_CMP_GE, static_cast<uint64_t>(k));
    pause_ns(50000);  // the waiter is blocked by now
    for (int u = 0; u < p.nupd; ++u) {
      const int i = p.order[u];
      W::p(iv + i, p.fin[i], peer);
      nvshmem_fence();
      pause_ns(2000);
    }
    nvshmem_quiet();
    nvshmemx_signal_op(done, static_cast<uint64_t>(k), NVSHMEM_SIGNAL_SET, peer);
    gputest::note(progress, 1, static_cast<unsigned long long>(k));
  }
}

// Block 0 waits on this PE's variables, block 1 updates the other PE's.
template <class W>
__global__ void waits(Plan<typename W::T>* plans, Result* results, typename W::T* iv, uint64_t* ready, uint64_t* done,
                      int peer, unsigned long long* progress) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    waiter<W>(plans, results, iv, ready, done, peer, progress);
  } else {
    updater<W>(plans, iv, ready, done, peer, progress);
  }
}

// ---- plans --------------------------------------------------------------------------------------------

// T's values in order as unsigned keys 0 .. 2^bits - 1 (signed types: the sign bit flipped).
template <class T>
struct Keys {
  static constexpr int kBits = 8 * sizeof(T);
  static constexpr uint64_t kMax = kBits == 64 ? ~0ull : (1ull << (kBits % 64)) - 1;
  static constexpr uint64_t kFlip = std::is_signed_v<T> ? 1ull << (kBits - 1) : 0;
  static uint64_t key(T v) { return (bits_of(v) & kMax) ^ kFlip; }
  static T value(uint64_t k) { return from_bits<T>((k & kMax) ^ kFlip); }
};

template <class T>
bool holds(T a, int cmp, T b) {
  switch (cmp) {
    case NVSHMEM_CMP_EQ:
      return a == b;
    case NVSHMEM_CMP_NE:
      return a != b;
    case NVSHMEM_CMP_GT:
      return a > b;
    case NVSHMEM_CMP_GE:
      return a >= b;
    case NVSHMEM_CMP_LT:
      return a < b;
    case NVSHMEM_CMP_LE:
      return a <= b;
  }
  return false;
}

template <class T>
class Gen {
 public:
  explicit Gen(uint64_t seed) : s_(seed) {}
  uint64_t next() { return mp::mix(s_); }
  bool coin() { return next() & 1; }
  // A comparison value with room on both sides.
  T middle() { return K::value(1 + next() % (K::kMax - 1)); }
  T above(T c) {
    const uint64_t k = K::key(c);
    return K::value(coin() ? k + 1 : k + 1 + next() % (K::kMax - k));
  }
  T below(T c) {
    const uint64_t k = K::key(c);
    return K::value(coin() ? k - 1 : next() % k);
  }
  T other(T c) { return coin() ? above(c) : below(c); }
  // A value for which `v cmp c` is `sat`.
  T value(int cmp, T c, bool sat) {
    switch (cmp) {
      case NVSHMEM_CMP_EQ:
        return sat ? c : other(c);
      case NVSHMEM_CMP_NE:
        return sat ? other(c) : c;
      case NVSHMEM_CMP_GT:
        return sat ? above(c) : (coin() ? c : below(c));
      case NVSHMEM_CMP_GE:
        return sat ? (coin() ? c : above(c)) : below(c);
      case NVSHMEM_CMP_LT:
        return sat ? below(c) : (coin() ? c : above(c));
      default:  // LE
        return sat ? (coin() ? c : below(c)) : above(c);
    }
  }

 private:
  using K = Keys<T>;
  uint64_t s_;
};

template <class T>
Plan<T> make_plan(Gen<T>& g, int cmp, int ph) {
  Plan<T> p{};
  p.cmp = cmp;
  p.cv = g.middle();
  for (int i = 0; i < kN; ++i) p.cmpv[i] = is_vec(ph) ? g.middle() : p.cv;
  // Status: kMasked excludes everything; the masked phases exclude 1 to 5 random elements.
  for (int i = 0; i < kN; ++i) p.status[i] = ph == kMasked ? 1 : 0;
  if (is_masked(ph)) {
    const int m = 1 + static_cast<int>(g.next() % 5);
    for (int n = 0; n < m;) {
      const int i = static_cast<int>(g.next() % kN);
      if (!p.status[i]) {
        p.status[i] = 1;
        ++n;
      }
    }
  }
  std::vector<int> eligible;
  for (int i = 0; i < kN; ++i) {
    if (!p.status[i]) eligible.push_back(i);
  }
  // Initial values: nothing satisfies, except the excluded elements of the _any and _some phases.
  for (int i = 0; i < kN; ++i) {
    const bool sat = p.status[i] && (is_any(ph) || is_some(ph));
    p.init[i] = g.value(cmp, p.cmpv[i], sat);
    p.fin[i] = p.init[i];
  }
  // What the updater stores, and in which order.
  std::vector<int> upd;
  if (ph == kWait || is_any(ph)) {
    p.j = eligible[g.next() % eligible.size()];
    upd.push_back(p.j);
  } else if (is_all(ph)) {
    upd = eligible;
  } else if (is_some(ph)) {
    for (int i : eligible) {
      if (g.coin()) upd.push_back(i);
    }
    if (upd.empty()) upd.push_back(eligible[g.next() % eligible.size()]);
  }
  for (size_t a = upd.size(); a > 1; --a) std::swap(upd[a - 1], upd[g.next() % a]);  // random order
  p.nupd = static_cast<int>(upd.size());
  for (int u = 0; u < p.nupd; ++u) {
    p.order[u] = upd[u];
    p.fin[upd[u]] = g.value(cmp, p.cmpv[upd[u]], true);
  }
  // The generator's own promise.
  for (int i = 0; i < kN; ++i) {
    const bool init_sat = p.status[i] && (is_any(ph) || is_some(ph));
    MP_CHECK(holds(p.init[i], cmp, p.cmpv[i]) == init_sat, "test bug: initial value %d", i);
  }
  for (int u = 0; u < p.nupd; ++u) MP_CHECK(holds(p.fin[p.order[u]], cmp, p.cmpv[p.order[u]]), "test bug: final value");
  return p;
}

// ---- checks --------------------------------------------------------------------------------------------

template <class T>
struct Checker {
  const char* type;
  int cmp;
  int ph;
  const Plan<T>& p;
  const Result& r;

  std::string what() const {
    return std::string("nvshmem_") + type + "_" + phase_names[ph] + ", " + gputest::cmp_name(cmp);
  }
  std::string describe() const {
    std::string s = " [variables:";
    for (int i = 0; i < kN; ++i) {
      s += " " + std::to_string(i) + ":" + gputest::show<T>(bits_of(p.init[i]));
      if (bits_of(p.fin[i]) != bits_of(p.init[i])) s += "->" + gputest::show<T>(bits_of(p.fin[i]));
      if (is_vec(ph)) s += " cmp " + gputest::show<T>(bits_of(p.cmpv[i]));
      if (p.status[i] && ph != kAllNull && ph != kAnyNull && ph != kSomeNull) s += " (excluded)";
    }
    if (!is_vec(ph)) s += "; comparison value " + gputest::show<T>(bits_of(p.cv));
    return s + "]";
  }
  bool updated(int i) const {
    for (int u = 0; u < p.nupd; ++u) {
      if (p.order[u] == i) return true;
    }
    return false;
  }
  bool excluded(int i) const { return p.status[i] && ph != kAllNull && ph != kAnyNull && ph != kSomeNull; }
  static std::string text(unsigned long long v) { return v == kNone ? "SIZE_MAX" : std::to_string(v); }
  void expect(bool ok, const char* check, unsigned long long got, unsigned long long want) const {
    MP_CHECK(ok, "%s: %s: got %s, expected %s%s", what().c_str(), check, text(got).c_str(), text(want).c_str(),
             describe().c_str());
  }
  // The indices a test_some/wait_until_some must report once every store arrived.
  std::vector<size_t> final_satisfied(bool with_status) const {
    std::vector<size_t> s;
    for (int i = 0; i < kN; ++i) {
      if (with_status && excluded(i)) continue;
      if (holds(p.fin[i], cmp, p.cmpv[i])) s.push_back(static_cast<size_t>(i));
    }
    return s;
  }

  void run() const {
    if (ph == kMasked) {
      for (int s = 0; s < kMaskedSlots; ++s) expect(r.r[s] == masked_want[s], masked_names[s], r.r[s], masked_want[s]);
      return;
    }
    // Before the updater: "not satisfied".
    if (ph == kWait || is_all(ph)) expect(r.r[kPre] == 0, "the test before any store", r.r[kPre], 0);
    if (is_any(ph)) expect(r.r[kPre] == kNone, "test_any before any store", r.r[kPre], kNone);
    if (is_some(ph)) expect(r.r[kPre] == 0, "test_some before any store", r.r[kPre], 0);
    // What the wait returned, and the values the waiter then read.
    if (is_any(ph)) expect(r.r[kRet] == static_cast<unsigned long long>(p.j), "the index returned", r.r[kRet], p.j);
    if (is_some(ph)) {
      const unsigned long long n = r.r[kRet];
      expect(n >= 1 && n <= static_cast<unsigned long long>(p.nupd), "the number of indices returned", n, p.nupd);
      for (unsigned long long a = 0; a < n; ++a) {
        const size_t i = r.idx[a];
        expect(i < kN && updated(static_cast<int>(i)), "an index returned (not one that was stored to)", i, p.order[0]);
        if (a > 0) expect(r.idx[a - 1] < i, "the indices returned are not ascending", i, r.idx[a - 1] + 1);
        expect(r.at_return[i] == bits_of(p.fin[i]), "the value after the wait of an index it returned", r.at_return[i],
               bits_of(p.fin[i]));
      }
    }
    for (int i = 0; i < kN; ++i) {
      const unsigned long long init = bits_of(p.init[i]), fin = bits_of(p.fin[i]);
      const bool must_be_new = (ph == kWait || is_any(ph)) ? i == p.j : is_all(ph) ? updated(i) : false;
      if (must_be_new) {
        expect(r.at_return[i] == fin, ("the value of variable " + std::to_string(i) + " after the wait").c_str(),
               r.at_return[i], fin);
      } else {
        expect(r.at_return[i] == init || r.at_return[i] == fin,
               ("the value of variable " + std::to_string(i) + " after the wait").c_str(), r.at_return[i], init);
      }
      expect(r.after[i] == fin, ("the value of variable " + std::to_string(i) + " at the end").c_str(), r.after[i],
             fin);
    }
    // The tests after the wait.
    if (ph == kWait) expect(r.r[kPostStatus] == 1, "test after the wait", r.r[kPostStatus], 1);
    if (is_all(ph)) {
      expect(r.r[kPostStatus] == 1, "test_all after the wait", r.r[kPostStatus], 1);
      const unsigned long long want = ph == kAllNull ? 1 : 0;  // excluded elements never satisfy
      expect(r.r[kPostNull] == want, "test_all with status NULL after the wait", r.r[kPostNull], want);
    }
    if (is_any(ph)) {
      expect(r.r[kPostStatus] == static_cast<unsigned long long>(p.j), "test_any after the wait", r.r[kPostStatus],
             p.j);
      const unsigned long long i = r.r[kPostNull];
      const bool ok = i < kN && (i == static_cast<unsigned long long>(p.j) || (p.status[i] && ph != kAnyNull));
      expect(ok, "test_any with status NULL after the wait (an index that does not satisfy)", i, p.j);
    }
    if (is_some(ph)) {
      const std::vector<size_t> want = final_satisfied(true);
      expect(r.r[kSomeStatus] == want.size(), "test_some once every store arrived: count", r.r[kSomeStatus],
             want.size());
      for (size_t a = 0; a < want.size(); ++a) {
        expect(r.idx2[a] == want[a], "test_some once every store arrived: index", r.idx2[a], want[a]);
      }
      const std::vector<size_t> all = final_satisfied(false);
      expect(r.r[kSomeNullCount] == all.size(), "test_some with status NULL once every store arrived: count",
             r.r[kSomeNullCount], all.size());
    }
  }
};

using Shared = GpuWaitShared;

template <class W>
void suite(const Shared& sh, uint64_t seed) {
  using T = typename W::T;
  const int me = nvshmem_my_pe();
  constexpr int kPlans = kNumCmps * kPhases;
  std::vector<Plan<T>> plans;
  Gen<T> gen(seed);  // the same on both PEs
  for (int ci = 0; ci < kNumCmps; ++ci) {
    for (int ph = 0; ph < kPhases; ++ph) plans.push_back(make_plan<T>(gen, kCmps[ci], ph));
  }
  CUDA_CHECK(cudaMemcpy(sh.plans, plans.data(), kPlans * sizeof(Plan<T>), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(sh.results, 0xff, kPlans * sizeof(Result)));
  CUDA_CHECK(cudaMemset(sh.ready, 0, sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(sh.done, 0, sizeof(uint64_t)));
  sh.progress->clear();
  gputest::sync_and_barrier();
  waits<W><<<2, 32>>>(static_cast<Plan<T>*>(sh.plans), static_cast<Result*>(sh.results), static_cast<T*>(sh.iv),
                      sh.ready, sh.done, 1 - me, sh.progress->dev());
  CUDA_CHECK(cudaGetLastError());
  gputest::sync_or_die(0, 60, [&] {
    auto name = [](unsigned long long k) {
      if (k == 0) return std::string("(not started)");
      const int ci = static_cast<int>((k - 1) / kPhases), ph = static_cast<int>((k - 1) % kPhases);
      return std::string(phase_names[ph]) + " with " + gputest::cmp_name(kCmps[ci]);
    };
    return std::string("the waits of type ") + W::name + ": the waiter is in " + name(sh.progress->read(0)) +
           ", the other PE's updater finished " + name(sh.progress->read(1));
  });
  gputest::sync_and_barrier();
  std::vector<Result> results(kPlans);
  CUDA_CHECK(cudaMemcpy(results.data(), sh.results, kPlans * sizeof(Result), cudaMemcpyDeviceToHost));
  for (int ci = 0; ci < kNumCmps; ++ci) {
    for (int ph = 0; ph < kPhases; ++ph) {
      const int k = ci * kPhases + ph;
      Checker<T>{W::name, kCmps[ci], ph, plans[k], results[k]}.run();
    }
  }
  if (me == 0) std::printf("gpu_wait: %s: every wait and test, 6 comparisons\n", W::name);
}

}  // namespace

// The parts (see above). CMake's gpu_wait_parts must match kGpuWaitParts.
constexpr int kGpuWaitParts = 4;
void gpu_wait_part0(const GpuWaitShared& sh);
void gpu_wait_part1(const GpuWaitShared& sh);
void gpu_wait_part2(const GpuWaitShared& sh);
void gpu_wait_part3(const GpuWaitShared& sh);
// The size of the plan and result arrays (for the largest type).
size_t gpu_wait_plans_bytes();
size_t gpu_wait_results_bytes();
