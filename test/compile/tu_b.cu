#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void kernel_b(int* out) {
  out[0] = nvshmem_my_pe();
  out[1] = nvshmem_n_pes();
  out[2] = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
}

void run_tu_b(int* out) { kernel_b<<<1, 1>>>(out); }
