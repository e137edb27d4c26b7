// The device bandwidth perftests shmem_put_bw and shmem_get_bw, written once for both directions.
//
// A kernel of -c CTAs x -t threads loops -n times; in each iteration the message (one size of the
// -b..-e sweep) is split evenly over the CTAs (block scope), warps (warp scope) or threads (thread
// scope), each of which moves its share with nvshmem[x]_double_{put,get}_nbi[_warp|_block]; then the
// CTAs meet at a grid-wide barrier on a counter in device memory, so that iteration i+1 starts once
// every CTA has issued iteration i. One thread calls nvshmem_quiet() at the end. Bandwidth (GB/s,
// decimal) = size * iters / (ms * 1e6), timed with CUDA events around the launch, after an untimed
// warm-up launch of -w iterations.
//
// With --use_smem 1 (and always in shmem_put_tma_bw) each CTA lends the library ask_smem(RECOMMENDED) bytes of
// shared memory (nvshmemx_give_smem), so that with NVSHMEM_TMA_POLICY=ENABLE its copies take the bulk-copy (TMA)
// path; shmem_put_tma_bw sets that policy itself unless the environment names one.
//
// PE 0 initiates and reports; with --bidir both PEs initiate at the same time and the reported figure
// is the sum of both PEs' bandwidths. At the end, one transfer of the largest size is checked on the
// receiving side (PE 1 for a put, PE 0 for a get).
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "perftest.h"

namespace {

constexpr int kWarpSize = 32;

// Splits `nelems` elements over `units` workers: worker `unit` gets [*begin, *begin + *count).
// Shares are rounded up to a multiple of `align` elements so that every share starts on an aligned
// address (the copies are vectorised); the last workers may get less, or nothing.
__device__ __forceinline__ void share_of(size_t nelems, size_t units, size_t unit, size_t align, size_t *begin,
                                         size_t *count) {
  size_t chunk = (nelems + units - 1) / units;
  chunk = (chunk + align - 1) / align * align;
  size_t b = unit * chunk;
  if (b > nelems) b = nelems;
  *begin = b;
  *count = (nelems - b < chunk) ? nelems - b : chunk;
}

// Grid-wide barrier number `round` (0, 1, ...) on `counter`, which starts at 0 and is used by this
// launch only. Requires every CTA of the grid to be resident at once (checked before launch).
__device__ __forceinline__ void grid_barrier(unsigned int *counter, unsigned int round) {
  __syncthreads();  // this CTA's threads have issued their transfers
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1u);
    const unsigned int target = (round + 1) * gridDim.x;
    while (*reinterpret_cast<volatile unsigned int *>(counter) < target) {
    }
    __threadfence();
  }
  __syncthreads();
}

// Scope: 0 thread, 1 warp, 2 block. For a put, dest is symmetric (written on `peer`) and source is
// local; for a get, source is symmetric (read on `peer`) and dest is local.
template <bool Put, int Scope>
__global__ void rma_bw_kernel(double *dest, const double *source, size_t nelems, int peer, int iters,
                              unsigned int *counter, size_t lend) {
  extern __shared__ __align__(16) unsigned char lent[];
  if (lend != 0) {
    if (threadIdx.x == 0) nvshmemx_give_smem(lent, lend);
    __syncthreads();
  }
  size_t units, unit, align;
  if (Scope == 2) {
    units = gridDim.x;
    unit = blockIdx.x;
    align = 16;  // 128 bytes
  } else if (Scope == 1) {
    const size_t warps = blockDim.x / kWarpSize;
    units = gridDim.x * warps;
    unit = blockIdx.x * warps + threadIdx.x / kWarpSize;
    align = 16;
  } else {
    units = static_cast<size_t>(gridDim.x) * blockDim.x;
    unit = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    align = 2;  // 16 bytes
  }
  size_t begin, count;
  share_of(nelems, units, unit, align, &begin, &count);
  double *d = dest + begin;
  const double *s = source + begin;

  for (int i = 0; i < iters; ++i) {
    // `count` is uniform across the group that calls (block / warp), so the group takes one branch.
    if (count != 0) {
      if (Put) {
        if (Scope == 2) {
          nvshmemx_double_put_nbi_block(d, s, count, peer);
        } else if (Scope == 1) {
          nvshmemx_double_put_nbi_warp(d, s, count, peer);
        } else {
          nvshmem_double_put_nbi(d, s, count, peer);
        }
      } else {
        if (Scope == 2) {
          nvshmemx_double_get_nbi_block(d, s, count, peer);
        } else if (Scope == 1) {
          nvshmemx_double_get_nbi_warp(d, s, count, peer);
        } else {
          nvshmem_double_get_nbi(d, s, count, peer);
        }
      }
    }
    grid_barrier(counter, static_cast<unsigned int>(i));
  }
  // After the last grid barrier every CTA's transfers were issued; one quiet completes them.
  if (blockIdx.x == 0 && threadIdx.x == 0) nvshmem_quiet();
  if (lend != 0 && threadIdx.x == 0) nvshmemx_release_smem();
}

