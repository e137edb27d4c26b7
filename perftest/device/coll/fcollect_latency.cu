// fcollect_latency: latency of the device-side nvshmem_<T>_fcollect on NVSHMEM_TEAM_WORLD,
// for int32 and int64 elements at thread, warp and block scope (see data_coll.cuh).
#include "data_coll.cuh"

int main(int argc, char **argv) { return data_coll_main<kFcollect>(argc, argv, "fcollect_latency"); }
