// reduction_latency: latency of the device-side nvshmem_<T>_<op>_reduce on NVSHMEM_TEAM_WORLD, for
// int32 and int64 elements, the ops sum, prod, and, or, xor, min and max, at thread, warp and block
// scope (see data_coll.cuh).
#include "data_coll.cuh"

int main(int argc, char **argv) { return data_coll_main<kReduce>(argc, argv, "reduction_latency"); }
