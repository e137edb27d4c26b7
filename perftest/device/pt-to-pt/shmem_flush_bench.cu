// shmem_flush_bench: latency of device-initiated puts completed by nvshmemx_flush (NVSHMEM 3.7: the source
// may be reused, arrival not promised) at thread, warp and block scope; compare shmem_put_latency, whose
// puts are completed by quiet (see rma_latency.cuh).
#include "rma_latency.cuh"

int main(int argc, char **argv) { return rma_latency_main<true, true>(argc, argv, "shmem_flush_bench"); }
