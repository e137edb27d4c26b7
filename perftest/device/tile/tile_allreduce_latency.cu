// tile_allreduce_latency: latency of the tile API's all-reduce (nvshmemx::tile_sum_reduce, one-shot pull and
// two-shot push) at warp, warpgroup and block scope, for half, bfloat16 and float tiles (see tile_coll.cuh).
#include "tile_coll.cuh"

int main(int argc, char **argv) { return tile_main<kTileAllreducePull>(argc, argv, "tile_allreduce_latency"); }
