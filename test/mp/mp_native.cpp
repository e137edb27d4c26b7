// The native host API (gshmem/host.hpp) on its own, without NVSHMEM's names: every family once, each
// result checked against what the PEs can compute themselves. The CPU backend (the heap is host memory
// that this program reads directly). With the argument "bad_pe", a put to a PE that does not exist must
// end the job with a message that names the caller's name for the call.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/host.hpp"

namespace h = gshmem::host;

#define CHECK(cond, ...)                                                                                 \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      std::fprintf(stderr, "PE %d: check failed at %s:%d: %s: ", h::my_pe(), __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                                 \
      std::fprintf(stderr, "\n");                                                                        \
      std::exit(1);                                                                                      \
    }                                                                                                    \
  } while (0)

namespace {

int checks = 0;

void rma(int me, int n) {
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t count = 1000;
  auto* dst = static_cast<int64_t*>(h::calloc(count, sizeof(int64_t)));
  CHECK(dst != nullptr, "calloc");
  for (size_t i = 0; i < count; ++i) CHECK(dst[i] == 0, "calloc zeroes: dst[%zu] = %lld", i, (long long)dst[i]);
  std::vector<int64_t> src(count);
  for (size_t i = 0; i < count; ++i) src[i] = me * 1000000 + static_cast<int64_t>(i);
  h::barrier_all();  // every PE has checked its zeroes before any puts into them
  h::put(dst, src.data(), count, right);
  h::barrier_all();
  for (size_t i = 0; i < count; ++i) {
    CHECK(dst[i] == left * 1000000 + static_cast<int64_t>(i), "put: dst[%zu] = %lld", i, (long long)dst[i]);
  }
  // get back what the right neighbour received (this PE's own source), non-blocking, then quiet.
  std::vector<int64_t> back(count, -1);
  h::get(back.data(), dst, count, right, h::kNbi);
  h::quiet();
  CHECK(back == src, "get of the right neighbour's copy");
  // p and g, strided put and get.
  auto* word = static_cast<int32_t*>(h::malloc(64 * sizeof(int32_t)));
  std::memset(word, 0, 64 * sizeof(int32_t));
  h::barrier_all();
  h::p(word, 7 * me + 1, right);
  h::barrier_all();
  CHECK(word[0] == 7 * left + 1, "p: %d", word[0]);
  CHECK(h::g(word, left) == 7 * ((left + n - 1) % n) + 1, "g");
  int32_t lanes[8];
  for (int i = 0; i < 8; ++i) lanes[i] = me * 100 + i;
  h::iput(word + 1, lanes, 3, 1, 8, right);  // elements 1, 4, ..., 22 of the right neighbour
  h::barrier_all();
  for (int i = 0; i < 8; ++i) CHECK(word[1 + 3 * i] == left * 100 + i, "iput element %d: %d", i, word[1 + 3 * i]);
  int32_t fetched[8] = {};
  h::iget(fetched, word + 1, 1, 3, 8, left);
  for (int i = 0; i < 8; ++i) {
    CHECK(fetched[i] == ((left + n - 1) % n) * 100 + i, "iget element %d: %d", i, fetched[i]);
  }
  h::barrier_all();
  h::free(word);
  h::free(dst);
  checks += 6;
}

void atomics(int me, int n) {
  auto* counter = static_cast<uint64_t*>(h::calloc(4, sizeof(uint64_t)));
  h::barrier_all();
  // Every PE adds its PE + 1 on PE 0, and fetch-adds on PE n - 1; the sums are known.
  h::atomic_add<uint64_t>(counter, static_cast<uint64_t>(me + 1), 0);
  const uint64_t before = h::atomic_fetch_add<uint64_t>(counter + 1, 1, n - 1);
  CHECK(before < static_cast<uint64_t>(n), "fetch_add returned %llu", (unsigned long long)before);
  h::atomic_or<uint64_t>(counter + 2, uint64_t{1} << me, 0);
  h::barrier_all();
  if (me == 0) {
    CHECK(counter[0] == static_cast<uint64_t>(n) * (n + 1) / 2, "sum %llu", (unsigned long long)counter[0]);
    CHECK(counter[2] == (uint64_t{1} << n) - 1, "or %llx", (unsigned long long)counter[2]);
  }
  if (me == n - 1) CHECK(counter[1] == static_cast<uint64_t>(n), "count %llu", (unsigned long long)counter[1]);
  // compare_swap: exactly one PE wins the word on PE 0.
  const uint64_t won = h::atomic_compare_swap<uint64_t>(counter + 3, 0, static_cast<uint64_t>(me + 1), 0);
  h::barrier_all();
  const uint64_t winner = h::atomic_fetch<uint64_t>(counter + 3, 0);
  CHECK(winner >= 1 && winner <= static_cast<uint64_t>(n), "winner %llu", (unsigned long long)winner);
  CHECK((won == 0) == (winner == static_cast<uint64_t>(me + 1)), "compare_swap returned %llu, winner %llu",
        (unsigned long long)won, (unsigned long long)winner);
  h::barrier_all();  // every PE has read the winner
  // Every PE swaps its own copy: PE 0's held the winner, the others' 0.
  const uint64_t swapped = h::atomic_swap<uint64_t>(counter + 3, 99, me);
  CHECK(swapped == (me == 0 ? winner : 0), "swap returned %llu", (unsigned long long)swapped);
  // A float, bit for bit.
  auto* f = reinterpret_cast<float*>(counter + 2);
  h::barrier_all();
  h::atomic_set<float>(f, 1.5f + static_cast<float>(me), (me + 1) % n);
  h::barrier_all();
  CHECK(h::atomic_fetch<float>(f, me) == 1.5f + static_cast<float>((me + n - 1) % n), "float set and fetch");
  h::barrier_all();
  h::free(counter);
  checks += 7;
}

void signals_and_waits(int me, int n) {
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto* data = static_cast<int32_t*>(h::calloc(256, sizeof(int32_t)));
  auto* sig = static_cast<uint64_t*>(h::calloc(2, sizeof(uint64_t)));
  h::barrier_all();
  std::vector<int32_t> src(256);
  for (int i = 0; i < 256; ++i) src[static_cast<size_t>(i)] = me * 1000 + i;
  h::put_signal(data, src.data(), sizeof(int32_t) * 256, sig, 1, GSHMEM_SIGNAL_SET, right);
  const uint64_t seen = h::signal_wait_until(sig, GSHMEM_CMP_EQ, 1);
  CHECK(seen == 1, "signal %llu", (unsigned long long)seen);
  for (int i = 0; i < 256; ++i) CHECK(data[i] == left * 1000 + i, "put_signal data[%d] = %d", i, data[i]);
  // signal_op ADD from every PE on PE 0, then wait_until and test there.
  h::signal_op(sig + 1, 2, GSHMEM_SIGNAL_ADD, 0);
  if (me == 0) {
    h::wait_until<uint64_t>(sig + 1, GSHMEM_CMP_EQ, 2 * static_cast<uint64_t>(n));
    CHECK(h::test<uint64_t>(sig + 1, GSHMEM_CMP_GE, 2 * static_cast<uint64_t>(n)), "test after wait_until");
    CHECK(!h::test<uint64_t>(sig + 1, GSHMEM_CMP_GT, 2 * static_cast<uint64_t>(n)), "test of a false condition");
    CHECK(h::signal_fetch(sig + 1) == 2 * static_cast<uint64_t>(n), "signal_fetch");
  }
  h::barrier_all();
  h::free(sig);
  h::free(data);
  checks += 4;
}

void teams_and_collectives(int me, int n) {
  CHECK(h::team_my_pe(GSHMEM_TEAM_WORLD) == me && h::team_n_pes(GSHMEM_TEAM_WORLD) == n, "world");
  // The even PEs.
  int even = GSHMEM_TEAM_INVALID;
  CHECK(h::team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, gshmem::TeamConfig(), &even) == GSHMEM_SUCCESS,
        "split");
  CHECK((even != GSHMEM_TEAM_INVALID) == (me % 2 == 0), "membership of the even team");
  if (even != GSHMEM_TEAM_INVALID) {
    CHECK(h::team_my_pe(even) == me / 2, "index in the even team");
    CHECK(h::team_translate_pe(even, h::team_n_pes(even) - 1, GSHMEM_TEAM_WORLD) == 2 * (h::team_n_pes(even) - 1),
          "translate");
  }
  const size_t count = 16;
  auto* src = static_cast<int32_t*>(h::malloc(sizeof(int32_t) * count * static_cast<size_t>(n)));
  auto* dst = static_cast<int32_t*>(h::malloc(sizeof(int32_t) * count * static_cast<size_t>(n)));
  for (size_t i = 0; i < count * static_cast<size_t>(n); ++i) src[i] = me * 10000 + static_cast<int32_t>(i);
  h::barrier_all();
  CHECK(h::broadcast(GSHMEM_TEAM_WORLD, dst, src, count, n - 1) == GSHMEM_SUCCESS, "broadcast");
  for (size_t i = 0; i < count; ++i) CHECK(dst[i] == (n - 1) * 10000 + static_cast<int32_t>(i), "broadcast %zu", i);
  h::barrier_all();  // every PE has checked dst before it is written again
  CHECK(h::fcollect(GSHMEM_TEAM_WORLD, dst, src, count) == GSHMEM_SUCCESS, "fcollect");
  for (int pe = 0; pe < n; ++pe) {
    for (size_t i = 0; i < count; ++i) {
      CHECK(dst[static_cast<size_t>(pe) * count + i] == pe * 10000 + static_cast<int32_t>(i), "fcollect");
    }
  }
  h::barrier_all();  // every PE has checked dst before it is written again
  CHECK(h::alltoall(GSHMEM_TEAM_WORLD, dst, src, count) == GSHMEM_SUCCESS, "alltoall");
  for (int pe = 0; pe < n; ++pe) {
    for (size_t i = 0; i < count; ++i) {
      const int32_t want = pe * 10000 + static_cast<int32_t>(static_cast<size_t>(me) * count + i);
      CHECK(dst[static_cast<size_t>(pe) * count + i] == want, "alltoall block %d element %zu: %d", pe, i,
            dst[static_cast<size_t>(pe) * count + i]);
    }
  }
  h::barrier_all();  // every PE has checked dst before it is written again
  CHECK(h::reduce(GSHMEM_TEAM_WORLD, gshmem::ReduceOp::kSum, dst, src, count) == GSHMEM_SUCCESS, "reduce");
  for (size_t i = 0; i < count; ++i) {
    const int32_t want = 10000 * n * (n - 1) / 2 + n * static_cast<int32_t>(i);
    CHECK(dst[i] == want, "sum %zu: %d, want %d", i, dst[i], want);
  }
  h::barrier_all();  // every PE has checked dst before it is written again
  CHECK(h::reducescatter(GSHMEM_TEAM_WORLD, gshmem::ReduceOp::kMax, dst, src, count) == GSHMEM_SUCCESS,
        "reducescatter");
  for (size_t i = 0; i < count; ++i) {
    const int32_t want = (n - 1) * 10000 + static_cast<int32_t>(static_cast<size_t>(me) * count + i);
    CHECK(dst[i] == want, "max block %zu: %d, want %d", i, dst[i], want);
  }
  CHECK(h::barrier(GSHMEM_TEAM_WORLD) == GSHMEM_SUCCESS && h::team_sync(GSHMEM_TEAM_WORLD) == GSHMEM_SUCCESS, "sync");
  // A collective cannot be non-blocking: an error, on every PE alike.
  CHECK(h::barrier(GSHMEM_TEAM_WORLD, h::kNbi) == GSHMEM_ERROR_INVALID_VALUE, "nbi barrier refused");
  if (even != GSHMEM_TEAM_INVALID) CHECK(h::team_destroy(even) == GSHMEM_SUCCESS, "destroy");
  h::barrier_all();
  h::free(dst);
  h::free(src);
  checks += 8;
}

}  // namespace

int main(int argc, char** argv) {
  CHECK(h::init() == GSHMEM_SUCCESS, "init");
  const int me = h::my_pe(), n = h::n_pes();
  CHECK(h::init_state() == 2, "state %d", h::init_state());
  if (argc > 1 && std::string(argv[1]) == "bad_pe") {
    auto* buf = static_cast<int*>(h::malloc(sizeof(int)));
    int v = 1;
    h::putmem(buf, &v, sizeof v, n + 5, h::kBlocking, "mybinding.put");
    std::printf("PE %d: bad_pe survived\n", me);
    return 0;
  }
  rma(me, n);
  atomics(me, n);
  signals_and_waits(me, n);
  teams_and_collectives(me, n);
  CHECK(h::finalize() == GSHMEM_SUCCESS, "finalize");
  if (me == 0) std::printf("mp_native: %d PEs, %d checks of the native host API passed\n", n, checks * n);
  return 0;
}
