// The device latency perftests of single elements, shmem_p_latency and shmem_g_latency, written once
// for both.
//
// One CTA of -t threads on PE 0; each iteration moves the message (size / 4 ints) element by element,
// thread k taking elements k, k + t, ...:
//  - p: nvshmem_int_p of each element into PE 1's buffer, then the CTA synchronises, one thread calls
//    nvshmem_quiet() (the stores are complete at PE 1) and the CTA synchronises again;
//  - g: each element is read with nvshmem_int_g from PE 1 and stored into a local buffer. The store
//    needs the value, so a thread's gets of one iteration follow each other, each a round trip.
// Latency (us) = time of the launch / -n, timed with CUDA events after an untimed launch of -w
// iterations. PE 1 takes no part but the barriers. Output: basic table "shmem_p_latency" /
// "shmem_g_latency", scope "thread", latency in us. The data of the largest size is checked.
#pragma once

#include "device_common.cuh"

namespace {

template <bool P>
__global__ void pg_latency_kernel(int *sym, int *local, size_t nelems, int peer, int iters) {
  for (int i = 0; i < iters; ++i) {
    for (size_t j = threadIdx.x; j < nelems; j += blockDim.x) {
      if constexpr (P) {
        nvshmem_int_p(sym + j, pattern_value<int>(j), peer);
      } else {
        local[j] = nvshmem_int_g(sym + j, peer);
      }
    }
    if constexpr (P) {
      __syncthreads();
      if (threadIdx.x == 0) nvshmem_quiet();
      __syncthreads();
    }
    compiler_barrier();
  }
}

template <bool P>
int pg_latency_main(int argc, char **argv, const char *name) {
  DeviceTest t;
  device_test_start(&t, argc, argv, name);
  const PerftestOptions &o = t.opts;
  if (o.bidir && t.mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  const size_t max_elems = o.max_size / sizeof(int);
  int *sym = sym_alloc<int>(t, max_elems * sizeof(int));
  int *local = nullptr;
  CUDA_CHECK(cudaMalloc(&local, max_elems * sizeof(int) + sizeof(int)));
  CUDA_CHECK(cudaMemset(local, 0, max_elems * sizeof(int) + sizeof(int)));
  if (!P && t.mype == 1) fill_pattern_sync(sym, max_elems);  // what PE 0 gets
  nvshmem_barrier_all();

  const std::vector<size_t> sizes = element_sizes(o, sizeof(int));
  std::vector<double> latency_us(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t nelems = sizes[k] / sizeof(int);
    if (t.mype == 0) {
      if (o.warmup_iters > 0) {
        pg_latency_kernel<P><<<1, o.threads_per_cta, 0, t.stream>>>(sym, local, nelems, t.peer, o.warmup_iters);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
      }
      const float ms = time_launch(t, [&] {
        pg_latency_kernel<P><<<1, o.threads_per_cta, 0, t.stream>>>(sym, local, nelems, t.peer, o.iters);
        CUDA_CHECK_LAUNCH();
      });
      latency_us[k] = ms * 1e3 / o.iters;
    }
    nvshmem_barrier_all();
  }

  // The last launch moved the largest message: p wrote it into PE 1's buffer, g into PE 0's local one.
  size_t bad = 0;
  if (!sizes.empty()) {
    const size_t n = sizes.back() / sizeof(int);
    if (P && t.mype == 1) bad = check_pattern(t, "nvshmem_int_p", sym, n);
    if (!P && t.mype == 0) bad = check_pattern(t, "nvshmem_int_g", local, n);
  }
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    print_table_basic(name, "thread", "latency", "us", '-', sizes.data(), latency_us.data(),
                      static_cast<int>(sizes.size()));
  }
  nvshmem_barrier_all();
  nvshmem_free(sym);
  CUDA_CHECK(cudaFree(local));
  return device_test_finish(&t, errors);
}

}  // namespace
