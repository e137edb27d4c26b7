// barrier_latency: latency of the device-side barriers, nvshmem_barrier on NVSHMEM_TEAM_WORLD and
// nvshmem_barrier_all, at thread, warp and block scope (see sync_common.cuh).
#include "sync_common.cuh"

int main(int argc, char **argv) { return sync_main<true>(argc, argv, "barrier_latency"); }
