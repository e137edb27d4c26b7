// What the device collective perftests share (barrier_latency, sync_latency, bcast_latency,
// fcollect_latency, alltoall_latency, reduction_latency, reducescatter_latency): start-up on any
// number of PEs with a GPU each, the stream and timing events, symmetric allocation, the collective
// launch of one CTA, the timing of a launch, the data pattern and its check, and agreeing on the
// errors found.
//
// Every test runs on NVSHMEM_TEAM_WORLD at three scopes, each a kernel of one CTA started with
// nvshmemx_collective_launch, whose threads call the operation once per iteration:
//  - thread: 1 thread calls the thread form (nvshmem_<op>);
//  - warp:   32 threads call the warp form (nvshmemx_<op>_warp);
//  - block:  -t threads call the block form (nvshmemx_<op>_block).
// -s thread|warp|block measures one scope only (default: all three). The thread and warp forms of the
// collectives that move data are measured only up to kSmallScopeMaxBytes per PE, as NVSHMEM limits
// them to small sizes.
//
// Timing is NVSHMEM's: an untimed launch of -w iterations, a barrier_all, then CUDA events recorded
// on the stream right before and after a launch of -n iterations; latency = its time / -n. Each PE
// measures its own launch; PE 0 prints its own.
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "perftest.h"

