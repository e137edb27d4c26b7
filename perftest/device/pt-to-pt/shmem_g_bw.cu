// shmem_g_bw: bandwidth of nvshmem_<T>_g from -c CTAs x -t threads (see elem_bw.cuh).
#include "elem_bw.cuh"

int main(int argc, char **argv) { return elem_bw_main<ElemOp::kG>(argc, argv, "shmem_g_bw"); }
