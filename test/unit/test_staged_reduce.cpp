// The staged reduction of include/gshmem/detail/reduce_algo.h (staged_reduce), which kernels run on teams
// with members across the network: here one thread per member, each with a heap of its own in this
// process; a member's put copies into another member's heap at the same offset, and the team's sync and
// barrier are a rendezvous of the threads. Checked: every element of every member's dest against the
// members' values combined in team order (computed here, not by the algorithm's combiners), the bytes
// after dest untouched, the source unchanged (unless in place), and the number of rounds (a sync and a
// barrier each) that the scratch's size implies, so that a call of many rounds is what ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "gshmem/detail/reduce_algo.h"

namespace gshmem {
namespace {

using detail::ReduceOp;
using detail::SyncLayout;
using detail::TeamSlot;

// A barrier of `n` threads that can be used again and again; counts its rounds.
class Rendezvous {
 public:
  explicit Rendezvous(int n) : n_(n) {}
  void arrive() {
    std::unique_lock<std::mutex> lock(m_);
    const uint64_t gen = gen_;
    if (++waiting_ == n_) {
      waiting_ = 0;
      ++gen_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return gen_ != gen; });
  }
  uint64_t rounds() const { return gen_; }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  const int n_;
  int waiting_ = 0;
  uint64_t gen_ = 0;
};

constexpr uint64_t kArea = 0;  // every member's sync area starts its heap
constexpr unsigned char kGuard = 0x5a;

struct Job {
  int n;
  uint32_t scratch;
  uint64_t src_at, dest_at, bytes;  // heap offsets of the source and dest, and the heaps' size
  std::vector<std::vector<char>> heaps;
  std::vector<uint64_t> sync_of;
  Rendezvous rv;
  Job(int members, uint32_t scratch_bytes, uint64_t src_bytes, uint64_t dest_bytes)
      : n(members), scratch(scratch_bytes), rv(members) {
    src_at = (SyncLayout(members).scratch + scratch_bytes + 63) & ~63ull;
    dest_at = (src_at + src_bytes + 63) & ~63ull;
    bytes = dest_at + dest_bytes + 64;
    heaps.assign(static_cast<size_t>(members), std::vector<char>(bytes, 0));
    sync_of.assign(static_cast<size_t>(members), kArea);
  }
};

// The operations staged_reduce needs, for member `me` (a group of one thread).
struct Ops {
  Job& job;
  int me;
  void put(int i, char* dest, const char* src, size_t bytes) const {
    const ptrdiff_t at = dest - heap();
    ASSERT_GE(static_cast<uint64_t>(at), SyncLayout(job.n).scratch) << "a put before member " << i << "'s scratch";
    ASSERT_LE(static_cast<uint64_t>(at) + bytes, SyncLayout(job.n).scratch + job.scratch)
        << "a put outside member " << i << "'s scratch";
    std::memcpy(job.heaps[static_cast<size_t>(i)].data() + at, src, bytes);
  }
  template <class T>
  T load(const T* p) const {
    return *p;
  }
  int rank() const { return 0; }
  int threads() const { return 1; }
  void sync() const { job.rv.arrive(); }
  void barrier() const { job.rv.arrive(); }
  void group_sync() const {}
  char* heap() const { return job.heaps[static_cast<size_t>(me)].data(); }
};

// Member j's element e: values that make sums wrap and keep min, max and xor meaningful.
template <class T>
T value(int j, size_t e) {
  const uint64_t h = (static_cast<uint64_t>(j) + 1) * 0x9e3779b97f4a7c15ull ^ (e * 0xbf58476d1ce4e5b9ull);
  if constexpr (std::is_floating_point<T>::value) return static_cast<T>(static_cast<int64_t>(h % 2001) - 1000) / 8;
  return static_cast<T>(h >> 7);
}

template <ReduceOp Op, class T>
T combine(T a, T b) {
  using U =
      typename std::conditional<std::is_integral<T>::value, std::make_unsigned<T>, std::common_type<T>>::type::type;
  switch (Op) {
    case ReduceOp::kSum:
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));  // wraps modulo 2^bits
    case ReduceOp::kMin:
      return b < a ? b : a;
    case ReduceOp::kMax:
      return a < b ? b : a;
    default:  // kXor (integers)
      if constexpr (std::is_integral<T>::value) return static_cast<T>(a ^ b);
      return a;
  }
}

enum class Mode { kReduce, kInPlace, kScatter };