namespace {

constexpr int kScopeThread = 0, kScopeWarp = 1, kScopeBlock = 2;

// The largest payload per PE (bytes) measured at thread and warp scope.
constexpr size_t kSmallScopeMaxBytes = 16384;

// A device collective perftest's state.
struct CollTest {
  const char *name = nullptr;
  PerftestOptions opts;
  int mype = 0;
  int npes = 1;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  int *verdict = nullptr;  // symmetric int[npes]: PE p's error flag in slot p, on every PE
  int *status = nullptr;   // device int: a non-zero status returned by an operation in a kernel
};

// Starts the test: nvshmem_init, the options, a GPU on every PE (otherwise every PE ends with a
// message and status 1), the stream, the events and the error slots. Any number of PEs.
void coll_test_start(CollTest *t, int argc, char **argv, const char *name) {
  const bool have_gpu = perftest_init();
  t->name = name;
  perftest_parse_args(argc, argv, &t->opts);
  t->mype = nvshmem_my_pe();
  t->npes = nvshmem_n_pes();
  if (!have_gpu) {
    if (t->mype == 0) std::fprintf(stderr, "%s: this test needs a GPU on every PE\n", name);
    perftest_exit(1);
  }
  if (t->opts.bidir && t->mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  CUDA_CHECK(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&t->start));
  CUDA_CHECK(cudaEventCreate(&t->stop));
  t->verdict = static_cast<int *>(perftest_sym_alloc(name, static_cast<size_t>(t->npes) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&t->status, sizeof(int)));
  CUDA_CHECK(cudaMemset(t->status, 0, sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
}

// Collective: frees what coll_test_start made and finalizes. Returns the exit status.
int coll_test_finish(CollTest *t, int errors) {
  nvshmem_barrier_all();
  nvshmem_free(t->verdict);
  CUDA_CHECK(cudaFree(t->status));
  CUDA_CHECK(cudaEventDestroy(t->start));
  CUDA_CHECK(cudaEventDestroy(t->stop));
  CUDA_CHECK(cudaStreamDestroy(t->stream));
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
}

// Collective: `bytes` of zeroed symmetric memory (at least 16 bytes); ends the job on failure.
template <class T>
T *sym_alloc(const CollTest &t, size_t bytes) {
  return static_cast<T *>(perftest_sym_alloc(t.name, bytes));
}

const char *scope_label(int scope) { return scope == kScopeThread ? "thread" : scope == kScopeWarp ? "warp" : "block"; }

// Whether scope `scope` is measured: all of them unless -s names one.
bool scope_selected(const PerftestOptions &opts, int scope) {
  const PerftestScope s = scope == kScopeThread ? PerftestScope::kThread
                          : scope == kScopeWarp ? PerftestScope::kWarp
                                                : PerftestScope::kBlock;
  return opts.scope == PerftestScope::kAll || opts.scope == s;
}

// Threads of the CTA of a scope's kernel.
int scope_threads(const CollTest &t, int scope) {
  return scope == kScopeThread ? 1 : scope == kScopeWarp ? 32 : t.opts.threads_per_cta;
}

// nvshmemx_collective_launch of one CTA of `threads` threads on t.stream (every PE calls it); ends
// the job if the launch fails.
void collective_launch(const CollTest &t, const void *kernel, int threads, void **args) {
  const int rc = nvshmemx_collective_launch(kernel, dim3(1), dim3(threads), args, 0, t.stream);
  if (rc != 0) {
    std::fprintf(stderr, "%s: PE %d: nvshmemx_collective_launch of 1 x %d threads failed (status %d)\n", t.name, t.mype,
                 threads, rc);
    nvshmem_global_exit(1);
  }
}

// One measurement, collective: `launch(iters)` makes the collective launch of a kernel of `iters`
// iterations on t.stream. Returns this PE's latency of one iteration in us.
template <class Launch>
double time_iterations(const CollTest &t, Launch &&launch) {
  const PerftestOptions &o = t.opts;
  if (o.warmup_iters > 0) {
    launch(o.warmup_iters);
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
  }
  nvshmem_barrier_all();
  CUDA_CHECK(cudaEventRecord(t.start, t.stream));
  launch(o.iters);
  CUDA_CHECK(cudaEventRecord(t.stop, t.stream));
  CUDA_CHECK(cudaStreamSynchronize(t.stream));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
  nvshmem_barrier_all();
  return static_cast<double>(ms) * 1e3 / o.iters;
}

// Records a non-zero status an operation returned (the last one wins).
__device__ __forceinline__ void note_status(int *status, int rc) {
  if (rc != 0) *status = rc;
}

// Reads and clears the status the kernels recorded; prints a FAILED line if it is not 0. Returns
// whether it was 0.
bool status_ok(const CollTest &t, const char *what) {
  int rc = 0;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(&rc, t.status, sizeof(int), cudaMemcpyDeviceToHost));
  if (rc == 0) return true;
  std::fprintf(stderr, "%s: FAILED: PE %d: %s returned %d\n", t.name, t.mype, what, rc);
  CUDA_CHECK(cudaMemset(t.status, 0, sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  return false;
}

// Element j of the block that PE `from` sends to PE `to`: never 0 and exact in every type.
template <class T>
T coll_value(int from, int to, size_t j) {
  return static_cast<T>(((static_cast<size_t>(from) * 131u + static_cast<size_t>(to) * 29u + j) & 0x3fff) + 1);
}

// Copies n elements of this GPU's memory at `p` to the host.
template <class T>
std::vector<T> to_host(const T *p, size_t n) {
  std::vector<T> host(n);
  CUDA_CHECK(cudaDeviceSynchronize());
  if (n != 0) CUDA_CHECK(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Copies host data to n elements of this GPU's memory at `p` and waits.
template <class T>
void from_host(T *p, const std::vector<T> &host) {
  if (!host.empty()) CUDA_CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Compares `got` with `expected`; prints a FAILED line naming the first difference. Returns the
// number of wrong elements.
template <class T>
size_t compare(const CollTest &t, const char *what, const std::vector<T> &got, const std::vector<T> &expected) {
  size_t bad = 0, first = 0;
  for (size_t j = 0; j < got.size() && j < expected.size(); ++j) {
    if (!(got[j] == expected[j]) && bad++ == 0) first = j;
  }
  if (bad != 0) {
    std::fprintf(stderr, "%s: FAILED: PE %d: %zu of %zu elements wrong after %s; first at %zu: %g, expected %g\n",
                 t.name, t.mype, bad, got.size(), what, first, static_cast<double>(got[first]),
                 static_cast<double>(expected[first]));
  }
  return bad;
}

// Collective: every PE passes the errors it found; returns the number of PEs that found some, on
// every PE.
int total_errors(const CollTest &t, size_t mine) { return perftest_failed_pes(t.verdict, mine != 0); }

}  // namespace
