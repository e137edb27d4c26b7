// reducescatter_on_stream: latency of nvshmemx_<T>_<op>_reducescatter_on_stream on NVSHMEM_TEAM_WORLD,
// for the -d type [int] and the -o op [sum] (see host_coll.h); an op NVSHMEM does not define for the
// type (and, or, xor of a floating-point or signed int type) ends it with a message and status 1.
// Sizes -b .. -e: nreduce = size / (npes * sizeof(T)), at least 1 (the source holds nreduce elements
// for each PE; PE p receives the reduction of the PEs' blocks p).
// Output: a v2 table with a redop column, job "reducescatter_on_stream", size = nreduce * sizeof(T) *
// npes; busbw = algbw * (npes-1)/npes.
#include "host_coll.h"

int main(int argc, char **argv) {
  HostColl t;
  host_coll_start(&t, argc, argv, "reducescatter_on_stream");
#define PERFTEST_CASE(DNAME, API, T, RED) PERFTEST_HOST_REDUCE_CASE(reducescatter, kReducescatter, DNAME, API, T, RED)
  PERFTEST_HOST_COLL_TYPES(PERFTEST_CASE)
#undef PERFTEST_CASE
  host_coll_unsupported_type(t);
}