// Pattern used by the correctness check: exact in double, not periodic over small strides.
__host__ __device__ __forceinline__ double pattern(size_t i) { return static_cast<double>(i % 1048573) + 0.25; }

__global__ void fill_pattern(double *p, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[i] = pattern(i);
  }
}

struct Launch {
  int scope;  // 0 thread, 1 warp, 2 block
  int ctas;
  int threads;
  cudaStream_t stream;
  unsigned int *counter;
  size_t lend;  // shared memory each CTA lends the library (0: none)
};

using KernelFn = void (*)(double *, const double *, size_t, int, int, unsigned int *, size_t);

// The kernel of a scope (0 thread, 1 warp, 2 block).
template <bool Put>
KernelFn kernel_of(int scope) {
  return scope == 0 ? rma_bw_kernel<Put, 0> : scope == 1 ? rma_bw_kernel<Put, 1> : rma_bw_kernel<Put, 2>;
}

// Launches `iters` iterations on the stream (asynchronous). The barrier counter must be 0: see
// reset_counter (kept out of the launch so that the timed region holds the kernel only).
template <bool Put>
void launch(const Launch &l, double *dest, const double *source, size_t nelems, int peer, int iters) {
  kernel_of<Put>(l.scope)<<<l.ctas, l.threads, l.lend, l.stream>>>(dest, source, nelems, peer, iters, l.counter,
                                                                   l.lend);
  CUDA_CHECK_LAUNCH();
}

void reset_counter(const Launch &l) { CUDA_CHECK(cudaMemsetAsync(l.counter, 0, sizeof(unsigned int), l.stream)); }

// The grid barrier deadlocks unless every CTA is resident at once: check it before launching.
template <bool Put>
void check_co_residency(const Launch &l, const char *name) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const KernelFn kernel = kernel_of<Put>(l.scope);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(l.lend)));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, l.threads, l.lend));
  if (static_cast<long>(per_sm) * sms < l.ctas) {
    std::fprintf(stderr,
                 "%s: %d CTAs of %d threads cannot all be resident on this GPU (at most %d); "
                 "the grid barrier needs them to be: lower -c or -t\n",
                 name, l.ctas, l.threads, per_sm * sms);
    nvshmem_global_exit(1);
  }
}

}  // namespace

