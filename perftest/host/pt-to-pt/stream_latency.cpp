// stream_latency: what ordering a host-initiated transfer on a CUDA stream saves, against waiting for
// the GPU and then making a blocking transfer, when each transfer follows a kernel.
//
// Each iteration launches a spin kernel (-b blocks x -t threads, each spinning -c clock cycles) on a
// stream, then moves one message between PE 0 and PE 1:
//  - "with _on_stream": nvshmemx_putmem_on_stream (-d 0, push) or nvshmemx_getmem_on_stream (-d 1,
//    pull) on the same stream, so the transfer is ordered after the kernel without the CPU waiting;
//    after the loop, nvshmemx_quiet_on_stream and cudaStreamSynchronize;
//  - "without _on_stream": cudaStreamSynchronize, then the blocking nvshmem_putmem / nvshmem_getmem;
//    after the loop, nvshmem_quiet.
// Latency (us) = the loop's wall-clock time / -n, after 5 untimed iterations. PE 0 transfers and
// reports; PE 1 takes part in the barriers only. Output: two basic tables, job "Stream_Latency", scopes
// "with _on_stream" and "without _on_stream", latency in us. A transfer of the largest size is
// checked.
//
// Options (this program's own, as in NVSHMEM): -s min size [4], -S max size [4M] (k/m/g suffixes),
// sizes doubling; -n iterations [100]; -d 0 push / 1 pull [0]; -b spin kernel blocks [1]; -t spin
// kernel threads per block [1]; -c spin cycles [1000]; -h.
//
// The test needs a GPU: without one (the CPU backend, or a build without CUDA) PE 0 says so and every
// PE exits with status 0 without a table.
#include <getopt.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "host_rma.h"

#if PERFTEST_HAVE_CUDA && !defined(__CUDACC__)
#error "stream_latency launches a kernel: compile it as CUDA (nvcc -x cu)"
#endif

namespace {

constexpr int kWarmupIters = 5;

struct StreamLatencyOptions {
  size_t min_size = 4;
  size_t max_size = 4u << 20;
  int iters = 100;
  bool pull = false;
  int blocks = 1;
  int threads = 1;
  long long cycles = 1000;
};

[[noreturn]] void finish(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  nvshmem_finalize();
  std::exit(status);
}

[[noreturn]] void usage_error(const char *what, const char *arg) {
  if (nvshmem_my_pe() == 0) std::fprintf(stderr, "stream_latency: error: %s '%s' (-h lists the options)\n", what, arg);
  finish(1);
}

bool parse_size(const char *s, size_t *out) {
  if (s == nullptr || *s < '0' || *s > '9') return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0) return false;
  unsigned shift = 0;
  if (*end == 'k' || *end == 'K') shift = 10;
  if (*end == 'm' || *end == 'M') shift = 20;
  if (*end == 'g' || *end == 'G') shift = 30;
  if (shift != 0) ++end;
  if (*end != '\0' || v == 0 || v > (~0ull >> shift)) return false;
  *out = static_cast<size_t>(v << shift);
  return true;
}

