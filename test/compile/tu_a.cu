// Two translation units that both use the device API, linked into one program: each has its own
// copy of the device state, and both must be written (built with and without -rdc).
#include <nvshmem.h>

#include <cstdio>
#include <cstdlib>

void run_tu_b(int* out);  // tu_b.cu

__global__ void kernel_a(int* out) {
  out[0] = nvshmem_my_pe();
  out[1] = nvshmem_n_pes();
  out[2] = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
}

int main() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  nvshmem_init();
  cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % ndev);
  int* out = static_cast<int*>(nvshmem_malloc(8 * sizeof(int)));
  kernel_a<<<1, 1>>>(out);
  run_tu_b(out + 4);
  int host[8];
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("CUDA error\n");
    return 1;
  }
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  bool ok = host[0] == me && host[1] == n && host[4] == me && host[5] == n && host[2] == host[6];
  std::printf("PE %d: translation unit a sees PE %d of %d, b sees PE %d of %d: %s\n", me, host[0], host[1], host[4],
              host[5], ok ? "ok" : "WRONG");
  nvshmem_free(out);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
