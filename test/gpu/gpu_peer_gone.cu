// A PE that is gone ends the job even while the waiting PE is inside a kernel. PE 0 launches a
// kernel that spins in a device nvshmem_int_wait_until (case "wait") or in a device
// nvshmem_barrier_all (case "barrier") that PE 1 never satisfies, and waits for it in
// cudaDeviceSynchronize; PE 1 returns from main without nvshmem_finalize. PE 0's host side must end
// the process with a message naming PE 1: a kernel must not keep a PE alive. Reaching any line
// after the synchronisation is a failure.
#include <sys/time.h>
#include <unistd.h>

#include <string>

#include "gpu_test.cuh"

namespace {

__global__ void spin_in_wait(int* flag) { nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1); }
__global__ void spin_in_barrier() { nvshmem_barrier_all(); }

}  // namespace

int main(int argc, char** argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  MP_CHECK(c == "wait" || c == "barrier", "case: wait or barrier");
  int* flag = static_cast<int*>(nvshmem_calloc(1, sizeof(int)));
  MP_CHECK(flag, "nvshmem_calloc failed");
  nvshmem_barrier_all();
  if (me == 1) {
    usleep(500 * 1000);  // PE 0 is in its kernel by now
    timeval tv{};
    gettimeofday(&tv, nullptr);
    std::fprintf(stderr, "gpu_peer_gone: PE 1 ends at %lld ms\n",
                 static_cast<long long>(tv.tv_sec) * 1000 + tv.tv_usec / 1000);
    return 0;  // no nvshmem_finalize
  }
  if (c == "wait") {
    spin_in_wait<<<1, 1>>>(flag);
  } else {
    spin_in_barrier<<<1, 32>>>();
  }
  CUDA_CHECK(cudaGetLastError());
  cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "PE 0: FAIL: the kernel returned (%s) although PE 1 is gone\n", cudaGetErrorString(e));
  return 1;
}