bool parse_long(const char *s, long long lo, long long hi, long long *out) {
  if (s == nullptr || *s == '\0') return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

void parse_args(int argc, char **argv, StreamLatencyOptions *o) {
  opterr = 0;
  int c;
  long long v = 0;
  while ((c = getopt(argc, argv, ":s:S:n:d:b:t:c:h")) != -1) {
    switch (c) {
      case 's':
        if (!parse_size(optarg, &o->min_size)) usage_error("bad -s (min size)", optarg);
        break;
      case 'S':
        if (!parse_size(optarg, &o->max_size)) usage_error("bad -S (max size)", optarg);
        break;
      case 'n':
        if (!parse_long(optarg, 1, 1 << 30, &v)) usage_error("bad -n (iterations, >= 1)", optarg);
        o->iters = static_cast<int>(v);
        break;
      case 'd':
        if (!parse_long(optarg, 0, 1, &v)) usage_error("bad -d (0 push, 1 pull)", optarg);
        o->pull = v == 1;
        break;
      case 'b':
        if (!parse_long(optarg, 1, 1 << 20, &v)) usage_error("bad -b (spin kernel blocks, >= 1)", optarg);
        o->blocks = static_cast<int>(v);
        break;
      case 't':
        if (!parse_long(optarg, 1, 1024, &v)) usage_error("bad -t (spin kernel threads, 1 to 1024)", optarg);
        o->threads = static_cast<int>(v);
        break;
      case 'c':
        if (!parse_long(optarg, 0, 1ll << 40, &v)) usage_error("bad -c (spin cycles, >= 0)", optarg);
        o->cycles = v;
        break;
      case 'h':
        if (nvshmem_my_pe() == 0) {
          std::printf(
              "Usage: %s [options]\n"
              "  -s SIZE   smallest message in bytes [4] (suffixes k, m, g: powers of 1024)\n"
              "  -S SIZE   largest message in bytes [4M]\n"
              "  -n N      iterations per size [100]\n"
              "  -d 0|1    0: push (putmem), 1: pull (getmem) [0]\n"
              "  -b N      blocks of the spin kernel [1]\n"
              "  -t N      threads per block of the spin kernel [1]\n"
              "  -c N      clock cycles each spin kernel thread spins [1000]\n"
              "  -h        this text\n",
              argv[0]);
        }
        finish(0);
      case ':':
        usage_error("option needs a value:", argv[optind - 1]);
      default:
        usage_error("unknown option", argv[optind - 1]);
    }
  }
  if (optind < argc) usage_error("unexpected argument", argv[optind]);
  if (o->min_size > o->max_size) {
    if (nvshmem_my_pe() == 0) std::fprintf(stderr, "stream_latency: error: -s is larger than -S\n");
    finish(1);
  }
  if (nvshmem_my_pe() == 0) {
    std::printf(
        "Runtime options: min_size: %zu, max_size: %zu, iterations: %d, direction: %s, spin kernel: %d x %d "
        "threads, %lld cycles\n",
        o->min_size, o->max_size, o->iters, o->pull ? "pull" : "push", o->blocks, o->threads, o->cycles);
    std::fflush(stdout);
  }
}

#if PERFTEST_HAVE_CUDA
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// `count` iterations of one size; returns the seconds they took.
double run(const StreamLatencyOptions &o, HostRmaTest &test, size_t bytes, int count, bool on_stream) {
  const Transfer &x = test.t;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    spin_kernel<<<o.blocks, o.threads, 0, x.stream>>>(o.cycles);
    CUDA_CHECK_LAUNCH();
    if (on_stream) {
      if (o.pull) {
        nvshmemx_getmem_on_stream(test.local.ptr, test.sym, bytes, x.peer, x.stream);
      } else {
        nvshmemx_putmem_on_stream(test.sym, test.local.ptr, bytes, x.peer, x.stream);
      }
    } else {
      CUDA_CHECK(cudaStreamSynchronize(x.stream));
      if (o.pull) {
        nvshmem_getmem(test.local.ptr, test.sym, bytes, x.peer);
      } else {
        nvshmem_putmem(test.sym, test.local.ptr, bytes, x.peer);
      }
    }
  }
  if (on_stream) {
    nvshmemx_quiet_on_stream(x.stream);
    CUDA_CHECK(cudaStreamSynchronize(x.stream));
  } else {
    nvshmem_quiet();
  }
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}
#endif

}  // namespace

int main(int argc, char **argv) {
  const bool have_gpu = perftest_init();
  StreamLatencyOptions o;
  parse_args(argc, argv, &o);
  perftest_require_npes(2, "stream_latency");
  const int mype = nvshmem_my_pe();
  if (!have_gpu) {
    if (mype == 0) {
      std::printf(
          "stream_latency: no GPU is in use, so there is nothing to measure (the test compares transfers ordered "
          "on a CUDA stream after a kernel with blocking ones); no table\n");
    }
    finish(0);
  }
#if PERFTEST_HAVE_CUDA
  // The shared host test sets up the local buffer (on the GPU), the symmetric one, the stream and
  // the correctness check, for the on-stream issue mode and this direction.
  PerftestOptions ho;
  ho.max_size = o.max_size;
  ho.issue = PerftestIssue::kOnStream;
  ho.dir = o.pull ? PerftestDir::kRead : PerftestDir::kWrite;
  HostRmaTest test("stream_latency");
  test.setup(ho, have_gpu, /*blocking=*/true);

  std::vector<size_t> sizes;
  for (size_t s = o.min_size; s <= o.max_size; s *= 2) {
    sizes.push_back(s);
    if (s > SIZE_MAX / 2) break;
  }
  std::vector<double> with_us(sizes.size(), 0.0), without_us(sizes.size(), 0.0);
  for (int pass = 0; pass < 2; ++pass) {
    const bool on_stream = pass == 0;
    std::vector<double> &latency_us = on_stream ? with_us : without_us;
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (mype == 0) run(o, test, sizes[k], kWarmupIters, on_stream);
      nvshmem_barrier_all();
      if (mype == 0) latency_us[k] = run(o, test, sizes[k], o.iters, on_stream) * 1e6 / o.iters;
      nvshmem_barrier_all();
    }
  }
  const int errors = test.check(o.max_size);
  if (errors == 0) {
    const int n = static_cast<int>(sizes.size());
    print_table_basic("Stream_Latency", "with _on_stream", "latency", "us", '-', sizes.data(), with_us.data(), n);
    print_table_basic("Stream_Latency", "without _on_stream", "latency", "us", '-', sizes.data(), without_us.data(), n);
  }
  test.teardown();
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
#else
  finish(0);
#endif
}
