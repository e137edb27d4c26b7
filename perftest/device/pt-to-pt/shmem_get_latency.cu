// shmem_get_latency: latency of device-initiated gets + quiet at thread, warp and block scope (see
// rma_latency.cuh).
#include "rma_latency.cuh"

int main(int argc, char **argv) { return rma_latency_main<false>(argc, argv, "shmem_get_latency"); }
