// alltoall_on_stream: latency of nvshmemx_<T>_alltoall_on_stream on NVSHMEM_TEAM_WORLD, for the -d type
// [int] (see host_coll.h). Sizes -b .. -e: nelems = size / (npes * sizeof(T)), at least 1 (sent to each PE).
// Output: a v2 table, job "alltoall_on_stream", size = nelems * sizeof(T) * npes; busbw = algbw * (npes-1)/npes.
#include "host_coll.h"

int main(int argc, char **argv) {
  HostColl t;
  host_coll_start(&t, argc, argv, "alltoall_on_stream");
#define PERFTEST_CASE(DNAME, API, T, RED)                                                                     \
  if (t.opts.datatype == #DNAME) {                                                                            \
    return host_coll_finish(                                                                                  \
        &t, typed_coll_run<T>(t, kAlltoall, "alltoall_on_stream", "nvshmemx_" #API "_alltoall_on_stream",     \
                              [](nvshmem_team_t team, T *dest, const T *src, size_t nelems, cudaStream_t s) { \
                                return nvshmemx_##API##_alltoall_on_stream(team, dest, src, nelems, s);       \
                              }));                                                                            \
  }
  PERFTEST_HOST_COLL_TYPES(PERFTEST_CASE)
#undef PERFTEST_CASE
  host_coll_unsupported_type(t);
}