// Runs one staged reduction of `count` elements per member on a team of `members` with `scratch` bytes
// of scratch, and checks it; *rounds is the rendezvous rounds it took.
template <ReduceOp Op, class T>
void run(int members, uint32_t scratch, size_t count, Mode mode, uint64_t* rounds) {
  const size_t src_elems = mode == Mode::kScatter ? count * static_cast<size_t>(members) : count;
  Job job(members, scratch, (src_elems + 1) * sizeof(T), (count + 1) * sizeof(T) + 16);
  for (int j = 0; j < members; ++j) {
    char* h = job.heaps[static_cast<size_t>(j)].data();
    T* src = reinterpret_cast<T*>(h + (mode == Mode::kInPlace ? job.dest_at : job.src_at));
    for (size_t e = 0; e < src_elems; ++e) src[e] = value<T>(j, e);
    std::memset(h + job.dest_at + (mode == Mode::kInPlace ? src_elems * sizeof(T) : 0), kGuard,
                (count + 1) * sizeof(T) + 16 - (mode == Mode::kInPlace ? src_elems * sizeof(T) : 0));
  }
  std::vector<std::thread> threads;
  for (int j = 0; j < members; ++j) {
    threads.emplace_back([&, j] {
      TeamSlot t{};
      t.size = members;
      t.my_index = j;
      t.stride = 1;
      t.sync_of = job.sync_of.data();
      t.sync = kArea;
      t.scratch_bytes = scratch;
      Ops ops{job, j};
      char* h = job.heaps[static_cast<size_t>(j)].data();
      T* dest = reinterpret_cast<T*>(h + job.dest_at);
      const T* src = mode == Mode::kInPlace ? dest : reinterpret_cast<const T*>(h + job.src_at);
      detail::staged_reduce<detail::Combiner<Op, T>>(ops, t, dest, src, count, mode == Mode::kScatter);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int j = 0; j < members; ++j) {
    const char* h = job.heaps[static_cast<size_t>(j)].data();
    const T* dest = reinterpret_cast<const T*>(h + job.dest_at);
    const size_t first = mode == Mode::kScatter ? count * static_cast<size_t>(j) : 0;
    for (size_t e = 0; e < count; ++e) {
      T want = value<T>(0, first + e);
      for (int k = 1; k < members; ++k) want = combine<Op>(want, value<T>(k, first + e));
      ASSERT_EQ(std::memcmp(&dest[e], &want, sizeof(T)), 0)
          << "member " << j << " of " << members << ", element " << e << " of " << count << ": " << +dest[e]
          << ", expected " << +want;
    }
    for (size_t b = count * sizeof(T); b < (count + 1) * sizeof(T) + 16; ++b) {
      ASSERT_EQ(static_cast<unsigned char>(h[job.dest_at + b]), kGuard) << "member " << j << " wrote past dest";
    }
    if (mode != Mode::kInPlace) {
      const T* src = reinterpret_cast<const T*>(h + job.src_at);
      for (size_t e = 0; e < src_elems; ++e) {
        const T v = value<T>(j, e);
        ASSERT_EQ(std::memcmp(&src[e], &v, sizeof(T)), 0) << "member " << j << "'s source changed at " << e;
      }
    }
  }
  *rounds = job.rv.rounds();
}

// Rounds a call takes: a sync and a barrier per slot's worth of elements.
uint64_t rounds_for(int members, uint32_t scratch, size_t count, size_t elem) {
  TeamSlot t{};
  t.size = members;
  t.scratch_bytes = scratch;
  const size_t per = detail::staged_elements(t, elem);
  return 2 * ((count + per - 1) / per);
}

TEST(StagedReduce, SlotsAreWholeSixteenBytes) {
  TeamSlot t{};
  t.size = 2;
  t.scratch_bytes = 16;
  EXPECT_EQ(detail::staged_elements(t, 4), 0u);  // 8 bytes per member round down to none
  t.scratch_bytes = 32;
  EXPECT_EQ(detail::staged_elements(t, 4), 4u);
  t.size = 3;
  t.scratch_bytes = 8192;
  EXPECT_EQ(detail::staged_elements(t, 8), 2720u / 8);  // 2730 down to 2720
  t.size = 0;
  EXPECT_EQ(detail::staged_elements(t, 8), 0u);
}

TEST(StagedReduce, EveryModeAndTeamSizeInOneOrManyRounds) {
  for (int members : {2, 3, 4}) {
    for (uint32_t scratch : {64u, 8192u}) {
      for (size_t count : {size_t{0}, size_t{1}, size_t{5}, size_t{100}, size_t{1001}}) {
        SCOPED_TRACE(testing::Message() << members << " members, scratch " << scratch << ", " << count << " elements");
        for (Mode mode : {Mode::kReduce, Mode::kInPlace, Mode::kScatter}) {
          uint64_t rounds = 0;
          run<ReduceOp::kSum, int32_t>(members, scratch, count, mode, &rounds);
          EXPECT_EQ(rounds, rounds_for(members, scratch, count, 4));
          run<ReduceOp::kXor, uint8_t>(members, scratch, count, mode, &rounds);
          EXPECT_EQ(rounds, rounds_for(members, scratch, count, 1));
          run<ReduceOp::kMax, double>(members, scratch, count, mode, &rounds);
          EXPECT_EQ(rounds, rounds_for(members, scratch, count, 8));
          run<ReduceOp::kMin, int64_t>(members, scratch, count, mode, &rounds);
          EXPECT_EQ(rounds, rounds_for(members, scratch, count, 8));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gshmem
