// What the host pt-to-pt perftests (bw, latency) share: the local buffer on the GPU or in host
// memory, the timed transfer loop in its blocking, non-blocking and on-stream forms, and the
// correctness check.
#pragma once

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
      std::fprintf(stderr, "malloc of %zu bytes failed\n", bytes);
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
  bool blocking;   // putmem/getmem (latency) rather than the _nbi forms (bandwidth)
  bool on_stream;  // nvshmemx_*_on_stream (only with a GPU)
  void *sym;       // symmetric: the put's destination or the get's source, on `peer`
  Local *local;    // the put's source or the get's destination
  int peer;
#if PERFTEST_HAVE_CUDA
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
#endif

  // Issues `count` transfers of `bytes` and completes them; returns the seconds taken. Blocking
  // transfers on a stream are each waited for, as a blocking call would be.
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
        if (blocking) CUDA_CHECK(cudaStreamSynchronize(stream));
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
      if (write && blocking) {
        nvshmem_putmem(sym, local->ptr, bytes, peer);
      } else if (write) {
        nvshmem_putmem_nbi(sym, local->ptr, bytes, peer);
      } else if (blocking) {
        nvshmem_getmem(local->ptr, sym, bytes, peer);
      } else {
        nvshmem_getmem_nbi(local->ptr, sym, bytes, peer);
      }
    }
    nvshmem_quiet();
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
  }
};

// The state of one host perftest run: the local buffer, the symmetric buffers and the transfer.
struct HostRmaTest {
  explicit HostRmaTest(const char *program) : name(program) {}
  const char *name;
  Local local;
  void *sym = nullptr;
  double *xfer = nullptr;  // carries one PE's figure to the other
  int *flag = nullptr;     // carries the correctness verdict
  Transfer t{};

  // Collective: allocates and sets up everything for the options' direction and issue mode.
  void setup(const PerftestOptions &opts, bool have_gpu, bool blocking) {
    const int mype = nvshmem_my_pe();
    bool on_stream = opts.issue == PerftestIssue::kOnStream;
    if (on_stream && !have_gpu) {
      if (mype == 0) std::printf("Note: no GPU in use: --issue on_stream falls back to --issue host\n");
      on_stream = false;
    }
    local.on_gpu = have_gpu;
    local.alloc(opts.max_size);
    local.set(1, opts.max_size);
    sym = nvshmem_malloc(opts.max_size);
    xfer = static_cast<double *>(nvshmem_malloc(sizeof(double)));
    flag = static_cast<int *>(nvshmem_malloc(sizeof(int)));
    if (sym == nullptr || xfer == nullptr || flag == nullptr) {
      std::fprintf(stderr, "%s: PE %d: nvshmem_malloc of %zu bytes failed\n", name, mype, opts.max_size);
      nvshmem_global_exit(1);
    }
    t = Transfer{opts.dir == PerftestDir::kWrite, blocking, on_stream, sym, &local, 1 - mype};
#if PERFTEST_HAVE_CUDA
    if (on_stream) {
      CUDA_CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
      CUDA_CHECK(cudaEventCreate(&t.start));
      CUDA_CHECK(cudaEventCreate(&t.stop));
    }
#endif
    nvshmem_barrier_all();
  }

  // Collective. Correctness at the largest size, with the measured operation. write: PE 0 puts a
  // pattern into PE 1's symmetric buffer, which PE 1 reads back with a get from itself. read: PE 1
  // writes the pattern into its own symmetric buffer with a put to itself, PE 0 gets it into its
  // local buffer. (Gets and puts to oneself read and write symmetric memory on either backend.)
  // Returns 0 on every PE when the data arrived intact.
  int check(size_t n) {
    const int mype = nvshmem_my_pe();
    const bool write = t.write;
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
        std::fprintf(stderr, "%s: FAILED: %zu of %zu bytes wrong after a %s; first at %zu: %u, expected %u\n", name,
                     bad, n, write ? "put" : "get", first, host[first], expect[first]);
      }
      errors = bad != 0 ? 1 : 0;
      nvshmem_int_p(flag, errors, 1 - checker);
    }
    nvshmem_barrier_all();
    if (mype != checker) errors = nvshmem_int_g(flag, mype);
    return errors;
  }

  // Collective: frees everything.
  void teardown() {
    nvshmem_barrier_all();
#if PERFTEST_HAVE_CUDA
    if (t.on_stream) {
      CUDA_CHECK(cudaEventDestroy(t.start));
      CUDA_CHECK(cudaEventDestroy(t.stop));
      CUDA_CHECK(cudaStreamDestroy(t.stream));
    }
#endif
    nvshmem_free(flag);
    nvshmem_free(xfer);
    nvshmem_free(sym);
    local.release();
  }
};

}  // namespace
