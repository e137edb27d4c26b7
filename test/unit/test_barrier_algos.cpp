// The two barrier algorithms of include/gshmem/detail/flag_barrier.h (flag_barrier: an arrival at every
// member; dissemination_barrier: rounds, for arrivals that are network messages), run by one thread per
// member over flag arrays in this process, at every member count from 1 to 9 (powers of two and not).
// Checked at each of many barriers in a row: no member leaves before every member has arrived (each
// records the barrier it reached before arriving, and each checks every record after leaving), and the
// number of arrivals each algorithm makes (n (n - 1), and n ceil(log2 n)).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gshmem/detail/flag_barrier.h"

namespace gshmem {
namespace {

// Member m's flags: slot i holds the sequence number member i last stored there.
struct Flags {
  explicit Flags(int n) : n(n), slots(new std::atomic<uint64_t>[static_cast<size_t>(n * n)]) {
    for (int i = 0; i < n * n; ++i) slots[i].store(0);
  }
  std::atomic<uint64_t>& at(int member, int sender) { return slots[member * n + sender]; }
  int n;
  std::unique_ptr<std::atomic<uint64_t>[]> slots;
  std::atomic<uint64_t> arrivals{0};
};

// The operations flag_barrier.h asks for, as member `me` makes them.
struct Ops {
  Flags* f;
  int me;
  void arrive(int i, uint64_t seq) const {
    f->arrivals.fetch_add(1, std::memory_order_relaxed);
    f->at(i, me).store(seq, std::memory_order_release);
  }
  void wait(int i, uint64_t seq) const {
    while (f->at(me, i).load(std::memory_order_acquire) < seq) std::this_thread::yield();
  }
};

enum class Algo { kFlag, kDissemination };

// Runs `rounds` barriers on `n` threads; returns the arrivals made, and fails the test where a member left a
// barrier that some member had not reached.
uint64_t run(Algo algo, int n, int rounds) {
  Flags flags(n);
  std::vector<std::atomic<int>> reached(static_cast<size_t>(n));
  for (auto& r : reached) r.store(0);
  std::atomic<int> early{0};
  std::vector<std::thread> members;
  for (int me = 0; me < n; ++me) {
    members.emplace_back([&, me] {
      Ops ops{&flags, me};
      for (int k = 1; k <= rounds; ++k) {
        reached[static_cast<size_t>(me)].store(k, std::memory_order_relaxed);
        if (algo == Algo::kFlag) {
          detail::flag_barrier(ops, me, n, static_cast<uint64_t>(k));
        } else {
          detail::dissemination_barrier(ops, me, n, static_cast<uint64_t>(k));
        }
        for (int j = 0; j < n; ++j) {
          if (reached[static_cast<size_t>(j)].load(std::memory_order_relaxed) < k) early.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : members) t.join();
  EXPECT_EQ(early.load(), 0) << "a member left a barrier before every member of " << n << " had reached it";
  return flags.arrivals.load();
}

int rounds_of(int n) {
  int r = 0;
  for (int d = 1; d < n; d <<= 1) ++r;
  return r;
}

TEST(BarrierAlgos, FlagBarrierHoldsEveryMemberAtEveryCount) {
  constexpr int kRounds = 300;
  for (int n = 1; n <= 9; ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(run(Algo::kFlag, n, kRounds), static_cast<uint64_t>(kRounds) * n * (n - 1));
  }
}

TEST(BarrierAlgos, DisseminationHoldsEveryMemberWithFewerArrivals) {
  constexpr int kRounds = 300;
  for (int n = 1; n <= 9; ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(run(Algo::kDissemination, n, kRounds), static_cast<uint64_t>(kRounds) * n * rounds_of(n));
  }
}

}  // namespace
}  // namespace gshmem
