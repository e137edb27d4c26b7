// What the device point-to-point perftests share: start-up on exactly 2 PEs with a GPU each, a
// stream and two events for timing a launch, symmetric allocation, the data pattern and its check,
// and agreeing on the errors found.
//
// Timing is NVSHMEM's: CUDA events recorded on the stream right before and after one kernel launch
// that loops over the iterations (an untimed launch of -w iterations comes first).
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perftest.h"

namespace {

// A device perftest's state: the options, who is who, the stream and the timing events.
struct DeviceTest {
  const char *name = nullptr;
  PerftestOptions opts;
  int mype = 0;
  int peer = 1;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  int *verdict = nullptr;  // symmetric int[2]: each PE's error count, written to both PEs
};

// Starts the test: nvshmem_init, the options, exactly 2 PEs, a GPU on every PE (otherwise every PE
// ends with a message and status 1), the stream and the events.
void device_test_start(DeviceTest *t, int argc, char **argv, const char *name) {
  const bool have_gpu = perftest_init();
  t->name = name;
  perftest_parse_args(argc, argv, &t->opts);
  perftest_require_npes(2, name);
  t->mype = nvshmem_my_pe();
  t->peer = 1 - t->mype;
  if (!have_gpu) {
    if (t->mype == 0) std::fprintf(stderr, "%s: this test needs a GPU on every PE\n", name);
    nvshmem_finalize();
    std::exit(1);
  }
  CUDA_CHECK(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&t->start));
  CUDA_CHECK(cudaEventCreate(&t->stop));
  t->verdict = static_cast<int *>(perftest_sym_alloc(name, 2 * sizeof(int)));
  nvshmem_barrier_all();
}

// Collective: frees what device_test_start made and finalizes. Returns the exit status.
int device_test_finish(DeviceTest *t, int errors) {
  nvshmem_barrier_all();
  nvshmem_free(t->verdict);
  CUDA_CHECK(cudaEventDestroy(t->start));
  CUDA_CHECK(cudaEventDestroy(t->stop));
  CUDA_CHECK(cudaStreamDestroy(t->stream));
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
}

// Collective: `bytes` of zeroed symmetric memory (at least 16 bytes); ends the job on failure.
template <class T>
T *sym_alloc(const DeviceTest &t, size_t bytes) {
  return static_cast<T *>(perftest_sym_alloc(t.name, bytes));
}

// Runs `launch` (which enqueues one kernel on t.stream) between the two events and waits for it;
// returns the milliseconds between the events.
template <class Launch>
float time_launch(const DeviceTest &t, Launch &&launch) {
  CUDA_CHECK(cudaEventRecord(t.start, t.stream));
  launch();
  CUDA_CHECK(cudaEventRecord(t.stop, t.stream));
  CUDA_CHECK(cudaStreamSynchronize(t.stream));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
  return ms;
}

// Element j of the data every test moves: never 0, exact in every type (also uint8_t and float), and
// cheap to compute (the bandwidth kernels compute it per element).
template <class T>
__host__ __device__ __forceinline__ T pattern_value(size_t j) {
  return static_cast<T>((j & 127) + 1);
}

template <class T>
__global__ void fill_pattern(T *p, size_t n) {
  for (size_t j = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[j] = pattern_value<T>(j);
  }
}

// Fills n elements of this GPU's memory at `p` with the pattern and waits for it.
template <class T>
void fill_pattern_sync(T *p, size_t n) {
  if (n == 0) return;
  fill_pattern<T><<<256, 256>>>(p, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Compares n elements of this GPU's memory at `p` with the pattern; prints a FAILED line naming the
// first difference. Returns the number of wrong elements.
template <class T>
size_t check_pattern(const DeviceTest &t, const char *what, const T *p, size_t n) {
  if (n == 0) return 0;
  std::vector<T> host(n);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  size_t bad = 0, first = 0;
  for (size_t j = 0; j < n; ++j) {
    if (!(host[j] == pattern_value<T>(j)) && bad++ == 0) first = j;
  }
  if (bad != 0) {
    std::fprintf(stderr, "%s: FAILED: PE %d: %zu of %zu elements wrong after %s; first at %zu: %g, expected %g\n",
                 t.name, t.mype, bad, n, what, first, static_cast<double>(host[first]),
                 static_cast<double>(pattern_value<T>(first)));
  }
  return bad;
}

// Collective: every PE passes the errors it found; returns the total on every PE.
int total_errors(const DeviceTest &t, size_t mine) {
  const int v = mine != 0 ? 1 : 0;
  nvshmem_int_p(t.verdict + t.mype, v, 0);
  nvshmem_int_p(t.verdict + t.mype, v, 1);
  nvshmem_barrier_all();  // includes quiet: both values have arrived
  return nvshmem_int_g(t.verdict, t.mype) + nvshmem_int_g(t.verdict + 1, t.mype);
}

// The sizes of the sweep with at least one element of `elem` bytes (smaller ones move nothing).
std::vector<size_t> element_sizes(const PerftestOptions &opts, size_t elem) {
  std::vector<size_t> sizes;
  for (size_t s : perftest_sizes(opts)) {
    if (s >= elem) sizes.push_back(s);
  }
  return sizes;
}

// Whether scope `s` is measured: all of them unless -s names one.
bool scope_selected(const PerftestOptions &opts, PerftestScope s) {
  return opts.scope == PerftestScope::kAll || opts.scope == s;
}

// A compiler-only barrier: keeps the compiler from merging the memory operations of consecutive
// iterations (they write the same values to the same places). It emits no instruction.
__device__ __forceinline__ void compiler_barrier() { asm volatile("" ::: "memory"); }

}  // namespace
