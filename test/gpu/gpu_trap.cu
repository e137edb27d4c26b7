// Device calls given an invalid argument at run time (a kernel parameter, which the compiler cannot
// fold) end the kernel with a trap, after a message printed from the device:
//   gpu_trap signal-op   nvshmemx_signal_op with sig_op 3 (neither NVSHMEM_SIGNAL_SET nor _ADD)
//   gpu_trap wait-cmp    nvshmem_uint64_wait_until with comparison 42
//   gpu_trap net-reduce  (with NVSHMEM_DISABLE_P2P=1 and NVSHMEM_REDUCE_SCRATCH_SIZE=16)
//                        nvshmem_int_sum_reduce on NVSHMEM_TEAM_WORLD from a kernel, whose members are
//                        reached through the network, with a reduction scratch that holds no element per member
//   gpu_trap net-reduce-host  the same call from the host, on both PEs: an error, no kernel
// PE 0 runs the kernel; PE 1 waits in a barrier that PE 0 never joins (gshmrun stops it when PE 0
// fails). The ctest entries check the device message, PE 0's line saying the kernel ended with a CUDA
// error, and a nonzero exit. A kernel that returns or hangs, or a barrier that returns, prints FAIL.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "gpu_test.cuh"

namespace {

__global__ void signal_op_kernel(uint64_t* sig, int sig_op, int pe) { nvshmemx_signal_op(sig, 1, sig_op, pe); }

// The word is 0 and so is the value, so a wait that took 42 for a comparison that accepts equal
// values would return at once (and FAIL) rather than hang.
__global__ void wait_kernel(uint64_t* ivar, int cmp) { nvshmem_uint64_wait_until(ivar, cmp, 0); }

__global__ void reduce_kernel(int* dest, const int* source) {
  nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dest, source, 4);
}

}  // namespace

int main(int argc, char** argv) {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  const std::string mode = argc > 1 ? argv[1] : "";
  MP_CHECK(mode == "signal-op" || mode == "wait-cmp" || mode == "net-reduce" || mode == "net-reduce-host",
           "usage: gpu_trap signal-op|wait-cmp|net-reduce|net-reduce-host (got \"%s\")", mode.c_str());
  auto* word = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  int* buf = static_cast<int*>(nvshmem_calloc(8, sizeof(int)));
  MP_CHECK(word && buf, "nvshmem_calloc failed");
  gputest::sync_and_barrier();
  if (mode == "net-reduce-host") {
    const int rc = nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, buf + 4, buf, 4);
    if (rc == 0) {
      std::fprintf(stderr, "PE %d: FAIL: the host's nvshmem_int_sum_reduce returned 0 with a scratch too small\n", me);
      return 2;
    }
    std::printf("PE %d: the host's nvshmem_int_sum_reduce returned %d\n", me, rc);
    nvshmem_finalize();
    return 1;
  }
  if (me == 0) {
    std::string what;
    if (mode == "signal-op") {
      signal_op_kernel<<<1, 1>>>(word, 3, 1);
      what = "nvshmemx_signal_op with sig_op 3";
    } else if (mode == "wait-cmp") {
      wait_kernel<<<1, 1>>>(word, 42);
      what = "nvshmem_uint64_wait_until with comparison 42";
    } else {
      reduce_kernel<<<1, 1>>>(buf + 4, buf);
      what = "nvshmem_int_sum_reduce with a scratch too small";
    }
    CUDA_CHECK(cudaGetLastError());
    const auto start = std::chrono::steady_clock::now();
    cudaError_t e;
    while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
        std::fprintf(stderr, "PE 0: FAIL: the kernel calling %s has not ended after 30 s (no trap)\n", what.c_str());
        std::fflush(nullptr);
        std::_Exit(2);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (e == cudaSuccess) {
      std::fprintf(stderr, "PE 0: FAIL: the kernel calling %s returned instead of trapping\n", what.c_str());
      std::fflush(nullptr);
      std::_Exit(2);
    }
    cudaDeviceSynchronize();  // flushes the kernel's printf
    std::printf("PE 0: the kernel calling %s ended with a CUDA error: %s\n", what.c_str(), cudaGetErrorString(e));
    // Without exit handlers: the library's would use the broken context.
    std::fflush(nullptr);
    std::_Exit(1);
  }
  nvshmem_barrier_all();
  std::fprintf(stderr, "PE 1: FAIL: the barrier returned although PE 0 never joined it\n");
  return 2;
}
