// latency: latency of blocking host-initiated puts (--dir write) or gets (--dir read) between two
// PEs.
//
// --issue host: the CPU issues -n nvshmem_putmem / nvshmem_getmem of one size, then nvshmem_quiet();
// the loop is timed with a steady clock.
// --issue on_stream: -n nvshmemx_putmem_on_stream / nvshmemx_getmem_on_stream, each followed by
// cudaStreamSynchronize (so each one is waited for, as a blocking call would be), then
// nvshmemx_quiet_on_stream; timed with CUDA events on the stream.
// Latency (us) = time / iters, after -w untimed iterations. PE 0 transfers with PE 1 and reports;
// PE 1 only takes part in the barriers.
//
// The remote side is a symmetric buffer; the local side is device memory when a GPU is in use and
// malloc'd host memory otherwise (then no CUDA call is made at all). --issue on_stream without a GPU
// falls back to --issue host with a note. A put or get of the largest size is checked at the end.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "perftest.h"

namespace {

// Byte i of the correctness pattern: not periodic over small strides, not all zero.
unsigned char pattern(size_t i) { return static_cast<unsigned char>((i * 2654435761u) >> 13) ^ 0x5a; }

// The local buffer and the copies between it and host memory, on the GPU or in host memory.
struct Local {
  bool on_gpu = false;
  void *ptr = nullptr;

  void alloc(size_t bytes) {
#if PERFTEST_HAVE_CUDA
    if (on_gpu) {
      CUDA_CHECK(cudaMalloc(&ptr, bytes));
      return;
    }
#endif
    ptr = std::malloc(bytes);
    if (ptr == nullptr) {
      std::fprintf(stderr, "latency: malloc of %zu bytes failed\n", bytes);
      nvshmem_global_exit(1);
    }
  }
  void release() {
#if PERFTEST_HAVE_CUDA
    if (on_gpu) {
      CUDA_CHECK(cudaFree(ptr));
      return;
    }
#endif
    std::free(ptr);
  }
  void set(int value, size_t bytes) {
#if PERFTEST_HAVE_CUDA
    if (on_gpu) {
      CUDA_CHECK(cudaMemset(ptr, value, bytes));
      return;
    }
#endif
    std::memset(ptr, value, bytes);
  }
  void from_host(const void *src, size_t bytes) {
#if PERFTEST_HAVE_CUDA
    if (on_gpu) {
      CUDA_CHECK(cudaMemcpy(ptr, src, bytes, cudaMemcpyHostToDevice));
      return;
    }
#endif
    std::memcpy(ptr, src, bytes);
  }
  void to_host(void *dst, size_t bytes) const {
#if PERFTEST_HAVE_CUDA
    if (on_gpu) {
      CUDA_CHECK(cudaMemcpy(dst, ptr, bytes, cudaMemcpyDeviceToHost));
      return;
    }
#endif
    std::memcpy(dst, ptr, bytes);
  }
};

struct Transfer {
  bool write;      // put (true) or get
  bool on_stream;  // nvshmemx_*_on_stream (only with a GPU)
  void *sym;       // symmetric: the put's destination or the get's source, on `peer`
  Local *local;    // the put's source or the get's destination
  int peer;
#if PERFTEST_HAVE_CUDA
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
#endif

  // Issues `count` blocking transfers of `bytes`, one after the other, and completes them; returns
  // the seconds taken.
  double run(size_t bytes, int count) const {
#if PERFTEST_HAVE_CUDA
    if (on_stream) {
      CUDA_CHECK(cudaEventRecord(start, stream));
      for (int i = 0; i < count; ++i) {
        if (write) {
          nvshmemx_putmem_on_stream(sym, local->ptr, bytes, peer, stream);
        } else {
          nvshmemx_getmem_on_stream(local->ptr, sym, bytes, peer, stream);
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
      }
      nvshmemx_quiet_on_stream(stream);
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      return ms * 1e-3;
    }
#endif
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
      if (write) {
        nvshmem_putmem(sym, local->ptr, bytes, peer);
      } else {
        nvshmem_getmem(local->ptr, sym, bytes, peer);
      }
    }
    nvshmem_quiet();
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
  }
};

}  // namespace

