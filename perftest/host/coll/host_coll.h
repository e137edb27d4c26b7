// What the host on-stream collective perftests share (barrier_on_stream, barrier_all_on_stream,
// sync_on_stream, sync_all_on_stream, broadcast_on_stream, fcollect_on_stream, alltoall_on_stream,
// reduction_on_stream, reducescatter_on_stream): start-up on any number of PEs with a GPU each, the
// stream, the timed loop of on-stream operations (plain or captured in a CUDA graph), the -d type
// (and -o op) dispatch, the data pattern and its check, and agreeing on the errors found.
//
// Timing: -w untimed operations on the stream, a barrier_all, then -n operations enqueued back to back
// on the stream with a CUDA event recorded before the first and after each one; sample i is the time
// between events i and i+1, so each operation's latency is measured on the GPU's timeline. With
// --cudagraph the -w + -n operations are captured into one CUDA graph, which is launched once untimed
// and then once between two events: the only sample is the mean, that time / (-w + -n).
// Each PE measures its own stream; PE 0 prints its own samples.
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "perftest.h"

#if !PERFTEST_HAVE_CUDA
#error "the host collective perftests order operations on CUDA streams: build them with CUDA (nvcc -x cu)"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

// A host collective perftest's state.
struct HostColl {
  const char *name = nullptr;
  PerftestOptions opts;
  int mype = 0;
  int npes = 1;
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> events;  // -n + 1 events: before the first operation and after each
  int *verdict = nullptr;           // symmetric int[npes]: PE p's error flag in slot p, on every PE
  int status = 0;                   // the first non-zero status an operation returned
};

// Starts the test: nvshmem_init, the options, a GPU on every PE (otherwise every PE ends with a
// message and status 1), the stream, the events and the error slots. Any number of PEs.
void host_coll_start(HostColl *t, int argc, char **argv, const char *name) {
  const bool have_gpu = perftest_init();
  t->name = name;
  perftest_parse_args(argc, argv, &t->opts);
  t->mype = nvshmem_my_pe();
  t->npes = nvshmem_n_pes();
  if (!have_gpu) {
    if (t->mype == 0) std::fprintf(stderr, "%s: this test orders operations on a CUDA stream: it needs a GPU\n", name);
    perftest_exit(1);
  }
  if (t->opts.bidir && t->mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  CUDA_CHECK(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
  t->events.resize(static_cast<size_t>(t->opts.iters) + 1);
  for (cudaEvent_t &e : t->events) CUDA_CHECK(cudaEventCreate(&e));
  t->verdict = static_cast<int *>(perftest_sym_alloc(name, static_cast<size_t>(t->npes) * sizeof(int)));
  nvshmem_barrier_all();
}

// Collective: frees what host_coll_start made and finalizes. Returns the exit status.
int host_coll_finish(HostColl *t, int errors) {
  nvshmem_barrier_all();
  nvshmem_free(t->verdict);
  for (cudaEvent_t e : t->events) CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaStreamDestroy(t->stream));
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
}

// Collective: `bytes` of zeroed symmetric memory (at least 16 bytes); ends the job on failure.
void *host_coll_alloc(const HostColl &t, size_t bytes) { return perftest_sym_alloc(t.name, bytes); }

// One measurement, collective: `op()` enqueues one operation on t.stream and returns its status.
// Returns this PE's samples in us (see the top of this file).
template <class Op>
std::vector<double> time_on_stream(HostColl &t, Op &&op) {
  const PerftestOptions &o = t.opts;
  auto issue = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const int rc = op();
      if (rc != 0 && t.status == 0) t.status = rc;
    }
  };
  std::vector<double> samples;
  if (o.use_graph) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(t.stream, cudaStreamCaptureModeThreadLocal));
    issue(o.warmup_iters + o.iters);
    CUDA_CHECK(cudaStreamEndCapture(t.stream, &graph));
    CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, t.stream));  // untimed: the upload and a first run
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    nvshmem_barrier_all();
    CUDA_CHECK(cudaEventRecord(t.events[0], t.stream));
    CUDA_CHECK(cudaGraphLaunch(exec, t.stream));
    CUDA_CHECK(cudaEventRecord(t.events[1], t.stream));
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t.events[0], t.events[1]));
    samples.push_back(static_cast<double>(ms) * 1e3 / (o.warmup_iters + o.iters));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
  } else {
    issue(o.warmup_iters);
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    nvshmem_barrier_all();
    CUDA_CHECK(cudaEventRecord(t.events[0], t.stream));
    for (int i = 0; i < o.iters; ++i) {
      issue(1);
      CUDA_CHECK(cudaEventRecord(t.events[static_cast<size_t>(i) + 1], t.stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    samples.resize(static_cast<size_t>(o.iters));
    for (int i = 0; i < o.iters; ++i) {
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, t.events[static_cast<size_t>(i)], t.events[static_cast<size_t>(i) + 1]));
      samples[static_cast<size_t>(i)] = static_cast<double>(ms) * 1e3;
    }
  }
  nvshmem_barrier_all();
  return samples;
}

