// nvshmem_global_exit from a kernel: on PE 1, every thread of a kernel calls
// nvshmem_global_exit(7) (the first call wins; the others must not trap or hang) while PE 0 waits
// in a host barrier that PE 1 never joins. The job must end with exit status 7 (the ctest entry
// checks the status and gshmrun's message); reaching any line after the kernel or the barrier is a
// failure.
#include <cstdint>

#include "gpu_test.cuh"

namespace {

__global__ void exit_from_kernel(int status) { nvshmem_global_exit(status); }

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  int* x = static_cast<int*>(nvshmem_malloc(sizeof(int)));  // binds the GPU on both PEs
  MP_CHECK(x, "nvshmem_malloc failed");
  nvshmem_barrier_all();
  std::printf("PE %d: ready\n", me);
  std::fflush(stdout);
  if (me == 1) {
    exit_from_kernel<<<4, 64>>>(7);
    CUDA_CHECK(cudaGetLastError());
    cudaError_t e = cudaDeviceSynchronize();
    std::fprintf(stderr, "PE 1: FAIL: the kernel that called nvshmem_global_exit(7) returned (%s)\n",
                 cudaGetErrorString(e));
    return 1;
  }
  nvshmem_barrier_all();
  std::fprintf(stderr, "PE 0: FAIL: the barrier returned although PE 1 never joined it\n");
  return 1;
}
