// Built (not run) to show that the device API works from the installed package without -rdc.
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void ring(int* dst, const int* src, int n) {
  int peer = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  nvshmemx_int_put_block(dst, src, n, peer);
  if (threadIdx.x == 0) nvshmem_quiet();
}

int main() {
  nvshmem_init();
  int* buf = static_cast<int*>(nvshmem_malloc(1024 * sizeof(int)));
  if (buf) ring<<<1, 128>>>(buf, buf + 512, 512);
  nvshmem_finalize();
  return 0;
}