// Whether no operation returned a non-zero status (prints a FAILED line otherwise, and clears it).
bool host_status_ok(HostColl &t, const char *what) {
  if (t.status == 0) return true;
  std::fprintf(stderr, "%s: FAILED: PE %d: %s returned %d\n", t.name, t.mype, what, t.status);
  t.status = 0;
  return false;
}

// Collective: every PE passes the errors it found; returns the number of PEs that found some, on
// every PE.
int host_total_errors(const HostColl &t, size_t mine) { return perftest_failed_pes(t.verdict, mine != 0); }

// ---- the synchronising operations (barrier_on_stream, barrier_all_on_stream, sync_on_stream,
// sync_all_on_stream) ------------------------------------------------------------------------------

// The whole program of a synchronising operation: `op(stream)` enqueues one and returns its status.
// Output: one basic table, job `job`, subjob "stream" (or "cudagraph" with --cudagraph), one row of
// size 1 whose value is the average latency in us. Any number of PEs, 1 included.
template <class Op>
int sync_on_stream_main(int argc, char **argv, const char *job, const char *api, Op &&op) {
  HostColl t;
  host_coll_start(&t, argc, argv, job);
  const std::vector<double> samples = time_on_stream(t, [&] { return op(t.stream); });
  double avg = 0.0, lo = 0.0, hi = 0.0;
  perftest_latency_stats(samples, &avg, &lo, &hi);
  const int errors = host_total_errors(t, host_status_ok(t, api) ? 0 : 1);
  if (errors == 0) {
    const size_t size = 1;
    print_table_basic(job, t.opts.use_graph ? "cudagraph" : "stream", "latency", "us", '-', &size, &avg, 1);
  }
  return host_coll_finish(&t, errors);
}

// ---- the typed data collectives (broadcast_on_stream, fcollect_on_stream, alltoall_on_stream,
// reduction_on_stream, reducescatter_on_stream; their kinds are perftest.h's PerftestColl) ---------

constexpr int kRoot = 0;  // the broadcasts' root

// Element values that every type holds exactly (2-byte floating point included): 1 .. 256.
template <class T>
T make_value(unsigned v) {
  return static_cast<T>(static_cast<float>(v));
}
template <class T>
double as_double(T x) {
  return static_cast<double>(static_cast<float>(x));
}

// Element i of PE pe's source buffer (whatever nelems is, so one fill serves every size), of a
// collective that does not reduce.
template <class T>
T source_value(int pe, size_t i) {
  return make_value<T>(static_cast<unsigned>(((static_cast<size_t>(pe) * 131u + i) & 0xff) + 1));
}

// Element i of PE pe's source buffer of a collective of kind `kind` (a reduction's of the -o op).
template <class T>
T host_source(const HostColl &t, int kind, int pe, size_t i) {
  if (!perftest_is_reduction(kind)) return source_value<T>(pe, i);
  return make_value<T>(static_cast<unsigned>(perftest_reduce_source(perftest_reduce_op(t.opts), pe, t.npes, i)));
}

// The elements per PE of each size: bytes / sizeof(T) for broadcast and reduce, bytes / (npes *
// sizeof(T)) for fcollect, alltoall and reducescatter, at least 1; a count the previous size gave
// already is not repeated.
template <class T>
std::vector<size_t> host_coll_counts(const HostColl &t, int kind) {
  const size_t per = sizeof(T) * perftest_size_blocks(kind, t.npes);
  std::vector<size_t> counts;
  for (size_t bytes : perftest_sizes(t.opts)) {
    size_t n = bytes / per;
    if (n == 0) n = 1;
    if (counts.empty() || counts.back() != n) counts.push_back(n);
  }
  return counts;
}

// The destination this PE expects after the operation of nelems elements.
template <class T>
std::vector<double> host_expected(const HostColl &t, int kind, size_t nelems) {
  std::vector<double> want;
  if (perftest_is_reduction(kind)) {
    const size_t offset = kind == kReducescatter ? static_cast<size_t>(t.mype) * nelems : 0;
    for (size_t j = 0; j < nelems; ++j) {
      // Through T, as the source values went (see make_value).
      const double v = perftest_reduce_expected(perftest_reduce_op(t.opts), t.npes, offset + j);
      want.push_back(as_double(make_value<T>(static_cast<unsigned>(v))));
    }
  } else if (kind == kBcast) {
    for (size_t j = 0; j < nelems; ++j) want.push_back(as_double(source_value<T>(kRoot, j)));
  } else {
    for (int pe = 0; pe < t.npes; ++pe) {
      const size_t offset = kind == kAlltoall ? static_cast<size_t>(t.mype) * nelems : 0;
      for (size_t j = 0; j < nelems; ++j) want.push_back(as_double(source_value<T>(pe, offset + j)));
    }
  }
  return want;
}

