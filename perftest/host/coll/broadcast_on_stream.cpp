// broadcast_on_stream: latency of nvshmemx_<T>_broadcast_on_stream from PE 0 on NVSHMEM_TEAM_WORLD,
// for the -d type [int] (see host_coll.h). Sizes -b .. -e: nelems = size / sizeof(T), at least 1.
// Output: a v2 table, job "broadcast_on_stream"; busbw = algbw.
#include "host_coll.h"

int main(int argc, char **argv) {
  HostColl t;
  host_coll_start(&t, argc, argv, "broadcast_on_stream");
#define PERFTEST_CASE(DNAME, API, T, RED)                                                                       \
  if (t.opts.datatype == #DNAME) {                                                                              \
    return host_coll_finish(                                                                                    \
        &t, typed_coll_run<T>(t, kBcast, "broadcast_on_stream", "nvshmemx_" #API "_broadcast_on_stream",        \
                              [](nvshmem_team_t team, T *dest, const T *src, size_t nelems, cudaStream_t s) {   \
                                return nvshmemx_##API##_broadcast_on_stream(team, dest, src, nelems, kRoot, s); \
                              }));                                                                              \
  }
  PERFTEST_HOST_COLL_TYPES(PERFTEST_CASE)
#undef PERFTEST_CASE
  host_coll_unsupported_type(t);
}
