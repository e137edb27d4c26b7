// A PE that is gone, or never arrives, must end the job: one fault per run (argv[1]), under any
// launcher. The victim is the last PE; it prints "mp_faults: PE V ends at T ms" (T: wall clock)
// just before it ends, so that the test driver can tell how long the others took to stop. The
// others go into the call the case names and must never come back from it: if they do, they print
// "survived" and exit 0, which fails the test (it expects a non-zero status and no "survived").
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "mp_test.h"

namespace {

void announce_end(int me) {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  const long long ms = static_cast<long long>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
  std::fprintf(stderr, "mp_faults: PE %d ends at %lld ms\n", me, ms);
  std::fflush(nullptr);
}

// Long enough for the survivors to be deep in their call when the victim goes.
void settle() { usleep(300 * 1000); }

constexpr size_t kPutBytes = 1 << 16;

}  // namespace

int main(int argc, char** argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int victim = npes - 1;
  int* flag = static_cast<int*>(nvshmem_calloc(1, sizeof(int)));
  int* gathered = static_cast<int*>(nvshmem_calloc(static_cast<size_t>(npes) + 1, sizeof(int)));
  char* data = static_cast<char*>(nvshmem_malloc(kPutBytes));
  nvshmem_barrier_all();

  if (me == victim) {
    settle();
    if (c == "skip_barrier" || c == "skip_fcollect") {
      // Skips the first barrier (its finalize pairs with the others' first barrier), or the
      // fcollect, then leaves.
      announce_end(me);
      nvshmem_finalize();
      return 0;
    }
    if (c == "hang") {  // alive, but never arrives (GSHMEM_WAIT_TIMEOUT ends the job)
      announce_end(me);
      while (true) sleep(1);
    }
    if (c == "stopped_fetch" || c == "stopped_quiet") {
      // Alive, but stopped (SIGSTOP): across the network its progress never answers, and the network
      // library sees nothing wrong with the connection.
      announce_end(me);
      raise(SIGSTOP);
      while (true) sleep(1);
    }
    announce_end(me);
    if (c == "sigkill" || c == "sigkill_put") raise(SIGKILL);
    if (c == "crash") {
      volatile int* null = nullptr;
      *null = 1;
    }
    if (c == "exit3_wait") std::exit(3);
    // exit0_*: a return from main without nvshmem_finalize (a forgotten finalize, an early return).
    return 0;
  }

  if (c == "exit0_barrier" || c == "sigkill" || c == "crash" || c == "hang") {
    nvshmem_barrier_all();
  } else if (c == "exit0_wait" || c == "exit3_wait") {
    nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1);
  } else if (c == "exit0_malloc") {
    (void)nvshmem_malloc(1 << 20);  // its first step waits for every PE, the victim included
  } else if (c == "exit0_finalize") {
    nvshmem_finalize();
  } else if (c == "sigkill_put") {
    // Puts to the victim until the job ends: across the network transport, the connection to it fails
    // while operations to it are in flight.
    while (true) {
      nvshmem_putmem(data, data, kPutBytes, victim);
      nvshmem_quiet();
    }
  } else if (c == "stopped_fetch") {
    settle();
    settle();                                             // the victim is stopped by now
    (void)nvshmem_int_atomic_fetch_add(flag, 1, victim);  // its answer never comes
  } else if (c == "stopped_quiet") {
    settle();
    settle();
    // A put, then its remote completion (UCP over TCP waits for the target to acknowledge it), and the
    // atomics that need the target's answer.
    nvshmem_putmem(data, data, kPutBytes, victim);
    nvshmem_int_atomic_add(flag, 1, victim);
    nvshmem_quiet();
  } else if (c == "skip_barrier") {
    nvshmem_barrier_all();  // paired with the victim's finalize
    nvshmem_barrier_all();  // can never complete
  } else if (c == "skip_fcollect") {
    nvshmem_barrier_all();  // paired with the victim's finalize
    // Can never complete: the victim's part never comes (a small message: flag-in-data packets).
    nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, gathered + 1, gathered, 1);
  } else {
    std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
    return 2;
  }
  std::printf("mp_faults: PE %d survived case %s\n", me, c.c_str());
  return 0;
}
