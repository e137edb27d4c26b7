// shmem_g_latency: latency of nvshmem_int_g from one CTA (see pg_latency.cuh).
#include "pg_latency.cuh"

int main(int argc, char **argv) { return pg_latency_main<false>(argc, argv, "shmem_g_latency"); }
