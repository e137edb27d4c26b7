// barrier_all_on_stream: latency of nvshmemx_barrier_all_on_stream (see host_coll.h).
// Output: a basic table, job "barrier_all_on_stream", latency in us.
#include "host_coll.h"

int main(int argc, char **argv) {
  return sync_on_stream_main(argc, argv, "barrier_all_on_stream", "nvshmemx_barrier_all_on_stream",
                             [](cudaStream_t stream) {
                               nvshmemx_barrier_all_on_stream(stream);
                               return 0;
                             });
}
