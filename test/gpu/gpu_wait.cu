// gpu_wait: every wait and test function of the device API for every wait type and comparison
// (the test is described and written in gpu_wait.cuh; its parts, gpu_wait_part.cuh, run the types).
// This unit allocates what the parts share and runs them in turn.
#include "gpu_wait.cuh"

size_t gpu_wait_plans_bytes() { return kNumCmps * kPhases * sizeof(Plan<uint64_t>); }
size_t gpu_wait_results_bytes() { return kNumCmps * kPhases * sizeof(Result); }

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  GpuWaitShared sh;
  sh.iv = nvshmem_malloc(kN * sizeof(uint64_t));
  sh.ready = static_cast<uint64_t*>(nvshmem_malloc(sizeof(uint64_t)));
  sh.done = static_cast<uint64_t*>(nvshmem_malloc(sizeof(uint64_t)));
  MP_CHECK(sh.iv && sh.ready && sh.done, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMalloc(&sh.plans, gpu_wait_plans_bytes()));
  CUDA_CHECK(cudaMalloc(&sh.results, gpu_wait_results_bytes()));
  {
    gputest::Progress progress;
    sh.progress = &progress;
    for (auto part : {gpu_wait_part0, gpu_wait_part1, gpu_wait_part2, gpu_wait_part3}) part(sh);
    gputest::sync_and_barrier();
  }
  CUDA_CHECK(cudaFree(sh.plans));
  CUDA_CHECK(cudaFree(sh.results));
  nvshmem_free(sh.done);
  nvshmem_free(sh.ready);
  nvshmem_free(sh.iv);
  if (nvshmem_my_pe() == 0) std::printf("gpu_wait: every check passed on 2 PEs\n");
  nvshmem_finalize();
  return 0;
}
