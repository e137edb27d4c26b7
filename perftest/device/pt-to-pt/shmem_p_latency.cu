// shmem_p_latency: latency of nvshmem_int_p + nvshmem_quiet from one CTA (see pg_latency.cuh).
#include "pg_latency.cuh"

int main(int argc, char **argv) { return pg_latency_main<true>(argc, argv, "shmem_p_latency"); }
