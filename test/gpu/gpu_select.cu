// A program that never selects a GPU: init stops at "bootstrapped", the first nvshmem_malloc binds
// the GPU of the PE's node rank, and kernels then work. With CUDA_VISIBLE_DEVICES=0 for every PE,
// two PEs share one GPU, which is an error that says so (the err_same_gpu test).
#include "gpu_test.cuh"

__global__ void ring(int* buf) {
  int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  nvshmem_int_p(buf, 1000 + me, (me + 1) % n);
}

int main() {
  nvshmem_init();  // no CUDA call before: no GPU is selected
  if (nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED) {
    // Only the CPU backend finishes init here: there is no GPU.
    std::printf("no usable GPU: skipped\n");
    nvshmem_finalize();
    return 77;
  }
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  MP_CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_BOOTSTRAPPED, "status %d before the GPU is bound",
           nvshmemx_init_status());
  int* buf = static_cast<int*>(nvshmem_malloc(sizeof(int)));
  MP_CHECK(buf != nullptr, "the first nvshmem_malloc must bind a GPU");
  MP_CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED, "status after binding");
  int ndev = 0, dev = -1;
  CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaGetDevice(&dev));
  const int node_rank = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  MP_CHECK(dev == node_rank % ndev, "bound GPU %d, expected %d (node rank %d of %d GPUs)", dev, node_rank % ndev,
           node_rank, ndev);
  ring<<<1, 1>>>(buf);
  KERNEL_CHECK();
  nvshmem_barrier_all();
  int got = 0;
  CUDA_CHECK(cudaMemcpy(&got, buf, sizeof got, cudaMemcpyDeviceToHost));
  MP_CHECK(got == 1000 + (me + npes - 1) % npes, "ring value %d", got);
  std::printf("gpu_select: PE %d bound GPU %d by its node rank\n", me, dev);
  nvshmem_free(buf);
  nvshmem_finalize();
  return 0;
}