// The sweep of one type: `op(team, dest, src, nelems, stream)` enqueues one operation and returns
// its status. Output: one v2 table, job `job`, type -d (and, for a reduction, a redop column with
// -o), whose size column is NVSHMEM's collective size (nelems * sizeof(T), times the number of PEs
// for fcollect, alltoall and reducescatter). The data of the largest size is checked on every PE (a
// broadcast's root excepted). Returns the exit status.
template <class T, class Op>
int typed_coll_run(HostColl &t, int kind, const char *job, const char *api, Op &&op) {
  const std::vector<size_t> counts = host_coll_counts<T>(t, kind);
  const size_t max_n = counts.back();
  const size_t src_elems = max_n * perftest_src_blocks(kind, t.npes);
  const size_t dest_elems = max_n * perftest_dest_blocks(kind, t.npes);
  T *src = static_cast<T *>(host_coll_alloc(t, src_elems * sizeof(T)));
  T *dest = static_cast<T *>(host_coll_alloc(t, dest_elems * sizeof(T)));
  std::vector<T> fill(src_elems);
  for (size_t i = 0; i < src_elems; ++i) fill[i] = host_source<T>(t, kind, t.mype, i);
  CUDA_CHECK(cudaMemcpy(src, fill.data(), src_elems * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();

  nvshmem_team_t team = NVSHMEM_TEAM_WORLD;
  std::vector<size_t> sizes;
  std::vector<double> avg, lo, hi;
  for (size_t n : counts) {
    const std::vector<double> samples = time_on_stream(t, [&] { return op(team, dest, src, n, t.stream); });
    double a = 0.0, l = 0.0, h = 0.0;
    perftest_latency_stats(samples, &a, &l, &h);
    sizes.push_back(n * sizeof(T) * perftest_size_blocks(kind, t.npes));
    avg.push_back(a);
    lo.push_back(l);
    hi.push_back(h);
  }

  size_t bad = host_status_ok(t, api) ? 0 : 1;
  if (kind != kBcast || t.mype != kRoot) {
    const size_t n = counts.back();
    const size_t got_elems = n * perftest_dest_blocks(kind, t.npes);
    std::vector<T> got(got_elems);
    CUDA_CHECK(cudaMemcpy(got.data(), dest, got_elems * sizeof(T), cudaMemcpyDeviceToHost));
    const std::vector<double> want = host_expected<T>(t, kind, n);
    size_t wrong = 0, first = 0;
    for (size_t j = 0; j < got_elems; ++j) {
      if (as_double(got[j]) != want[j] && wrong++ == 0) first = j;
    }
    if (wrong != 0) {
      std::fprintf(stderr,
                   "%s: FAILED: PE %d: %zu of %zu elements wrong after %s of %zu elements; first at %zu: %g, "
                   "expected %g\n",
                   t.name, t.mype, wrong, got_elems, api, n, first, as_double(got[first]), want[first]);
    }
    bad += wrong;
  }
  const int errors = host_total_errors(t, bad);
  if (errors == 0) {
    const char *redop = perftest_is_reduction(kind) ? perftest_reduce_op_name(perftest_reduce_op(t.opts)) : nullptr;
    print_table_v2(job, t.opts.datatype.c_str(), redop, sizeof(T), perftest_busbw_factor(job, t.npes), sizes.data(),
                   avg.data(), lo.data(), hi.data(), static_cast<int>(sizes.size()));
  }
  nvshmem_barrier_all();
  nvshmem_free(dest);
  nvshmem_free(src);
  return errors;
}

// The -d types of the typed collectives: X(-d name, API type name, C type, reductions) (-d fp16 and
// bf16 are the API's half and bfloat16). Reductions: the ops NVSHMEM defines for the type: none
// (ptrdiff has no reduction), std (min, max, sum, prod) or bit (those and and, or, xor).
// clang-format off
#define PERFTEST_HOST_COLL_TYPES(X)                \
  X(int, int, int, std)                            \
  X(long, long, long, std)                         \
  X(longlong, longlong, long long, std)            \
  X(ulonglong, ulonglong, unsigned long long, bit) \
  X(size, size, size_t, bit)                       \
  X(ptrdiff, ptrdiff, ptrdiff_t, none)             \
  X(float, float, float, std)                      \
  X(double, double, double, std)                   \
  X(uint, uint, unsigned int, bit)                 \
  X(int32, int32, int32_t, bit)                    \
  X(uint32, uint32, uint32_t, bit)                 \
  X(int64, int64, int64_t, bit)                    \
  X(uint64, uint64, uint64_t, bit)                 \
  X(fp16, half, __half, std)                       \
  X(bf16, bfloat16, __nv_bfloat16, std)
// clang-format on

// The end of a typed program whose -d type has no case: a message from PE 0 and status 1 everywhere.
[[noreturn]] void host_coll_unsupported_type(const HostColl &t) {
  if (t.mype == 0) std::fprintf(stderr, "%s: -d %s is not supported by this test\n", t.name, t.opts.datatype.c_str());
  perftest_exit(1);
}

// ---- the reductions (reduction_on_stream, reducescatter_on_stream) --------------------------------

// The -d types whose reductions include and, or and xor, each after a space.
#define PERFTEST_BITWISE_NAME_none(DNAME)
#define PERFTEST_BITWISE_NAME_std(DNAME)
#define PERFTEST_BITWISE_NAME_bit(DNAME) " " #DNAME
#define PERFTEST_BITWISE_NAME(DNAME, API, T, RED) PERFTEST_BITWISE_NAME_##RED(DNAME)
constexpr const char kBitwiseTypes[] = "" PERFTEST_HOST_COLL_TYPES(PERFTEST_BITWISE_NAME);
#undef PERFTEST_BITWISE_NAME
#undef PERFTEST_BITWISE_NAME_bit
#undef PERFTEST_BITWISE_NAME_std
#undef PERFTEST_BITWISE_NAME_none

// The end of a reduction program whose -d type lacks the -o op (and, or and xor of a floating-point
// or signed int/long/longlong type, any op of ptrdiff: NVSHMEM defines none of them): a message from
// PE 0 and status 1 everywhere.
[[noreturn]] void host_reduce_unsupported_op(const HostColl &t) {
  if (t.mype == 0) {
    const PerftestReduceOp op = perftest_reduce_op(t.opts);
    const bool bitwise = op == PerftestReduceOp::kAnd || op == PerftestReduceOp::kOr || op == PerftestReduceOp::kXor;
    std::fprintf(stderr, "%s: -o %s is not defined for -d %s%s%s%s\n", t.name, t.opts.reduce_op.c_str(),
                 t.opts.datatype.c_str(), bitwise ? " (and, or and xor take -d" : "", bitwise ? kBitwiseTypes : "",
                 bitwise ? ")" : "");
  }
  perftest_exit(1);
}

// One -o case of a reduction program's main: the sweep of nvshmemx_<API>_<OP>_<COLL>_on_stream, the
// program's exit status, when -o names OP (COLL reduce with KIND kReduce, or reducescatter with
// kReducescatter).
#define PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, OP)                                                         \
  if (t.opts.reduce_op == #OP) {                                                                                \
    return host_coll_finish(                                                                                    \
        &t, typed_coll_run<T>(t, KIND, t.name, "nvshmemx_" #API "_" #OP "_" #COLL "_on_stream",                 \
                              [](nvshmem_team_t team, T *dest, const T *src, size_t nreduce, cudaStream_t s) {  \
                                return nvshmemx_##API##_##OP##_##COLL##_on_stream(team, dest, src, nreduce, s); \
                              }));                                                                              \
  }
// The -o cases of a type, by its reductions (see PERFTEST_HOST_COLL_TYPES).
// clang-format off
#define PERFTEST_HOST_REDUCE_OPS_none(COLL, KIND, API, T)
#define PERFTEST_HOST_REDUCE_OPS_std(COLL, KIND, API, T) \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, min)       \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, max)       \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, sum)       \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, prod)
#define PERFTEST_HOST_REDUCE_OPS_bit(COLL, KIND, API, T) \
  PERFTEST_HOST_REDUCE_OPS_std(COLL, KIND, API, T)       \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, and)       \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, or)        \
  PERFTEST_HOST_REDUCE_OP(COLL, KIND, API, T, xor)
// The -d case of a reduction program's main (whose HostColl is t), the X of PERFTEST_HOST_COLL_TYPES:
// runs the -o op, or ends the program when the type lacks it.
#define PERFTEST_HOST_REDUCE_CASE(COLL, KIND, DNAME, API, T, RED) \
  if (t.opts.datatype == #DNAME) {                                \
    PERFTEST_HOST_REDUCE_OPS_##RED(COLL, KIND, API, T)            \
    host_reduce_unsupported_op(t);                                \
  }
// clang-format on

}  // namespace