int main(int argc, char **argv) {
  const bool have_gpu = perftest_init();
  PerftestOptions opts;
  perftest_parse_args(argc, argv, &opts);
  perftest_require_npes(2, "latency");
  const int mype = nvshmem_my_pe();
  const int peer = 1 - mype;

  bool on_stream = opts.issue == PerftestIssue::kOnStream;
  if (on_stream && !have_gpu) {
    if (mype == 0) std::printf("Note: no GPU in use: --issue on_stream falls back to --issue host\n");
    on_stream = false;
  }
  const bool write = opts.dir == PerftestDir::kWrite;

  Local local;
  local.on_gpu = have_gpu;
  local.alloc(opts.max_size);
  local.set(1, opts.max_size);
  void *sym = nvshmem_malloc(opts.max_size);
  int *flag = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  if (sym == nullptr || flag == nullptr) {
    std::fprintf(stderr, "latency: PE %d: nvshmem_malloc of %zu bytes failed\n", mype, opts.max_size);
    nvshmem_global_exit(1);
  }

  Transfer t{write, on_stream, sym, &local, peer};
#if PERFTEST_HAVE_CUDA
  if (on_stream) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&t.start));
    CUDA_CHECK(cudaEventCreate(&t.stop));
  }
#endif
  nvshmem_barrier_all();

  if (opts.bidir && mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  const std::vector<size_t> sizes = perftest_sizes(opts);
  std::vector<double> latency_us(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (mype == 0 && opts.warmup_iters > 0) t.run(sizes[k], opts.warmup_iters);
    nvshmem_barrier_all();
    if (mype == 0) latency_us[k] = t.run(sizes[k], opts.iters) * 1e6 / opts.iters;
    nvshmem_barrier_all();
  }

  // Correctness, at the largest size, with the measured operation. write: PE 0 puts a pattern into
  // PE 1's symmetric buffer, which PE 1 reads back with a get from itself. read: PE 1 writes the
  // pattern into its own symmetric buffer with a put to itself, PE 0 gets it into its local buffer.
  // (Gets and puts to oneself read and write symmetric memory on either backend.)
  const size_t n = opts.max_size;
  std::vector<unsigned char> expect(n), host(n, 0);
  for (size_t i = 0; i < n; ++i) expect[i] = pattern(i);
  const int checker = write ? 1 : 0;
  if (write) {
    if (mype == 1) nvshmem_putmem(sym, host.data(), n, 1);  // clear: data of the timed runs is not checked
    if (mype == 0) local.from_host(expect.data(), n);
  } else {
    if (mype == 1) nvshmem_putmem(sym, expect.data(), n, 1);
    if (mype == 0) local.set(0, n);
  }
  nvshmem_barrier_all();
  if (mype == 0) t.run(n, 1);
  nvshmem_barrier_all();
  int errors = 0;
  if (mype == checker) {
    if (write) {
      nvshmem_getmem(host.data(), sym, n, 1);
    } else {
      local.to_host(host.data(), n);
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
      if (host[i] != expect[i] && bad++ == 0) first = i;
    }
    if (bad != 0) {
      std::fprintf(stderr, "latency: FAILED: %zu of %zu bytes wrong after a %s; first at %zu: %u, expected %u\n", bad,
                   n, write ? "put" : "get", first, host[first], expect[first]);
    }
    errors = bad != 0 ? 1 : 0;
    nvshmem_int_p(flag, errors, 1 - checker);
  }
  nvshmem_barrier_all();
  if (mype != checker) errors = nvshmem_int_g(flag, mype);

  if (errors == 0) {
    print_table_basic("Latency", on_stream ? "stream" : "host", "latency", "us", '-', sizes.data(), latency_us.data(),
                      static_cast<int>(sizes.size()));
  }

  nvshmem_barrier_all();
#if PERFTEST_HAVE_CUDA
  if (on_stream) {
    CUDA_CHECK(cudaEventDestroy(t.start));
    CUDA_CHECK(cudaEventDestroy(t.stop));
    CUDA_CHECK(cudaStreamDestroy(t.stream));
  }
#endif
  nvshmem_free(flag);
  nvshmem_free(sym);
  local.release();
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
}
