// shmem_get_bw: bandwidth of device-initiated gets between two PEs (see rma_bw.cuh).
#include "rma_bw.cuh"

int main(int argc, char **argv) { return rma_bw_main<false>(argc, argv, "shmem_get_bw"); }
