// nvshmem_barrier_all: after it returns, every put issued before it by any PE is visible, and no
// PE has left it before every PE entered it. Also the _on_stream form.
// With --stop-hub (the CPU backend, under gshmrun, whose process serves the bootstrap's hub): PE 0 stops gshmrun
// (SIGSTOP) for the rounds and a reduction, and lets it go on after them: the barriers and collectives
// must not need the bootstrap (they hang otherwise).
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mp_test.h"

int main(int argc, char** argv) {
  const bool stop_hub = argc > 1 && std::strcmp(argv[1], "--stop-hub") == 0;
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  // Two banks: a PE at round k + 1 writes the other bank, so it cannot disturb a PE still
  // checking round k (which it can only pass once everybody finished round k).
  uint64_t* slots = static_cast<uint64_t*>(nvshmem_malloc(2 * npes * sizeof(uint64_t)));
  MP_CHECK(slots, "nvshmem_malloc failed");
  long* sum = static_cast<long*>(nvshmem_malloc(2 * sizeof(long)));
  MP_CHECK(sum, "nvshmem_malloc failed");
  nvshmem_barrier_all();
  if (stop_hub && me == 0) MP_CHECK(kill(getppid(), SIGSTOP) == 0, "cannot stop the launcher: %s", strerror(errno));
  const int rounds = 300;
  for (int r = 1; r <= rounds; ++r) {
    uint64_t* bank = slots + (r % 2) * npes;
    const uint64_t value = (static_cast<uint64_t>(r) << 16) | static_cast<uint64_t>(me);
    for (int pe = 0; pe < npes; ++pe) nvshmem_putmem_nbi(bank + me, &value, sizeof value, pe);
    if (r % 3 == 0) {
      nvshmemx_barrier_all_on_stream(0);
      mp::sync_default_stream();
    } else {
      nvshmem_barrier_all();
    }
    std::vector<uint64_t> got(npes);
    nvshmem_getmem(got.data(), bank, npes * sizeof(uint64_t), me);
    for (int pe = 0; pe < npes; ++pe) {
      const uint64_t want = (static_cast<uint64_t>(r) << 16) | static_cast<uint64_t>(pe);
      MP_CHECK(got[pe] == want, "round %d: slot of PE %d holds %llx, expected %llx", r, pe,
               static_cast<unsigned long long>(got[pe]), static_cast<unsigned long long>(want));
    }
  }
  if (stop_hub) {  // the CPU backend: the heap is host memory
    sum[0] = me + 1;
    MP_CHECK(nvshmem_long_sum_reduce(NVSHMEM_TEAM_WORLD, sum + 1, sum, 1) == 0, "the reduction failed");
    MP_CHECK(sum[1] == static_cast<long>(npes) * (npes + 1) / 2, "the sum is %ld", sum[1]);
  }
  nvshmem_barrier_all();
  if (stop_hub && me == 0) {
    MP_CHECK(kill(getppid(), SIGCONT) == 0, "cannot resume the launcher: %s", strerror(errno));
    std::printf("mp_barrier: the rounds and the reduction ran with the bootstrap's hub stopped\n");
  }
  nvshmem_free(sum);
  nvshmem_free(slots);
  if (me == 0) std::printf("mp_barrier: %d PEs, %d rounds\n", npes, rounds);
  nvshmem_finalize();
  return 0;
}