// The whole program; `Put` picks the direction, `name` is the program and job name; `tma`: shmem_put_tma_bw (CTAs
// always lend shared memory, and NVSHMEM_TMA_POLICY is ENABLE and GSHMEM_TMA_SCOPES all, so that the puts of every
// scope move by bulk copies, unless the environment says otherwise).
template <bool Put>
int rma_bw_main(int argc, char **argv, const char *name, bool tma = false) {
  if (tma) {
    setenv("NVSHMEM_TMA_POLICY", "ENABLE", 0);
    setenv("GSHMEM_TMA_SCOPES", "all", 0);
  }
  const bool have_gpu = perftest_init();
  PerftestOptions opts;
  perftest_parse_args(argc, argv, &opts);
  if (tma) opts.use_smem = 1;
  perftest_require_npes(2, name);
  const int mype = nvshmem_my_pe();
  const int peer = 1 - mype;
  if (!have_gpu) {
    if (mype == 0) std::fprintf(stderr, "%s: this test needs a GPU on every PE\n", name);
    nvshmem_finalize();
    return 1;
  }

  const PerftestScope scope = opts.scope == PerftestScope::kAll ? PerftestScope::kBlock : opts.scope;
  Launch l;
  l.scope = scope == PerftestScope::kThread ? 0 : scope == PerftestScope::kWarp ? 1 : 2;
  l.ctas = opts.ctas;
  l.threads = opts.threads_per_cta;
  l.lend = opts.use_smem ? static_cast<size_t>(nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED)) : 0;
  if (l.scope == 1 && l.threads % kWarpSize != 0) {
    if (mype == 0) std::fprintf(stderr, "%s: warp scope needs -t to be a multiple of %d\n", name, kWarpSize);
    nvshmem_finalize();
    return 1;
  }
  check_co_residency<Put>(l, name);
  CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&l.counter, sizeof(unsigned int)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  // The symmetric buffers: the put target or the get source. xfer carries one PE's figure or
  // error count to the other.
  double *dest = static_cast<double *>(nvshmem_malloc(opts.max_size));
  double *source = static_cast<double *>(nvshmem_malloc(opts.max_size));
  double *xfer = static_cast<double *>(nvshmem_malloc(sizeof(double)));
  if (dest == nullptr || source == nullptr || xfer == nullptr) {
    std::fprintf(stderr, "%s: PE %d: nvshmem_malloc of %zu bytes failed\n", name, mype, opts.max_size);
    nvshmem_global_exit(1);
  }
  CUDA_CHECK(cudaMemset(source, 0x5a, opts.max_size));
  CUDA_CHECK(cudaMemset(dest, 0, opts.max_size));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();

  const bool active = mype == 0 || opts.bidir;
  const std::vector<size_t> sizes = perftest_sizes(opts);
  std::vector<double> bw(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    // Sizes below one double move nothing: they are left at 0, which the table skips.
    const size_t nelems = sizes[k] / sizeof(double);
    if (nelems == 0) continue;
    if (active && opts.warmup_iters > 0) {
      reset_counter(l);
      launch<Put>(l, dest, source, nelems, peer, opts.warmup_iters);
      CUDA_CHECK(cudaStreamSynchronize(l.stream));
    }
    nvshmem_barrier_all();
    double mine = 0.0;
    if (active) {
      reset_counter(l);
      CUDA_CHECK(cudaEventRecord(start, l.stream));
      launch<Put>(l, dest, source, nelems, peer, opts.iters);
      CUDA_CHECK(cudaEventRecord(stop, l.stream));
      CUDA_CHECK(cudaStreamSynchronize(l.stream));
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      mine = static_cast<double>(sizes[k]) * opts.iters / (static_cast<double>(ms) * 1e6);
    }
    nvshmem_barrier_all();
    if (opts.bidir) {
      if (mype == 1) nvshmem_double_p(xfer, mine, 0);
      nvshmem_barrier_all();  // includes quiet: PE 1's value has arrived
      if (mype == 0) mine += nvshmem_double_g(xfer, 0);
    }
    bw[k] = mine;
  }

  // Correctness: PE 0 moves a pattern of the largest size with the measured kernel; the receiving
  // PE checks it and tells the other PE how many elements were wrong.
  const int filler = Put ? 0 : 1, checker = 1 - filler;
  const size_t n = opts.max_size / sizeof(double);
  double errors = 0.0;
  if (n > 0) {
    if (mype == checker) CUDA_CHECK(cudaMemset(dest, 0, n * sizeof(double)));
    if (mype == filler) {
      fill_pattern<<<256, 256, 0, l.stream>>>(source, n);
      CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (mype == 0) {
      reset_counter(l);
      launch<Put>(l, dest, source, n, peer, 1);
      CUDA_CHECK(cudaStreamSynchronize(l.stream));
      nvshmem_quiet();
    }
    nvshmem_barrier_all();
    if (mype == checker) {
      std::vector<double> host(n);
      CUDA_CHECK(cudaMemcpy(host.data(), dest, n * sizeof(double), cudaMemcpyDeviceToHost));
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < n; ++i) {
        if (host[i] != pattern(i) && bad++ == 0) first = i;
      }
      if (bad != 0) {
        std::fprintf(stderr,
                     "%s: FAILED: %zu of %zu doubles wrong after a %zu-byte %s; first at %zu: %g, expected %g\n", name,
                     bad, n, n * sizeof(double), Put ? "put" : "get", first, host[first], pattern(first));
      }
      errors = static_cast<double>(bad);
      nvshmem_double_p(xfer, errors, filler);
    }
    nvshmem_barrier_all();
    if (mype == filler) errors = nvshmem_double_g(xfer, filler);
  }

  if (errors == 0.0) {
    print_table_basic(name, perftest_scope_name(scope), "BW", "GB/sec", '+', sizes.data(), bw.data(),
                      static_cast<int>(sizes.size()));
  }

  nvshmem_barrier_all();
  nvshmem_free(xfer);
  nvshmem_free(source);
  nvshmem_free(dest);
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(l.counter));
  CUDA_CHECK(cudaStreamDestroy(l.stream));
  nvshmem_finalize();
  return errors == 0.0 ? 0 : 1;
}
