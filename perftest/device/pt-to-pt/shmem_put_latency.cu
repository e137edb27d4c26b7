// shmem_put_latency: latency of device-initiated puts + quiet at thread, warp and block scope (see
// rma_latency.cuh).
#include "rma_latency.cuh"

int main(int argc, char **argv) { return rma_latency_main<true>(argc, argv, "shmem_put_latency"); }
