// Several host threads of each PE calling the API in turn (NVSHMEM_THREAD_SERIALIZED, the level
// NVSHMEM provides: one call at a time, from any thread): blocking and fetching atomics, _nbi puts,
// quiet and gets of different threads interleave against the PEs' words and buffers. Checked: the
// totals are exact, the fetched values of all threads of all PEs are each value exactly once, and
// what a thread put and then quieted reads back whole. A quiet completes the PE's operations, not
// the calling thread's: one thread's quiet may complete another's put, and that thread's own quiet
// then has nothing left to wait for (the GPU backend's quiet returns at once then).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "mp_test.h"

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 60;
constexpr size_t kSlot = 264;  // bytes per thread and round: not a multiple of 16, so the tail is copied too

int me() { return nvshmem_my_pe(); }
int npes() { return nvshmem_n_pes(); }

// One call at a time (the thread level provided); the threads take turns in whatever order they come.
std::mutex g_serial;
template <class F>
auto serial(F f) {
  std::lock_guard<std::mutex> lock(g_serial);
  return f();
}

// One thread's rounds: returns false (after printing why) on a bad read-back.
bool run_thread(int t, uint64_t* words, char* slots, uint64_t* fetched) {
  const int tgt = npes() - 1;  // the PE whose words every thread of every PE hits
  const int peer = (me() + 1) % npes();
  std::vector<char> out(kSlot), back(kSlot);
  for (int k = 0; k < kRounds; ++k) {
    fetched[k] = serial([&] { return nvshmem_uint64_atomic_fetch_add(words + 0, 1, tgt); });
    serial([&] { nvshmem_uint64_atomic_add(words + 1, 2, tgt); });
    // This thread's slot on the next PE: put, quiet, read back.
    char* remote = slots + (static_cast<size_t>(me()) * kThreads + t) * kSlot;
    mp::fill(out.data(), kSlot, mp::seed_of(me(), t, k));
    serial([&] { nvshmem_putmem_nbi(remote, out.data(), kSlot, peer); });
    std::this_thread::yield();  // another thread's call may come between the put and its quiet
    serial([&] { nvshmem_quiet(); });
    serial([&] { nvshmem_getmem(back.data(), remote, kSlot, peer); });
    const long bad = mp::first_mismatch(back.data(), kSlot, mp::seed_of(me(), t, k));
    if (bad >= 0) {
      std::fprintf(stderr, "PE %d thread %d round %d: byte %ld of the slot on PE %d differs after put and quiet\n",
                   me(), t, k, bad, peer);
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  int provided = -1;
  MP_CHECK(nvshmem_init_thread(NVSHMEM_THREAD_SERIALIZED, &provided) == 0, "nvshmem_init_thread failed");
  MP_CHECK(provided >= NVSHMEM_THREAD_SERIALIZED, "provided thread level %d, below NVSHMEM_THREAD_SERIALIZED",
           provided);
  const int n = npes();
  const size_t per_pe = static_cast<size_t>(kThreads) * kRounds;
  uint64_t* words = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
  char* slots = static_cast<char*>(nvshmem_calloc(static_cast<size_t>(n) * kThreads, kSlot));
  uint64_t* gathered = static_cast<uint64_t*>(nvshmem_calloc(static_cast<size_t>(n) * per_pe, sizeof(uint64_t)));
  MP_CHECK(words && slots && gathered, "nvshmem_calloc failed");
  nvshmem_barrier_all();

  std::vector<uint64_t> fetched(per_pe);
  std::vector<char> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { ok[t] = run_thread(t, words, slots, fetched.data() + t * kRounds); });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) MP_CHECK(ok[t], "thread %d failed (above)", t);

  // Every PE's fetched values to the target, which checks them with the totals.
  const int tgt = n - 1;
  nvshmem_putmem(gathered + static_cast<size_t>(me()) * per_pe, fetched.data(), per_pe * sizeof(uint64_t), tgt);
  nvshmem_barrier_all();
  if (me() == tgt) {
    const uint64_t total = static_cast<uint64_t>(n) * per_pe;
    uint64_t w[2];
    nvshmem_getmem(w, words, sizeof w, me());
    MP_CHECK(w[0] == total, "fetch_add total %llu, expected %llu", static_cast<unsigned long long>(w[0]),
             static_cast<unsigned long long>(total));
    MP_CHECK(w[1] == 2 * total, "add total %llu, expected %llu", static_cast<unsigned long long>(w[1]),
             static_cast<unsigned long long>(2 * total));
    std::vector<uint64_t> all(total);
    nvshmem_getmem(all.data(), gathered, total * sizeof(uint64_t), me());
    std::sort(all.begin(), all.end());
    for (uint64_t i = 0; i < total; ++i) {
      MP_CHECK(all[i] == i, "the fetched values are not 0..%llu once each: position %llu holds %llu",
               static_cast<unsigned long long>(total - 1), static_cast<unsigned long long>(i),
               static_cast<unsigned long long>(all[i]));
    }
  }
  // Each PE's slots, written by the previous PE's threads in their last round.
  const int prev = (me() + n - 1) % n;
  std::vector<char> mine(kSlot);
  for (int t = 0; t < kThreads; ++t) {
    nvshmem_getmem(mine.data(), slots + (static_cast<size_t>(prev) * kThreads + t) * kSlot, kSlot, me());
    const long bad = mp::first_mismatch(mine.data(), kSlot, mp::seed_of(prev, t, kRounds - 1));
    MP_CHECK(bad < 0, "byte %ld of PE %d thread %d's last slot differs", bad, prev, t);
  }
  nvshmem_barrier_all();
  if (me() == 0) std::printf("mp_threads: %d PEs x %d threads x %d rounds passed\n", n, kThreads, kRounds);
  nvshmem_free(gathered);
  nvshmem_free(slots);
  nvshmem_free(words);
  nvshmem_finalize();
  return 0;
}
