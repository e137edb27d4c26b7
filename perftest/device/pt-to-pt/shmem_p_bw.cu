// shmem_p_bw: bandwidth of nvshmem_<T>_p from -c CTAs x -t threads (see elem_bw.cuh).
#include "elem_bw.cuh"

int main(int argc, char **argv) { return elem_bw_main<ElemOp::kP>(argc, argv, "shmem_p_bw"); }
