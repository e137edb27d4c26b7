// sync_on_stream: latency of nvshmemx_team_sync_on_stream on NVSHMEM_TEAM_WORLD (see host_coll.h).
// Output: a basic table, job "sync_on_stream", latency in us.
#include "host_coll.h"

int main(int argc, char **argv) {
  return sync_on_stream_main(argc, argv, "sync_on_stream", "nvshmemx_team_sync_on_stream", [](cudaStream_t stream) {
    return nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, stream);
  });
}
