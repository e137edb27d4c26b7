// tile_allgather_latency: latency of the tile API's allgather (nvshmemx::tile_allgather, one-shot push) at warp,
// warpgroup and block scope, for half, bfloat16 and float tiles (see tile_coll.cuh).
#include "tile_coll.cuh"

int main(int argc, char **argv) { return tile_main<kTileAllgather>(argc, argv, "tile_allgather_latency"); }
