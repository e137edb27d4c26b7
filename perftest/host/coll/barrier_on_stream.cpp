// barrier_on_stream: latency of nvshmemx_barrier_on_stream on NVSHMEM_TEAM_WORLD (see host_coll.h).
// Output: a basic table, job "barrier_on_stream", latency in us.
#include "host_coll.h"

int main(int argc, char **argv) {
  return sync_on_stream_main(argc, argv, "barrier_on_stream", "nvshmemx_barrier_on_stream", [](cudaStream_t stream) {
    return nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, stream);
  });
}
