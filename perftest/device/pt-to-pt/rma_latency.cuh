// The device latency perftests of whole messages, shmem_put_latency and shmem_get_latency, written
// once for both directions, and shmem_flush_bench (NVSHMEM 3.7's flush: puts completed by
// nvshmemx_flush[_warp|_block] instead of quiet, so that the source may be reused; the data's arrival is
// completed by the barrier after the launch).
//
// PE 0 moves the message (size / 4 ints) to or from PE 1 at three scopes, each a kernel of one CTA
// whose iterations each issue one transfer and complete it:
//  - Thread: 1 thread, nvshmem_int_{put,get}_nbi, then nvshmem_quiet();
//  - Warp:   32 threads, nvshmemx_int_{put,get}_nbi_warp, then one lane calls nvshmem_quiet()
//            between two __syncwarp();
//  - Block:  -t threads, nvshmemx_int_{put,get}_nbi_block, then one thread calls nvshmem_quiet()
//            between two __syncthreads().
// The put's source and the get's destination are local device memory; the other side is symmetric.
// Latency (us) = time of the launch / -n, timed with CUDA events after an untimed launch of -w
// iterations. -s thread|warp|block measures one scope only (default: all three). Output: one basic
// table per scope, job "shmem_put_latency" / "shmem_get_latency", subjobs "Thread", "Warp", "Block"
// (NVSHMEM 3.4.5 labels the thread table of shmem_get_latency "shmem_g_latency"; this one does not).
// Each scope's data of the largest size is checked.
#pragma once

#include "device_common.cuh"

namespace {

constexpr int kScopeThread = 0, kScopeWarp = 1, kScopeBlock = 2;

template <bool Put, int Scope, bool Flush>
__global__ void rma_latency_kernel(int *sym, int *local, size_t nelems, int peer, int iters) {
  for (int i = 0; i < iters; ++i) {
    if constexpr (Scope == kScopeThread) {
      if constexpr (Put) {
        nvshmem_int_put_nbi(sym, local, nelems, peer);
      } else {
        nvshmem_int_get_nbi(local, sym, nelems, peer);
      }
      if constexpr (Flush) {
        nvshmemx_flush();
      } else {
        nvshmem_quiet();
      }
    } else if constexpr (Scope == kScopeWarp) {
      if constexpr (Put) {
        nvshmemx_int_put_nbi_warp(sym, local, nelems, peer);
      } else {
        nvshmemx_int_get_nbi_warp(local, sym, nelems, peer);
      }
      if constexpr (Flush) {
        nvshmemx_flush_warp();
      } else {
        __syncwarp();
        if (threadIdx.x == 0) nvshmem_quiet();
        __syncwarp();
      }
    } else {
      if constexpr (Put) {
        nvshmemx_int_put_nbi_block(sym, local, nelems, peer);
      } else {
        nvshmemx_int_get_nbi_block(local, sym, nelems, peer);
      }
      if constexpr (Flush) {
        nvshmemx_flush_block();
      } else {
        __syncthreads();
        if (threadIdx.x == 0) nvshmem_quiet();
        __syncthreads();
      }
    }
  }
}

template <bool Put, int Scope, bool Flush>
void rma_latency_launch(const DeviceTest &t, int *sym, int *local, size_t nelems, int iters) {
  const int threads = Scope == kScopeThread ? 1 : Scope == kScopeWarp ? 32 : t.opts.threads_per_cta;
  rma_latency_kernel<Put, Scope, Flush><<<1, threads, 0, t.stream>>>(sym, local, nelems, t.peer, iters);
  CUDA_CHECK_LAUNCH();
}

// One scope's sweep: prints its table and returns the errors of its check (on every PE).
template <bool Put, int Scope, bool Flush>
int rma_latency_scope(const DeviceTest &t, const char *subjob, int *sym, int *local) {
  const PerftestOptions &o = t.opts;
  const std::vector<size_t> sizes = element_sizes(o, sizeof(int));
  const int checker = Put ? 1 : 0;  // the PE whose buffer receives the data
  const size_t max_elems = o.max_size / sizeof(int);
  if (t.mype == checker) {
    CUDA_CHECK(cudaMemset(Put ? sym : local, 0, max_elems * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  nvshmem_barrier_all();
  std::vector<double> latency_us(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t nelems = sizes[k] / sizeof(int);
    if (t.mype == 0) {
      if (o.warmup_iters > 0) {
        rma_latency_launch<Put, Scope, Flush>(t, sym, local, nelems, o.warmup_iters);
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
      }
      const float ms = time_launch(t, [&] { rma_latency_launch<Put, Scope, Flush>(t, sym, local, nelems, o.iters); });
      latency_us[k] = ms * 1e3 / o.iters;
    }
    nvshmem_barrier_all();
  }
  size_t bad = 0;
  if (!sizes.empty() && t.mype == checker) {
    bad = check_pattern(t, Put ? "the puts" : "the gets", Put ? sym : local, sizes.back() / sizeof(int));
  }
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    print_table_basic(t.name, subjob, "latency", "us", '-', sizes.data(), latency_us.data(),
                      static_cast<int>(sizes.size()));
  }
  return errors;
}

template <bool Put, bool Flush = false>
int rma_latency_main(int argc, char **argv, const char *name) {
  DeviceTest t;
  device_test_start(&t, argc, argv, name);
  const PerftestOptions &o = t.opts;
  if (o.bidir && t.mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  const size_t max_elems = o.max_size / sizeof(int);
  int *sym = sym_alloc<int>(t, max_elems * sizeof(int));
  int *local = nullptr;
  CUDA_CHECK(cudaMalloc(&local, max_elems * sizeof(int) + sizeof(int)));
  // The data: a put sends PE 0's local buffer, a get reads PE 1's symmetric one.
  if (Put && t.mype == 0) fill_pattern_sync(local, max_elems);
  if (!Put && t.mype == 1) fill_pattern_sync(sym, max_elems);
  nvshmem_barrier_all();

  int errors = 0;
  if (scope_selected(o, PerftestScope::kThread))
    errors += rma_latency_scope<Put, kScopeThread, Flush>(t, "Thread", sym, local);
  if (scope_selected(o, PerftestScope::kWarp))
    errors += rma_latency_scope<Put, kScopeWarp, Flush>(t, "Warp", sym, local);
  if (scope_selected(o, PerftestScope::kBlock))
    errors += rma_latency_scope<Put, kScopeBlock, Flush>(t, "Block", sym, local);

  nvshmem_barrier_all();
  nvshmem_free(sym);
  CUDA_CHECK(cudaFree(local));
  return device_test_finish(&t, errors);
}

}  // namespace
