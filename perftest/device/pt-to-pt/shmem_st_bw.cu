// shmem_st_bw: bandwidth of plain stores to the peer through nvshmem_ptr from -c CTAs x -t threads
// (see elem_bw.cuh).
#include "elem_bw.cuh"

int main(int argc, char **argv) { return elem_bw_main<ElemOp::kSt>(argc, argv, "shmem_st_bw"); }
