// sync_latency: latency of the device-side syncs, nvshmem_team_sync on NVSHMEM_TEAM_WORLD and
// nvshmem_sync_all, at thread, warp and block scope (see sync_common.cuh).
#include "sync_common.cuh"

int main(int argc, char **argv) { return sync_main<false>(argc, argv, "sync_latency"); }
