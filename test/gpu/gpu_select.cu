// A program that never selects a GPU: init stops at "bootstrapped", the first nvshmem_malloc binds
// the GPU of the PE's node rank, and kernels then work. With more PEs than GPUs (CUDA_VISIBLE_DEVICES=0
// for every PE, the gpu_shared test) PEs share a GPU: the status is NVSHMEM_STATUS_LIMITED_MPG, puts
// between them work, and a collective launch is refused on every PE.
// With --init-attr the program names its GPU instead through nvshmemx_init_attr (NVSHMEM 3.5's
// args.cuda_device_id, the last GPU): init binds it at once, and kernels work.
#include <cstring>

#include "gpu_test.cuh"

__global__ void ring(int* buf) {
  int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  nvshmem_int_p(buf, 1000 + me, (me + 1) % n);
}

int init_attr_mode() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  attr.args.cuda_device_id = ndev - 1;
  const int rc = nvshmemx_init_attr(0, &attr);
  MP_CHECK(rc == 0, "nvshmemx_init_attr with cuda_device_id %d returned %d", ndev - 1, rc);
  const int status = nvshmemx_init_status();
  MP_CHECK(status == NVSHMEM_STATUS_IS_INITIALIZED || status == NVSHMEM_STATUS_LIMITED_MPG,
           "status %d after nvshmemx_init_attr named a GPU: it must be bound at once", status);
  int dev = -1;
  CUDA_CHECK(cudaGetDevice(&dev));
  MP_CHECK(dev == ndev - 1, "nvshmemx_init_attr named GPU %d, the current one is %d", ndev - 1, dev);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  int* buf = static_cast<int*>(nvshmem_malloc(sizeof(int)));
  MP_CHECK(buf != nullptr, "nvshmem_malloc failed");
  ring<<<1, 1>>>(buf);
  KERNEL_CHECK();
  nvshmem_barrier_all();
  int got = 0;
  CUDA_CHECK(cudaMemcpy(&got, buf, sizeof got, cudaMemcpyDeviceToHost));
  MP_CHECK(got == 1000 + (me + npes - 1) % npes, "ring value %d", got);
  std::printf("gpu_select: PE %d bound GPU %d named by nvshmemx_init_attr\n", me, dev);
  nvshmem_free(buf);
  nvshmem_finalize();
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--init-attr") == 0) return init_attr_mode();
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
  int ndev = 0, dev = -1;
  CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaGetDevice(&dev));
  const int node_rank = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  MP_CHECK(dev == node_rank % ndev, "bound GPU %d, expected %d (node rank %d of %d GPUs)", dev, node_rank % ndev,
           node_rank, ndev);
  const int status = nvshmemx_init_status();
  const bool shared = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE) > ndev;
  if (shared) {
    MP_CHECK(status == NVSHMEM_STATUS_LIMITED_MPG, "status %d after binding, with PEs sharing a GPU", status);
  } else {
    MP_CHECK(status == NVSHMEM_STATUS_IS_INITIALIZED, "status %d after binding", status);
  }
  ring<<<1, 1>>>(buf);
  KERNEL_CHECK();
  nvshmem_barrier_all();
  int got = 0;
  CUDA_CHECK(cudaMemcpy(&got, buf, sizeof got, cudaMemcpyDeviceToHost));
  MP_CHECK(got == 1000 + (me + npes - 1) % npes, "ring value %d", got);

  // The same ring as a collective launch: it runs everywhere; where PEs share the GPU (limited MPG) the
  // grids take turns on it, with a warning, and the ring still completes.
  CUDA_CHECK(cudaMemset(buf, 0, sizeof(int)));
  gputest::sync_and_barrier();
  void* args[] = {&buf};
  const int rc = nvshmemx_collective_launch(reinterpret_cast<const void*>(ring), 1, 1, args, 0, 0);
  MP_CHECK(rc == NVSHMEMX_SUCCESS, "collective launch returned %d", rc);
  KERNEL_CHECK();
  nvshmem_barrier_all();
  CUDA_CHECK(cudaMemcpy(&got, buf, sizeof got, cudaMemcpyDeviceToHost));
  MP_CHECK(got == 1000 + (me + npes - 1) % npes, "ring value %d after the collective launch", got);
  const char* how = status == NVSHMEM_STATUS_LIMITED_MPG ? "sharing it, limited MPG" : "its own";
  std::printf("gpu_select: PE %d bound GPU %d by its node rank (%s)\n", me, dev, how);
  nvshmem_free(buf);
  nvshmem_finalize();
  return 0;
}
