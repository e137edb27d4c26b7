// A device perftest in a build without CUDA: the program of that name (PERFTEST_NAME) still parses
// NVSHMEM's options (a wrong one is reported as such) and prints the options line, then says plainly
// that the test needs a GPU and ends with status 1, as the CUDA build does on a machine without one.
#include <cstdio>

#include "perftest.h"

int main(int argc, char **argv) {
  perftest_init();
  PerftestOptions opts;
  perftest_parse_args(argc, argv, &opts);
  if (nvshmem_my_pe() == 0) {
    std::fprintf(stderr,
                 "%s: this test needs a GPU on every PE (this gshmem was built without CUDA: build it where the "
                 "CUDA toolkit is installed, and run it where a GPU is)\n",
                 PERFTEST_NAME);
  }
  nvshmem_finalize();
  return 1;
}
