// What the device ping-pong perftests share (shmem_p_, shmem_put_, shmem_put_signal_,
// shmem_signal_ and shmem_atomic_ping_pong_latency).
//
// Both PEs run the same kernel, started with nvshmemx_collective_launch so that both run at once. In
// round k (k = 1, 2, ... counted over the whole program, the same on both PEs) PE 0 sends, then waits
// for PE 1's answer; PE 1 waits for PE 0's message, then answers. A message ends with a flag update
// that carries k, so that the flags only grow and nothing is reset between launches. The reported
// latency is that of a whole round trip: PE 0's time of the launch / -n, timed with CUDA events around
// the launch after an untimed launch of -w rounds.
#pragma once

#include "device_common.cuh"

namespace {

// nvshmemx_collective_launch of one CTA of `threads` threads on t.stream (every PE calls it); ends
// the job if the launch fails.
void collective_launch(const DeviceTest &t, const void *kernel, int threads, void **args) {
  const int rc = nvshmemx_collective_launch(kernel, dim3(1), dim3(threads), args, 0, t.stream);
  if (rc != 0) {
    std::fprintf(stderr, "%s: PE %d: nvshmemx_collective_launch of 1 x %d threads failed (status %d)\n", t.name, t.mype,
                 threads, rc);
    nvshmem_global_exit(1);
  }
}

// One measurement: `launch(rounds, base)` makes the collective launch of `rounds` rounds numbered
// base + 1 ... base + rounds on t.stream (on every PE). `round` counts the rounds made so far. Returns
// the latency of a round trip in us on PE 0, 0 on PE 1.
template <class Launch>
double ping_pong_measure(const DeviceTest &t, unsigned long long *round, Launch &&launch) {
  const PerftestOptions &o = t.opts;
  if (o.warmup_iters > 0) {
    launch(o.warmup_iters, *round);
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    *round += static_cast<unsigned long long>(o.warmup_iters);
  }
  nvshmem_barrier_all();
  double latency_us = 0.0;
  if (t.mype == 0) {
    const float ms = time_launch(t, [&] { launch(o.iters, *round); });
    latency_us = ms * 1e3 / o.iters;
  } else {
    launch(o.iters, *round);
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
  }
  *round += static_cast<unsigned long long>(o.iters);
  nvshmem_barrier_all();
  return latency_us;
}

// The data of the tests that carry some: each PE sends the pattern (from `src`, symmetric) into the
// other's symmetric `dest`; after a sweep both PEs check what they received.
struct PingPongData {
  int *dest = nullptr;
  int *src = nullptr;
  size_t max_elems = 0;

  void alloc(const DeviceTest &t) {
    max_elems = t.opts.max_size / sizeof(int);
    dest = sym_alloc<int>(t, max_elems * sizeof(int));
    src = sym_alloc<int>(t, max_elems * sizeof(int));
    fill_pattern_sync(src, max_elems);
    nvshmem_barrier_all();
  }
  // Collective: both PEs clear what they receive.
  void clear(const DeviceTest &) const {
    CUDA_CHECK(cudaMemset(dest, 0, max_elems * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
  }
  // Collective: both PEs check the first n ints they received; returns the errors of both.
  int check(const DeviceTest &t, const char *what, size_t n) const {
    return total_errors(t, check_pattern(t, what, dest, n));
  }
  void release() {
    nvshmem_barrier_all();
    nvshmem_free(src);
    nvshmem_free(dest);
  }
};

}  // namespace
