// cuda_ceiling: what plain CUDA reaches between two GPUs, the ceilings and floors that the perftests'
// rows are held to (bench/compare runs it beside them and shows each goal row against it).
//
// One process, no NVSHMEM: GPU 0 is "this PE", GPU 1 the peer (with one GPU, GPU 0 is both, and the
// figures are those of one GPU's own memory; the output says so). Peer access is enabled both ways.
//
//   cuda_ceiling [-b MIN] [-e MAX] [-f STEP] [-n ITERS] [-w WARMUP] [-c CTAS] [-t THREADS] [--only NAME,...]
//
// Tables, in NVSHMEM's basic format ("#<job>", "size(B) scope <var> (<units>)", rows):
//   ce_put, ce_get        copy engines: cudaMemcpyPeerAsync 0 -> 1 (1 -> 0), issued on GPU 0
//   ce_bidir              both ways at once (the sum)
//   sm_put, sm_get        SM stores into (loads from) the peer's memory, 16 bytes a thread, -c CTAs of
//                         -t threads on GPU 0
//   sm_bidir              sm_put from both GPUs at once (the sum)
//   store_fence           one thread: a remote 8-byte store, then __threadfence_system, per iteration
//   atomic_fetch          one thread: a remote fetching atomicAdd_system, each waiting for the last
//   signal_round_trip     one thread per GPU: a flag to the peer, then a wait for its answer
// Latencies are per operation (the round trip for signal_round_trip), in microseconds.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(call)                                                                                             \
  do {                                                                                                          \
    cudaError_t e_ = (call);                                                                                    \
    if (e_ != cudaSuccess) {                                                                                    \
      std::fprintf(stderr, "cuda_ceiling: %s failed: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                                             \
    }                                                                                                           \
  } while (0)

namespace {

struct Options {
  size_t min_size = 1 << 20;
  size_t max_size = 256u << 20;
  size_t step = 2;
  int iters = 50;
  int warmup = 5;
  int ctas = 32;
  int threads = 1024;
  int latency_iters = 10000;
  std::set<std::string> only;
  bool want(const char* name) const { return only.empty() || only.count(name) != 0; }
};

size_t parse_size(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  switch (*end) {
    case 'k':
    case 'K':
      v *= 1024;
      break;
    case 'm':
    case 'M':
      v *= 1024 * 1024;
      break;
    case 'g':
    case 'G':
      v *= 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  return static_cast<size_t>(v);
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v) {
      std::fprintf(stderr, "cuda_ceiling: %s needs a value\n", a.c_str());
      return false;
    }
    if (a == "-b") {
      o->min_size = parse_size(v);
    } else if (a == "-e") {
      o->max_size = parse_size(v);
    } else if (a == "-f") {
      o->step = parse_size(v);
    } else if (a == "-n") {
      o->iters = std::atoi(v);
    } else if (a == "-w") {
      o->warmup = std::atoi(v);
    } else if (a == "-c") {
      o->ctas = std::atoi(v);
    } else if (a == "-t") {
      o->threads = std::atoi(v);
    } else if (a == "--only") {
      std::stringstream names(v);
      for (std::string n; std::getline(names, n, ',');) o->only.insert(n);
    } else {
      std::fprintf(stderr, "cuda_ceiling: unknown option %s\n", a.c_str());
      return false;
    }
    ++i;
  }
  if (o->min_size < 16 || o->max_size < o->min_size || o->step < 2 || o->iters < 1 || o->warmup < 0 || o->ctas < 1 ||
      o->threads < 32) {
    std::fprintf(stderr, "cuda_ceiling: invalid options (sizes of at least 16 bytes, -f of at least 2)\n");
    return false;
  }
  return true;
}

__global__ void copy16(int4* __restrict__ dst, const int4* __restrict__ src, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__global__ void store_fence(volatile unsigned long long* remote, int iters) {
  for (int i = 0; i < iters; ++i) {
    *remote = static_cast<unsigned long long>(i);
    __threadfence_system();
  }
}

__global__ void atomic_fetch(unsigned long long* remote, int iters, unsigned long long* out) {
  unsigned long long v = 0;
  for (int i = 0; i < iters; ++i) v = atomicAdd_system(remote, v & 1ull);  // each add waits for the last's value
  *out = v;
}

// Turn by turn: GPU `first` starts; each writes k into the other's flag and waits for k in its own.
__global__ void ping_pong(volatile unsigned long long* mine, volatile unsigned long long* theirs, int iters,
                          bool first) {
  for (unsigned long long k = 1; k <= static_cast<unsigned long long>(iters); ++k) {
    if (!first) {
      while (*mine < k) {
      }
    }
    *theirs = k;
    __threadfence_system();
    if (first) {
      while (*mine < k) {
      }
    }
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void header(const char* job, const char* var, const char* units) {
  std::printf("#%s\nsize(B)   scope   %s (%s)\n", job, var, units);
}

struct Gpus {
  int a = 0, b = 0;
  cudaStream_t sa = nullptr, sb = nullptr;
  char* a_src = nullptr;  // on a
  char* a_dst = nullptr;  // on a
  char* b_src = nullptr;  // on b
  char* b_dst = nullptr;  // on b
};

void sync_both(const Gpus& g) {
  CHECK(cudaSetDevice(g.a));
  CHECK(cudaStreamSynchronize(g.sa));
  CHECK(cudaSetDevice(g.b));
  CHECK(cudaStreamSynchronize(g.sb));
  CHECK(cudaSetDevice(g.a));
}

// Times `iters` rounds of `issue` (after `warmup` untimed ones); returns seconds per round.
template <class F>
double timed(const Options& o, const Gpus& g, F issue) {
  for (int i = 0; i < o.warmup; ++i) issue();
  sync_both(g);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i) issue();
  sync_both(g);
  return seconds_since(t0) / o.iters;
}

void bandwidth_tables(const Options& o, const Gpus& g) {
  struct Case {
    const char* name;
    const char* scope;
    bool both;  // both directions at once
    bool ce;
    bool get;
  };
  const Case cases[] = {{"ce_put", "ce", false, true, false},
                        {"ce_get", "ce", false, true, true},
                        {"ce_bidir", "ce", true, true, false},
                        {"sm_put", "sm", false, false, false},
                        {"sm_get", "sm", false, false, true},
                        {"sm_bidir", "sm", true, false, false}};
  for (const Case& c : cases) {
    if (!o.want(c.name)) continue;
    header(c.name, "BW", "GB/sec");
    for (size_t size = o.min_size; size <= o.max_size; size *= o.step) {
      const size_t n16 = size / 16;
      auto issue = [&] {
        if (c.ce && c.get) {
          CHECK(cudaMemcpyPeerAsync(g.a_dst, g.a, g.b_src, g.b, size, g.sa));  // issued by a, from b
          return;
        }
        if (c.ce) {
          CHECK(cudaMemcpyPeerAsync(g.b_dst, g.b, g.a_src, g.a, size, g.sa));
          if (c.both) CHECK(cudaMemcpyPeerAsync(g.a_dst, g.a, g.b_src, g.b, size, g.sb));
          return;
        }
        // SM copies run on GPU a (the put writes b's memory, the get reads it); bidir also on b.
        int4* dst = reinterpret_cast<int4*>(c.get ? g.a_dst : g.b_dst);
        const int4* src = reinterpret_cast<const int4*>(c.get ? g.b_src : g.a_src);
        copy16<<<o.ctas, o.threads, 0, g.sa>>>(dst, src, n16);
        if (c.both) {
          CHECK(cudaSetDevice(g.b));
          copy16<<<o.ctas, o.threads, 0, g.sb>>>(reinterpret_cast<int4*>(g.a_dst),
                                                 reinterpret_cast<const int4*>(g.b_src), n16);
          CHECK(cudaSetDevice(g.a));
        }
      };
      const double s = timed(o, g, issue);
      CHECK(cudaGetLastError());
      const double bytes = static_cast<double>(n16 * 16) * (c.both ? 2 : 1);
      std::printf("%-9zu %-7s %.3f\n", size, c.scope, bytes / s / 1e9);
    }
    std::printf("\n");
  }
}

void latency_tables(const Options& o, const Gpus& g) {
  const int n = o.latency_iters;
  unsigned long long* flags_a = nullptr;  // on a: a's flag
  unsigned long long* flags_b = nullptr;  // on b: b's flag, and the word that store_fence and atomics target
  unsigned long long* out = nullptr;
  CHECK(cudaSetDevice(g.a));
  CHECK(cudaMalloc(&flags_a, 64));
  CHECK(cudaMalloc(&out, 8));
  CHECK(cudaSetDevice(g.b));
  CHECK(cudaMalloc(&flags_b, 64));
  CHECK(cudaSetDevice(g.a));
  auto reset = [&] {
    CHECK(cudaMemset(flags_a, 0, 64));
    CHECK(cudaSetDevice(g.b));
    CHECK(cudaMemset(flags_b, 0, 64));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaSetDevice(g.a));
    CHECK(cudaDeviceSynchronize());
  };
  auto run = [&](const char* name, const char* scope, auto launch, int ops) {
    if (!o.want(name)) return;
    reset();
    launch(n / 10 + 1);  // warm-up
    sync_both(g);
    reset();
    const auto t0 = std::chrono::steady_clock::now();
    launch(n);
    sync_both(g);
    CHECK(cudaGetLastError());
    header(name, "latency", "us");
    std::printf("%-9d %-7s %.3f\n\n", 8, scope, seconds_since(t0) * 1e6 / ops);
  };
  run(
      "store_fence", "thread", [&](int k) { store_fence<<<1, 1, 0, g.sa>>>(flags_b + 4, k); }, n);
  run(
      "atomic_fetch", "thread", [&](int k) { atomic_fetch<<<1, 1, 0, g.sa>>>(flags_b + 4, k, out); }, n);
  if (g.a != g.b) {
    run(
        "signal_round_trip", "thread",
        [&](int k) {
          CHECK(cudaSetDevice(g.b));
          ping_pong<<<1, 1, 0, g.sb>>>(flags_b, flags_a, k, false);
          CHECK(cudaSetDevice(g.a));
          ping_pong<<<1, 1, 0, g.sa>>>(flags_a, flags_b, k, true);
        },
        n);
  }
  CHECK(cudaFree(flags_a));
  CHECK(cudaFree(out));
  CHECK(cudaSetDevice(g.b));
  CHECK(cudaFree(flags_b));
  CHECK(cudaSetDevice(g.a));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) return 2;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    std::printf("cuda_ceiling: no usable GPU: skipped\n");
    return 77;
  }
  Gpus g;
  g.b = count > 1 ? 1 : 0;
  cudaDeviceProp pa{}, pb{};
  CHECK(cudaGetDeviceProperties(&pa, g.a));
  CHECK(cudaGetDeviceProperties(&pb, g.b));
  std::printf("cuda_ceiling: GPU %d (%s, bus %02x) to GPU %d (%s, bus %02x)%s\n", g.a, pa.name, pa.pciBusID, g.b,
              pb.name, pb.pciBusID, g.a == g.b ? ": one GPU, its own memory (not a link between GPUs)" : "");
  if (g.a != g.b) {
    int ab = 0, ba = 0;
    CHECK(cudaDeviceCanAccessPeer(&ab, g.a, g.b));
    CHECK(cudaDeviceCanAccessPeer(&ba, g.b, g.a));
    if (!ab || !ba) {
      std::fprintf(stderr, "cuda_ceiling: GPUs %d and %d have no peer access to each other\n", g.a, g.b);
      return 1;
    }
    CHECK(cudaSetDevice(g.a));
    CHECK(cudaDeviceEnablePeerAccess(g.b, 0));
    CHECK(cudaSetDevice(g.b));
    CHECK(cudaDeviceEnablePeerAccess(g.a, 0));
  }
  const size_t bytes = o.max_size;
  CHECK(cudaSetDevice(g.b));
  CHECK(cudaStreamCreateWithFlags(&g.sb, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&g.b_src, bytes));
  CHECK(cudaMalloc(&g.b_dst, bytes));
  CHECK(cudaMemset(g.b_src, 2, bytes));
  CHECK(cudaSetDevice(g.a));
  CHECK(cudaStreamCreateWithFlags(&g.sa, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&g.a_src, bytes));
  CHECK(cudaMalloc(&g.a_dst, bytes));
  CHECK(cudaMemset(g.a_src, 1, bytes));
  CHECK(cudaDeviceSynchronize());

  bandwidth_tables(o, g);
  latency_tables(o, g);

  // What the copies wrote: a's bytes at b, b's at a (a wrong pointer shows here, not as a fast figure).
  // Every size copied covers the byte checked.
  unsigned char at_b = 0, at_a = 0;
  CHECK(cudaMemcpy(&at_b, g.b_dst + o.min_size / 2, 1, cudaMemcpyDefault));
  CHECK(cudaMemcpy(&at_a, g.a_dst + o.min_size / 2, 1, cudaMemcpyDefault));
  const bool wrote_b = o.want("ce_put") || o.want("ce_bidir") || o.want("sm_put") || o.want("sm_bidir");
  const bool wrote_a = o.want("ce_get") || o.want("ce_bidir") || o.want("sm_get") || o.want("sm_bidir");
  if ((wrote_b && at_b != 1) || (wrote_a && at_a != 2)) {
    std::printf("FAILED: the copies left %u at GPU %d and %u at GPU %d (expected 1 and 2)\n", at_b, g.b, at_a, g.a);
    return 1;
  }
  CHECK(cudaFree(g.a_src));
  CHECK(cudaFree(g.a_dst));
  CHECK(cudaStreamDestroy(g.sa));
  CHECK(cudaSetDevice(g.b));
  CHECK(cudaFree(g.b_src));
  CHECK(cudaFree(g.b_dst));
  CHECK(cudaStreamDestroy(g.sb));
  return 0;
}
