// shmem_put_bw: bandwidth of device-initiated puts between two PEs (see rma_bw.cuh).
#include "rma_bw.cuh"

int main(int argc, char **argv) { return rma_bw_main<true>(argc, argv, "shmem_put_bw"); }
