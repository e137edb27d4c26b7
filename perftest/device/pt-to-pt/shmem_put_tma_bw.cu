// shmem_put_tma_bw (NVSHMEM 3.8): shmem_put_bw with every CTA lending shared memory and NVSHMEM_TMA_POLICY=ENABLE
// (unless the environment names a policy), so that the puts take the bulk-copy (TMA) path (see rma_bw.cuh).
#include "rma_bw.cuh"

int main(int argc, char **argv) { return rma_bw_main<true>(argc, argv, "shmem_put_tma_bw", true); }
