// The stream-ordered host API on a non-default stream. Each operation is enqueued between kernels
// on the same stream, so that it only passes if it really runs in stream order:
//  - p, g, put, get, put_nbi, get_nbi, iput, iget (a sample of types, the sized and mem forms):
//    a kernel writes the source just before the put and overwrites it just after; a kernel
//    poisons the destination just before the get and checks it just after (after quiet_on_stream
//    for the _nbi forms); g returns what a kernel stored into the peer just before it;
//  - put_signal(_nbi)_on_stream, signal_op_on_stream and signal_wait_until_on_stream: the
//    receiver enqueues the wait and then a kernel that checks the data, the sender enqueues a
//    delay and then the put: the check only passes if the wait held the stream until the signal;
//  - wait_until, wait_until_all and wait_until_all_vector on stream, with status and cmp_values in
//    device memory and in pinned host memory: the other PE stores from a kernel on another
//    stream after a delay; a kernel after the wait records what it sees;
//  - sync_all_on_stream: a PE that arrives late still has its stores seen after the sync;
//  - quiet_on_stream: put_nbi_on_stream, quiet_on_stream, then a flag from a kernel;
//  - CUDA graphs: sequences of these calls captured with cudaStreamBeginCapture and replayed
//    several times, with the results checked after each replay (graph C: the signal and scalar
//    waits, putmem_signal, put_signal_nbi, a blocking typed put, get, get_nbi and iget).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test.cuh"

namespace {

using gputest::Failure;
using gputest::hash64;

// ---- the API under test, per type -----------------------------------------------------------------

#define GSHMEMT_STREAM_TYPED(NAME, TYPE)                                                                              \
  struct S_##NAME {                                                                                                   \
    using T = TYPE;                                                                                                   \
    static constexpr const char* name = "nvshmemx_" #NAME "_*_on_stream";                                             \
    static constexpr bool has_pg = true;                                                                              \
    static void p(T* d, T v, int pe, cudaStream_t s) { nvshmemx_##NAME##_p_on_stream(d, v, pe, s); }                  \
    static T g(const T* src, int pe, cudaStream_t s) { return nvshmemx_##NAME##_g_on_stream(src, pe, s); }            \
    __device__ static void dev_p(T* d, T v, int pe) { nvshmem_##NAME##_p(d, v, pe); }                                 \
    static void put(T* d, const T* src, size_t n, int pe, cudaStream_t s) {                                           \
      nvshmemx_##NAME##_put_on_stream(d, src, n, pe, s);                                                              \
    }                                                                                                                 \
    static void put_nbi(T* d, const T* src, size_t n, int pe, cudaStream_t s) {                                       \
      nvshmemx_##NAME##_put_nbi_on_stream(d, src, n, pe, s);                                                          \
    }                                                                                                                 \
    static void get(T* d, const T* src, size_t n, int pe, cudaStream_t s) {                                           \
      nvshmemx_##NAME##_get_on_stream(d, src, n, pe, s);                                                              \
    }                                                                                                                 \
    static void get_nbi(T* d, const T* src, size_t n, int pe, cudaStream_t s) {                                       \
      nvshmemx_##NAME##_get_nbi_on_stream(d, src, n, pe, s);                                                          \
    }                                                                                                                 \
    static void iput(T* d, const T* src, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t s) {              \
      nvshmemx_##NAME##_iput_on_stream(d, src, ds, ss, n, pe, s);                                                     \
    }                                                                                                                 \
    static void iget(T* d, const T* src, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t s) {              \
      nvshmemx_##NAME##_iget_on_stream(d, src, ds, ss, n, pe, s);                                                     \
    }                                                                                                                 \
    static void put_signal(T* d, const T* src, size_t n, uint64_t* sig, uint64_t v, int op, int pe, cudaStream_t s) { \
      nvshmemx_##NAME##_put_signal_on_stream(d, src, n, sig, v, op, pe, s);                                           \
    }                                                                                                                 \
    static void put_signal_nbi(T* d, const T* src, size_t n, uint64_t* sig, uint64_t v, int op, int pe,               \
                               cudaStream_t s) {                                                                      \
      nvshmemx_##NAME##_put_signal_nbi_on_stream(d, src, n, sig, v, op, pe, s);                                       \
    }                                                                                                                 \
  };
GSHMEMT_STREAM_TYPED(int, int)
GSHMEMT_STREAM_TYPED(double, double)
GSHMEMT_STREAM_TYPED(uint64, uint64_t)
GSHMEMT_STREAM_TYPED(char, char)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
GSHMEMT_STREAM_TYPED(half, __half)
#endif
#undef GSHMEMT_STREAM_TYPED

// The sized forms (element T of BITS bits) and the mem forms (bytes; the strided form is iput8).
#define GSHMEMT_STREAM_UNTYPED(NAME, TYPE, PUT, GET, IPUT, IGET, PUTSIG)                                              \
  struct NAME {                                                                                                       \
    using T = TYPE;                                                                                                   \
    static constexpr const char* name = #PUT "_on_stream and its family";                                             \
    static constexpr bool has_pg = false; /* no p and g in these families */                                          \
    static void put(T* d, const T* src, size_t n, int pe, cudaStream_t s) { PUT##_on_stream(d, src, n, pe, s); }      \
    static void put_nbi(T* d, const T* src, size_t n, int pe, cudaStream_t s) {                                       \
      PUT##_nbi_on_stream(d, src, n, pe, s);                                                                          \
    }                                                                                                                 \
    static void get(T* d, const T* src, size_t n, int pe, cudaStream_t s) { GET##_on_stream(d, src, n, pe, s); }      \
    static void get_nbi(T* d, const T* src, size_t n, int pe, cudaStream_t s) {                                       \
      GET##_nbi_on_stream(d, src, n, pe, s);                                                                          \
    }                                                                                                                 \
    static void iput(T* d, const T* src, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t s) {              \
      IPUT##_on_stream(d, src, ds, ss, n, pe, s);                                                                     \
    }                                                                                                                 \
    static void iget(T* d, const T* src, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t s) {              \
      IGET##_on_stream(d, src, ds, ss, n, pe, s);                                                                     \
    }                                                                                                                 \
    static void put_signal(T* d, const T* src, size_t n, uint64_t* sig, uint64_t v, int op, int pe, cudaStream_t s) { \
      PUTSIG##_on_stream(d, src, n, sig, v, op, pe, s);                                                               \
    }                                                                                                                 \
    static void put_signal_nbi(T* d, const T* src, size_t n, uint64_t* sig, uint64_t v, int op, int pe,               \
                               cudaStream_t s) {                                                                      \
      PUTSIG##_nbi_on_stream(d, src, n, sig, v, op, pe, s);                                                           \
    }                                                                                                                 \
  };
GSHMEMT_STREAM_UNTYPED(Sized16, uint16_t, nvshmemx_put16, nvshmemx_get16, nvshmemx_iput16, nvshmemx_iget16,
                       nvshmemx_put16_signal)
GSHMEMT_STREAM_UNTYPED(Sized64, uint64_t, nvshmemx_put64, nvshmemx_get64, nvshmemx_iput64, nvshmemx_iget64,
                       nvshmemx_put64_signal)
GSHMEMT_STREAM_UNTYPED(Sized128, uint4, nvshmemx_put128, nvshmemx_get128, nvshmemx_iput128, nvshmemx_iget128,
                       nvshmemx_put128_signal)
GSHMEMT_STREAM_UNTYPED(Mem, char, nvshmemx_putmem, nvshmemx_getmem, nvshmemx_iput8, nvshmemx_iget8,
                       nvshmemx_putmem_signal)
#undef GSHMEMT_STREAM_UNTYPED

// ---- kernels ------------------------------------------------------------------------------------------

__host__ __device__ inline unsigned char pattern(uint64_t seed, size_t i) {
  return static_cast<unsigned char>(hash64(seed + (i >> 3)) >> (8 * (i & 7)));
}
__host__ __device__ inline uint64_t round_seed(uint64_t base, int pe, unsigned long long round) {
  return hash64(base ^ (static_cast<uint64_t>(pe) << 48) ^ round);
}

__global__ void fill(char* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = static_cast<char>(pattern(seed, i));
  }
}
__global__ void set_bytes(char* p, size_t n, unsigned char v) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = static_cast<char>(v);
  }
}
// Checks that p[i] == pattern(seed, i) for i < n.
__global__ void verify(const char* p, size_t n, uint64_t seed, int check, Failure* f) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned char want = pattern(seed, i), got = static_cast<unsigned char>(p[i]);
    if (got != want) gputest::fail(f, check, static_cast<long long>(i), 0, want, got);
  }
}
// Checks a strided destination: element k (e bytes at k * dst * e) is source element k (at
// k * sst * e of the pattern), every other byte up to the last element is `poison`.
__global__ void verify_strided(const char* p, size_t m, size_t e, ptrdiff_t dst, ptrdiff_t sst, uint64_t seed,
                               unsigned char poison, int check, Failure* f) {
  const size_t span = static_cast<size_t>(dst) * e, extent = (m - 1) * span + e;
  for (size_t j = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; j < extent; j += gridDim.x * blockDim.x) {
    const size_t k = j / span, rel = j % span;
    const unsigned char want = rel < e ? pattern(seed, k * static_cast<size_t>(sst) * e + rel) : poison;
    const unsigned char got = static_cast<unsigned char>(p[j]);
    if (got != want) gputest::fail(f, check, static_cast<long long>(j), 0, want, got);
  }
}

__device__ inline unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__global__ void delay(unsigned long long ns) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) __nanosleep(1000);
}

// After a delay, stores `v` into the peer's `word` with the device API (for the g_on_stream order).
template <class S>
__global__ void delayed_p(typename S::T* word, typename S::T v, int pe, unsigned long long ns) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) __nanosleep(1000);
  S::dev_p(word, v, pe);
  nvshmem_quiet();
}

__global__ void record_signal(uint64_t* sig, unsigned long long* out) { *out = nvshmem_signal_fetch(sig); }

template <class T>
__global__ void record_values(const T* v, size_t n, unsigned long long* out) {
  for (size_t i = 0; i < n; ++i) out[i] = gputest::bits_of(v[i]);
}

// After a delay, stores `values` into the peer's `ivars` (for the stream waits).
template <class T>
__global__ void delayed_stores(T* ivars, const T* values, const int* skip, size_t n, int pe, unsigned long long ns) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) __nanosleep(1000);
  for (size_t i = 0; i < n; ++i) {
    if (!skip[i]) nvshmem_putmem(ivars + i, values + i, sizeof(T), pe);
  }
  nvshmem_quiet();
}

// sync_all_on_stream: PE `late` arrives late; every PE stores its round into its own word first.
__global__ void store_round(int* word, int round, int late, int me) {
  if (me == late) {
    const unsigned long long end = now_ns() + 5000000ull;
    while (now_ns() < end) __nanosleep(1000);
  }
  *reinterpret_cast<volatile int*>(word) = round;
}
__global__ void read_peer_round(const int* word, int peer, int* out) { *out = nvshmem_int_g(word, peer); }

// quiet_on_stream: a flag after the quiet, and a check of the data once the peer's flag arrived.
__global__ void send_flag(uint64_t* flag, uint64_t v, int pe) { nvshmem_uint64_p(flag, v, pe); }
__global__ void wait_flag_then_verify(uint64_t* flag, uint64_t v, const char* data, size_t n, uint64_t seed, int check,
                                      Failure* f) {
  if (threadIdx.x == 0) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, v);
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const unsigned char want = pattern(seed, i), got = static_cast<unsigned char>(data[i]);
    if (got != want) gputest::fail(f, check, static_cast<long long>(i), 0, want, got);
  }
}

// Graphs: the round lives on the device, so that each replay does the next round.
__global__ void next_round(unsigned long long* round, uint64_t* cmp_values) {
  const unsigned long long r = ++*round;
  cmp_values[0] = r;      // the data signal must reach r
  cmp_values[1] = r - 1;  // the peer must have checked round r - 1
}
__global__ void fill_round(char* p, size_t n, const unsigned long long* round, uint64_t base, int pe) {
  const uint64_t seed = round_seed(base, pe, *round);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = static_cast<char>(pattern(seed, i));
  }
}
__global__ void verify_round(const char* p, size_t n, const unsigned long long* round, uint64_t base, int pe, int check,
                             Failure* f) {
  const uint64_t seed = round_seed(base, pe, *round);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned char want = pattern(seed, i), got = static_cast<unsigned char>(p[i]);
    if (got != want) gputest::fail(f, check, static_cast<long long>(i), static_cast<long long>(*round), want, got);
  }
}

// Graph C: the PE whose turn it is in this round (its parity) pauses, so that the other PE's waits
// must hold its stream.
__global__ void delay_if_late(const unsigned long long* round, int me, unsigned long long ns) {
  if (static_cast<int>(*round % 2) != me) return;
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) __nanosleep(1000);
}
// Checks m floats got with iget (destination stride 1, source stride `sst`) from PE `pe`'s round.
__global__ void verify_iget_round(const char* p, size_t m, size_t sst, const unsigned long long* round, uint64_t base,
                                  int pe, int check, Failure* f) {
  const uint64_t seed = round_seed(base, pe, *round);
  for (size_t j = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; j < m * sizeof(float);
       j += gridDim.x * blockDim.x) {
    const size_t k = j / sizeof(float), rel = j % sizeof(float);
    const unsigned char want = pattern(seed, k * sst * sizeof(float) + rel), got = static_cast<unsigned char>(p[j]);
    if (got != want) gputest::fail(f, check, static_cast<long long>(j), static_cast<long long>(*round), want, got);
  }
}
// Graph C: the words that were waited on go back to 0 (the waits' values are fixed at capture).
__global__ void clear_waited(uint64_t* sig, uint64_t* flag, int* ivars, int n) {
  *sig = 0;
  *flag = 0;
  for (int i = 0; i < n; ++i) ivars[i] = 0;
}

// ---- host ------------------------------------------------------------------------------------------

constexpr size_t kRegion = 1u << 20;  // each region of the buffers
constexpr int kRegions = 6;
constexpr unsigned char kPoison = 0x5a;

struct Ctx {
  int me = 0, peer = 1;
  cudaStream_t s = nullptr, s2 = nullptr;
  char* sym_dst = nullptr;            // symmetric, kRegions regions: where the peer puts
  char* sym_src = nullptr;            // symmetric, kRegions regions: where the peer gets from
  char* dev_src = nullptr;            // device, kRegions regions
  char* dev_dst = nullptr;            // device, kRegions regions
  uint64_t* sig = nullptr;            // symmetric, 8 signals
  unsigned long long* rec = nullptr;  // device, 64 words of records
  gputest::Failures* failures = nullptr;
  uint64_t round = 0;
};

// Failure checks (kernels), named for the messages.
enum Check {
  kGet,
  kGetNbi,
  kIget,
  kPutSignalData,
  kQuietData,
  kGraphData,
  kGraphBData,
  kGraphCSignalData,
  kGraphCPutData,
  kGraphCGet,
  kGraphCGetNbi,
  kGraphCIget,
  kChecks
};
const char* const check_names[] = {"get_on_stream data (checked by the next kernel on the stream)",
                                   "get_nbi_on_stream data (checked after quiet_on_stream)",
                                   "iget_on_stream data or the poison between its elements",
                                   "put_signal data, checked after signal_wait_until_on_stream",
                                   "put_nbi_on_stream data, seen after a flag sent after quiet_on_stream",
                                   "data of a replayed graph (put_signal, waits on stream)",
                                   "data of a replayed graph (putmem_nbi, quiet_on_stream, barrier_all_on_stream)",
                                   "graph C: putmem_signal_on_stream data, checked after signal_wait_until_on_stream",
                                   "graph C: float_put_on_stream data, checked after uint64_wait_until_on_stream",
                                   "graph C: float_get_on_stream data (checked by the next kernel on the stream)",
                                   "graph C: float_get_nbi_on_stream data (checked after quiet_on_stream)",
                                   "graph C: float_iget_on_stream data (source stride 3)"};
static_assert(sizeof check_names / sizeof check_names[0] == kChecks, "a name for every check");

void sync(const Ctx& c, const std::string& what) {
  gputest::sync_or_die(c.s, 30, [&] { return what; });
}

void check_failures(const Ctx& c, const std::string& what) {
  const gputest::Failure f = c.failures->get();
  MP_CHECK(f.count == 0, "%s: %s: %llu bytes wrong; the first at byte %lld (round %lld): 0x%02llx, expected 0x%02llx",
           what.c_str(), check_names[f.check], f.count, f.index, f.round, f.actual, f.expected);
}

// Compares `n` bytes of device memory with the pattern (or with a poison byte past `n` up to `n + guard`).
void check_bytes(const char* dev, size_t n, size_t guard, uint64_t seed, const std::string& what) {
  const auto got = gputest::to_host(dev, n + guard);
  for (size_t i = 0; i < n + guard; ++i) {
    const unsigned char want = i < n ? pattern(seed, i) : kPoison;
    MP_CHECK(got[i] == want, "%s: byte %zu is 0x%02x, expected 0x%02x%s", what.c_str(), i, got[i], want,
             i < n ? "" : " (past the end: written outside the destination)");
  }
}

template <class S>
void rma_suite(Ctx& c) {
  using T = typename S::T;
  constexpr size_t e = sizeof(T);
  const uint64_t r = ++c.round;
  const uint64_t h = hash64(mp::seed_of(0, r, 0x57));  // the same on both PEs
  const size_t n = 1000 + h % 20000 / e;               // elements of the contiguous transfers
  const ptrdiff_t ds = 1 + static_cast<ptrdiff_t>((h >> 20) % 5), ss = 1 + static_cast<ptrdiff_t>((h >> 24) % 5);
  // Elements of the strided transfers: at most 20000 (a 2-D copy of many tiny rows is slow). Under the
  // network scale (gputest::net_scale), where each element is a network operation, at most 1/scale of
  // that (312 at 64; 170 for 16-byte elements).
  const size_t m = 1 + (h >> 32) % gputest::scaled(std::min<size_t>(kRegion / e / 6, 20000), 16);
  const uint64_t seed_put = round_seed(r, c.me, 1), seed_put2 = round_seed(r, c.me, 2);
  const uint64_t seed_sym = round_seed(r, c.me, 3);
  const std::string what = std::string(S::name);
  auto region = [](char* base, int k) { return base + static_cast<size_t>(k) * kRegion; };

  // This PE's side: poisoned destinations of the peer's puts, the source of the peer's gets.
  CUDA_CHECK(cudaMemset(c.sym_dst, kPoison, kRegions * kRegion));
  {
    std::vector<unsigned char> src(kRegion);
    for (size_t i = 0; i < kRegion; ++i) src[i] = pattern(seed_sym, i);
    CUDA_CHECK(cudaMemcpy(c.sym_src, src.data(), kRegion, cudaMemcpyHostToDevice));
  }
  c.failures->reset();
  gputest::sync_and_barrier();

  // Puts: the source is written by the kernel before and overwritten by the kernel after.
  T* src = reinterpret_cast<T*>(region(c.dev_src, 0));
  T* src2 = reinterpret_cast<T*>(region(c.dev_src, 1));
  fill<<<64, 256, 0, c.s>>>(region(c.dev_src, 0), kRegion, seed_put);
  fill<<<64, 256, 0, c.s>>>(region(c.dev_src, 1), kRegion, seed_put2);
  S::put(reinterpret_cast<T*>(region(c.sym_dst, 0)), src, n, c.peer, c.s);
  S::put_nbi(reinterpret_cast<T*>(region(c.sym_dst, 1)), src2, n, c.peer, c.s);
  S::iput(reinterpret_cast<T*>(region(c.sym_dst, 2)), src, ds, ss, m, c.peer, c.s);
  std::vector<T> pv(8);
  if constexpr (S::has_pg) {
    for (int q = 0; q < 8; ++q) {
      pv[q] = gputest::from_bits<T>(hash64(seed_put ^ static_cast<uint64_t>(q)));
      S::p(reinterpret_cast<T*>(region(c.sym_dst, 3)) + q, pv[q], c.peer, c.s);
    }
  }
  set_bytes<<<64, 256, 0, c.s>>>(region(c.dev_src, 0), kRegion, 0);
  set_bytes<<<64, 256, 0, c.s>>>(region(c.dev_src, 1), kRegion, 0);
  nvshmemx_quiet_on_stream(c.s);

  // Gets: the destination is poisoned by the kernel before and checked by the kernel after.
  set_bytes<<<64, 256, 0, c.s>>>(c.dev_dst, 3 * kRegion, kPoison);
  const uint64_t seed_peer_sym = round_seed(r, c.peer, 3);
  S::get(reinterpret_cast<T*>(region(c.dev_dst, 0)), reinterpret_cast<const T*>(c.sym_src), n, c.peer, c.s);
  verify<<<64, 256, 0, c.s>>>(region(c.dev_dst, 0), n * e, seed_peer_sym, kGet, c.failures->dev());
  S::get_nbi(reinterpret_cast<T*>(region(c.dev_dst, 1)), reinterpret_cast<const T*>(c.sym_src), n, c.peer, c.s);
  S::iget(reinterpret_cast<T*>(region(c.dev_dst, 2)), reinterpret_cast<const T*>(c.sym_src), ds, ss, m, c.peer, c.s);
  nvshmemx_quiet_on_stream(c.s);
  verify<<<64, 256, 0, c.s>>>(region(c.dev_dst, 1), n * e, seed_peer_sym, kGetNbi, c.failures->dev());
  verify_strided<<<64, 256, 0, c.s>>>(region(c.dev_dst, 2), m, e, ds, ss, seed_peer_sym, kPoison, kIget,
                                      c.failures->dev());

  // g: returns what a kernel, earlier on the stream, stored into the peer.
  if constexpr (S::has_pg) {
    T* word = reinterpret_cast<T*>(region(c.sym_src, 4));
    for (int q = 0; q < 3; ++q) {
      const T v = gputest::from_bits<T>(hash64(seed_put2 ^ static_cast<uint64_t>(q)));
      delayed_p<S><<<1, 1, 0, c.s>>>(word, v, c.peer, 2000000ull);
      const T got = S::g(word, c.peer, c.s);
      MP_CHECK(gputest::bits_of(got) == gputest::bits_of(v),
               "%s: g_on_stream returned %s, but the kernel before it on the stream stored %s into PE %d", what.c_str(),
               gputest::show<T>(gputest::bits_of(got)).c_str(), gputest::show<T>(gputest::bits_of(v)).c_str(), c.peer);
    }
  }
  CUDA_CHECK(cudaGetLastError());
  sync(c, what + " (puts and gets)");
  check_failures(c, what);
  gputest::sync_and_barrier();

  // What the peer put here.
  const uint64_t peer_put = round_seed(r, c.peer, 1), peer_put2 = round_seed(r, c.peer, 2);
  check_bytes(region(c.sym_dst, 0), n * e, 64, peer_put, what + ": put_on_stream");
  check_bytes(region(c.sym_dst, 1), n * e, 64, peer_put2, what + ": put_nbi_on_stream (after quiet_on_stream)");
  {
    const size_t span = static_cast<size_t>(ds) * e, extent = (m - 1) * span + e;
    const auto got = gputest::to_host(region(c.sym_dst, 2), extent + 64);
    for (size_t j = 0; j < extent + 64; ++j) {
      const size_t k = j / span, rel = j % span;
      const unsigned char want =
          j < extent && rel < e ? pattern(peer_put, k * static_cast<size_t>(ss) * e + rel) : kPoison;
      MP_CHECK(got[j] == want,
               "%s: iput_on_stream of %zu elements (destination stride %td, source stride %td): byte %zu (element "
               "%zu) is 0x%02x, expected 0x%02x",
               what.c_str(), m, ds, ss, j, k, got[j], want);
    }
  }
  if constexpr (S::has_pg) {
    std::vector<T> got(8);
    CUDA_CHECK(cudaMemcpy(got.data(), region(c.sym_dst, 3), 8 * sizeof(T), cudaMemcpyDeviceToHost));
    for (int q = 0; q < 8; ++q) {
      const T want = gputest::from_bits<T>(hash64(peer_put ^ static_cast<uint64_t>(q)));
      MP_CHECK(gputest::bits_of(got[q]) == gputest::bits_of(want), "%s: p_on_stream #%d: %s, expected %s", what.c_str(),
               q, gputest::show<T>(gputest::bits_of(got[q])).c_str(), gputest::show<T>(gputest::bits_of(want)).c_str());
    }
  }
  gputest::sync_and_barrier();
  if (c.me == 0) {
    std::printf("gpu_stream: %s: %sput, put_nbi, get, get_nbi, iput, iget in stream order\n", S::name,
                S::has_pg ? "p, g, " : "");
  }
}

// put_signal(_nbi)_on_stream, SET and ADD: the receiver's stream waits for the signal and then
// checks the data; the sender's stream delays before putting.
template <class S>
void put_signal_suite(Ctx& c) {
  using T = typename S::T;
  constexpr size_t e = sizeof(T);
  for (int op : {NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD}) {
    CUDA_CHECK(cudaMemset(c.sig, 0, sizeof(uint64_t)));
    gputest::sync_and_barrier();
    for (int k = 1; k <= 4; ++k) {
      const uint64_t r = ++c.round;
      const size_t n = (64u << 10) / e + k;
      const bool nbi = k % 2 == 0;
      const std::string what = std::string(S::name) + ": put_signal" + (nbi ? "_nbi" : "") + "_on_stream with " +
                               (op == NVSHMEM_SIGNAL_SET ? "NVSHMEM_SIGNAL_SET" : "NVSHMEM_SIGNAL_ADD") + ", round " +
                               std::to_string(k);
      c.failures->reset();
      CUDA_CHECK(cudaMemset(c.sym_dst, kPoison, n * e));
      gputest::sync_and_barrier();
      T* src = reinterpret_cast<T*>(c.dev_src);
      fill<<<64, 256, 0, c.s>>>(c.dev_src, n * e, round_seed(r, c.me, 7));
      delay<<<1, 1, 0, c.s>>>(1000000ull * (1 + c.me));  // the PEs' puts arrive at different times
      const uint64_t value = op == NVSHMEM_SIGNAL_SET ? 1000 + static_cast<uint64_t>(k) : 1;
      if (nbi) {
        S::put_signal_nbi(reinterpret_cast<T*>(c.sym_dst), src, n, c.sig, value, op, c.peer, c.s);
      } else {
        S::put_signal(reinterpret_cast<T*>(c.sym_dst), src, n, c.sig, value, op, c.peer, c.s);
      }
      const uint64_t expect = op == NVSHMEM_SIGNAL_SET ? value : static_cast<uint64_t>(k);
      nvshmemx_signal_wait_until_on_stream(c.sig, NVSHMEM_CMP_EQ, expect, c.s);
      verify<<<64, 256, 0, c.s>>>(c.sym_dst, n * e, round_seed(r, c.peer, 7), kPutSignalData, c.failures->dev());
      record_signal<<<1, 1, 0, c.s>>>(c.sig, c.rec);
      CUDA_CHECK(cudaGetLastError());
      sync(c, what);
      check_failures(c, what);
      unsigned long long seen = 0;
      CUDA_CHECK(cudaMemcpy(&seen, c.rec, sizeof seen, cudaMemcpyDeviceToHost));
      MP_CHECK(seen == expect, "%s: the signal is %llu after the wait, expected %llu", what.c_str(), seen,
               static_cast<unsigned long long>(expect));
      gputest::sync_and_barrier();
    }
  }
  if (c.me == 0) std::printf("gpu_stream: %s: put_signal(_nbi)_on_stream, SET and ADD\n", S::name);
}

void signal_op_suite(Ctx& c) {
  uint64_t* sig = c.sig + 1;
  CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
  gputest::sync_and_barrier();
  uint64_t expect = 0;
  for (int k = 0; k < 16; ++k) {
    const bool set = k % 4 == 0;
    const uint64_t x = hash64(mp::seed_of(0, ++c.round, 0x5105)) >> (set ? 0 : 8);
    expect = set ? x : expect + x;  // the same on both PEs: each receives what the other sends
    delay<<<1, 1, 0, c.s>>>(500000ull * (1 + c.me));
    nvshmemx_signal_op_on_stream(sig, x, set ? NVSHMEM_SIGNAL_SET : NVSHMEM_SIGNAL_ADD, c.peer, c.s);
    nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, expect, c.s);
    record_signal<<<1, 1, 0, c.s>>>(sig, c.rec);
    CUDA_CHECK(cudaGetLastError());
    const std::string what = std::string("nvshmemx_signal_op_on_stream(") + (set ? "SET" : "ADD") +
                             ") then nvshmemx_signal_wait_until_on_stream(EQ), step " + std::to_string(k);
    sync(c, what);
    unsigned long long seen = 0;
    CUDA_CHECK(cudaMemcpy(&seen, c.rec, sizeof seen, cudaMemcpyDeviceToHost));
    MP_CHECK(seen == expect, "%s: the signal is %llu, expected %llu", what.c_str(), seen,
             static_cast<unsigned long long>(expect));
    gputest::sync_and_barrier();  // the next step's update must not land before this check
  }
  if (c.me == 0) std::printf("gpu_stream: signal_op_on_stream, signal_wait_until_on_stream\n");
}

// The stream waits of type T. Variables start at `init`; the peer stores `fin` (from a kernel on
// its second stream, after a delay) into every element except the excluded ones; the waiter's
// stream waits, then a kernel records the values.
#define GSHMEMT_WAIT_ON_STREAM(NAME, TYPE)                                                                         \
  struct WS_##NAME {                                                                                               \
    using T = TYPE;                                                                                                \
    static constexpr const char* name = #NAME;                                                                     \
    static void wait(T* v, int cmp, T x, cudaStream_t s) { nvshmemx_##NAME##_wait_until_on_stream(v, cmp, x, s); } \
    static void wait_all(T* v, size_t n, const int* st, int cmp, T x, cudaStream_t s) {                            \
      nvshmemx_##NAME##_wait_until_all_on_stream(v, n, st, cmp, x, s);                                             \
    }                                                                                                              \
    static void wait_all_v(T* v, size_t n, const int* st, int cmp, T* x, cudaStream_t s) {                         \
      nvshmemx_##NAME##_wait_until_all_vector_on_stream(v, n, st, cmp, x, s);                                      \
    }                                                                                                              \
  };
GSHMEMT_WAIT_ON_STREAM(short, short)
GSHMEMT_WAIT_ON_STREAM(int, int)
GSHMEMT_WAIT_ON_STREAM(uint64, uint64_t)
GSHMEMT_WAIT_ON_STREAM(ptrdiff, ptrdiff_t)
#undef GSHMEMT_WAIT_ON_STREAM

template <class W>
void wait_suite(Ctx& c) {
  using T = typename W::T;
  constexpr size_t kW = 8;
  T* iv = reinterpret_cast<T*>(c.sym_dst + 5 * kRegion);
  // Values in pinned host memory and in device memory.
  T *fin_dev = nullptr, *cmpv_dev = nullptr, *cmpv_host = nullptr;
  int *skip_dev = nullptr, *status_dev = nullptr, *status_host = nullptr;
  CUDA_CHECK(cudaMalloc(&fin_dev, kW * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&cmpv_dev, kW * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&skip_dev, kW * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&status_dev, kW * sizeof(int)));
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&cmpv_host), kW * sizeof(T), cudaHostAllocDefault));
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&status_host), kW * sizeof(int), cudaHostAllocDefault));
  // Forms: 0 wait_until (element 3), 1 wait_until_all with status in device memory, 2 _all_vector
  // with status and cmp_values in pinned host memory, 3 _all_vector with both in device memory.
  const int cmps[] = {NVSHMEM_CMP_GE, NVSHMEM_CMP_NE, NVSHMEM_CMP_LT, NVSHMEM_CMP_GT};
  const char* forms[] = {"wait_until_on_stream", "wait_until_all_on_stream (status in device memory)",
                         "wait_until_all_vector_on_stream (status and cmp_values in pinned host memory)",
                         "wait_until_all_vector_on_stream (status and cmp_values in device memory)"};
  for (int form = 0; form < 4; ++form) {
    const int cmp = cmps[form];
    const uint64_t h = hash64(mp::seed_of(0, ++c.round, 0x3a));
    std::vector<T> init(kW), fin(kW), cmpv(kW);
    std::vector<int> status(kW, 0), skip(kW, 0);
    const T base = static_cast<T>(10 + h % 50);
    for (size_t i = 0; i < kW; ++i) {
      cmpv[i] = form >= 2 ? static_cast<T>(base + static_cast<T>(i)) : base;
      switch (cmp) {
        case NVSHMEM_CMP_GE:
          init[i] = static_cast<T>(cmpv[i] - 1);
          fin[i] = static_cast<T>(cmpv[i] + static_cast<T>(i));
          break;
        case NVSHMEM_CMP_NE:
          init[i] = cmpv[i];
          fin[i] = static_cast<T>(cmpv[i] + 1);
          break;
        case NVSHMEM_CMP_LT:
          init[i] = static_cast<T>(cmpv[i] + 2);
          fin[i] = static_cast<T>(cmpv[i] - 1);
          break;
        default:  // GT
          init[i] = cmpv[i];
          fin[i] = static_cast<T>(cmpv[i] + 3);
      }
    }
    if (form >= 1) {
      status[(h >> 8) % kW] = 1;  // excluded: never stored, never satisfies
      status[(h >> 16) % kW] = 1;
      skip = status;
    }
    if (form == 0) {
      for (size_t i = 0; i < kW; ++i) skip[i] = i != 3;
    }
    CUDA_CHECK(cudaMemcpy(iv, init.data(), kW * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(fin_dev, fin.data(), kW * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(skip_dev, skip.data(), kW * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(status_dev, status.data(), kW * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(cmpv_dev, cmpv.data(), kW * sizeof(T), cudaMemcpyHostToDevice));
    std::memcpy(cmpv_host, cmpv.data(), kW * sizeof(T));
    std::memcpy(status_host, status.data(), kW * sizeof(int));
    gputest::sync_and_barrier();
    // The peer's stores, on the second stream, late.
    delayed_stores<T><<<1, 1, 0, c.s2>>>(iv, fin_dev, skip_dev, kW, c.peer, 20000000ull);
    switch (form) {
      case 0:
        W::wait(iv + 3, cmp, cmpv[3], c.s);
        break;
      case 1:
        W::wait_all(iv, kW, status_dev, cmp, cmpv[0], c.s);
        break;
      case 2:
        W::wait_all_v(iv, kW, status_host, cmp, cmpv_host, c.s);
        break;
      default:
        W::wait_all_v(iv, kW, status_dev, cmp, cmpv_dev, c.s);
    }
    record_values<T><<<1, 1, 0, c.s>>>(iv, kW, c.rec);
    CUDA_CHECK(cudaGetLastError());
    const std::string what = std::string("nvshmemx_") + W::name + "_" + forms[form] + " with " + gputest::cmp_name(cmp);
    sync(c, what);
    gputest::sync_or_die(c.s2, 30, [&] { return what + " (the stores of the other PE)"; });
    std::vector<unsigned long long> rec(kW);
    CUDA_CHECK(cudaMemcpy(rec.data(), c.rec, kW * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < kW; ++i) {
      // Every element not excluded is waited for, and excluded ones are never stored.
      const T want = skip[i] ? init[i] : fin[i];
      MP_CHECK(rec[i] == gputest::bits_of(want), "%s: element %zu is %s in the kernel after the wait, expected %s%s",
               what.c_str(), i, gputest::show<T>(rec[i]).c_str(), gputest::show<T>(gputest::bits_of(want)).c_str(),
               skip[i] ? " (nobody stores to it)" : " (the stream did not wait for the peer's store)");
    }
    gputest::sync_and_barrier();
  }
  CUDA_CHECK(cudaFree(fin_dev));
  CUDA_CHECK(cudaFree(cmpv_dev));
  CUDA_CHECK(cudaFree(skip_dev));
  CUDA_CHECK(cudaFree(status_dev));
  CUDA_CHECK(cudaFreeHost(cmpv_host));
  CUDA_CHECK(cudaFreeHost(status_host));
  if (c.me == 0) std::printf("gpu_stream: %s: wait_until(_all)(_vector)_on_stream\n", W::name);
}

void sync_all_suite(Ctx& c) {
  int* word = reinterpret_cast<int*>(c.sym_dst + 5 * kRegion + 4096);
  int* out = reinterpret_cast<int*>(c.rec);
  for (int r = 1; r <= 6; ++r) {
    const int late = r % 2;
    store_round<<<1, 1, 0, c.s>>>(word, r, late, c.me);
    nvshmemx_sync_all_on_stream(c.s);
    read_peer_round<<<1, 1, 0, c.s>>>(word, c.peer, out);
    nvshmemx_sync_all_on_stream(c.s);  // both PEs have read before the next round's store
    CUDA_CHECK(cudaGetLastError());
    const std::string what = "nvshmemx_sync_all_on_stream, round " + std::to_string(r);
    sync(c, what);
    int got = 0;
    CUDA_CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    MP_CHECK(got == r, "%s: PE %d's word read after the sync is %d, expected %d (PE %d arrived late)", what.c_str(),
             c.peer, got, r, late);
  }
  gputest::sync_and_barrier();
  if (c.me == 0) std::printf("gpu_stream: sync_all_on_stream\n");
}

void quiet_suite(Ctx& c) {
  uint64_t* flag = c.sig + 2;
  CUDA_CHECK(cudaMemset(flag, 0, sizeof(uint64_t)));
  const size_t n = gputest::scaled<size_t>(4u << 20, 64u << 10);  // 4 MiB; 64 KiB under the network scale at 64
  gputest::sync_and_barrier();
  for (int r = 1; r <= 4; ++r) {
    const uint64_t rr = ++c.round;
    c.failures->reset();
    fill<<<128, 256, 0, c.s>>>(c.dev_src, n, round_seed(rr, c.me, 9));
    nvshmemx_putmem_nbi_on_stream(c.sym_dst, c.dev_src, n, c.peer, c.s);
    nvshmemx_quiet_on_stream(c.s);
    send_flag<<<1, 1, 0, c.s>>>(flag, static_cast<uint64_t>(r), c.peer);
    wait_flag_then_verify<<<1, 1024, 0, c.s>>>(flag, static_cast<uint64_t>(r), c.sym_dst, n, round_seed(rr, c.peer, 9),
                                               kQuietData, c.failures->dev());
    CUDA_CHECK(cudaGetLastError());
    const std::string size = n % (1u << 20) == 0 ? std::to_string(n >> 20) + " MiB" : std::to_string(n >> 10) + " KiB";
    const std::string what = "nvshmemx_putmem_nbi_on_stream of " + size +
                             ", nvshmemx_quiet_on_stream, then a flag, round " + std::to_string(r);
    sync(c, what);
    check_failures(c, what);
    gputest::sync_and_barrier();
  }
  if (c.me == 0) std::printf("gpu_stream: quiet_on_stream completes put_nbi_on_stream before later work\n");
}

// Graph A: waits on stream whose comparison values the graph itself advances, put_signal, iput,
// p and signal_op on stream. No quiet or barrier: the PEs pace each other with signals.
void graph_suite(Ctx& c) {
  const size_t n = 64u << 10;
  unsigned long long* round = c.rec;                        // device: the graph's round
  uint64_t* cmpv = reinterpret_cast<uint64_t*>(c.rec + 8);  // device: the waits' comparison values
  uint64_t* dsig = c.sig + 3;                               // data signal (added by the peer)
  uint64_t* ack = c.sig + 4;                                // the peer checked a round
  uint64_t* count = c.sig + 5;                              // signal_op ADD 1 per replay from the peer
  char* recv = c.sym_dst;
  int* irecv = reinterpret_cast<int*>(c.sym_dst + kRegion);
  int* pword = reinterpret_cast<int*>(c.sym_dst + 2 * kRegion);
  const size_t m = gputest::scaled<size_t>(1000, 16);  // ints of the iput (16 under the network scale at 64)
  const uint64_t base = mp::seed_of(0, ++c.round, 0x6a);
  CUDA_CHECK(cudaMemset(c.rec, 0, 16 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(c.sig + 3, 0, 3 * sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(irecv, kPoison, 2 * m * sizeof(int) + 64));
  c.failures->reset();
  gputest::sync_and_barrier();

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeGlobal));
  next_round<<<1, 1, 0, c.s>>>(round, cmpv);
  fill_round<<<64, 256, 0, c.s>>>(c.dev_src, n, round, base, c.me);
  nvshmemx_uint64_wait_until_all_vector_on_stream(ack, 1, nullptr, NVSHMEM_CMP_GE, cmpv + 1, c.s);
  nvshmemx_uint64_put_signal_on_stream(reinterpret_cast<uint64_t*>(recv), reinterpret_cast<uint64_t*>(c.dev_src), n / 8,
                                       dsig, 1, NVSHMEM_SIGNAL_ADD, c.peer, c.s);
  nvshmemx_int_iput_on_stream(irecv, reinterpret_cast<int*>(c.dev_src), 2, 1, m, c.peer, c.s);
  nvshmemx_int_p_on_stream(pword, 1234 + c.me, c.peer, c.s);
  nvshmemx_signal_op_on_stream(count, 1, NVSHMEM_SIGNAL_ADD, c.peer, c.s);
  nvshmemx_uint64_wait_until_all_vector_on_stream(dsig, 1, nullptr, NVSHMEM_CMP_GE, cmpv, c.s);
  verify_round<<<64, 256, 0, c.s>>>(recv, n, round, base, c.peer, kGraphData, c.failures->dev());
  nvshmemx_signal_op_on_stream(ack, 1, NVSHMEM_SIGNAL_ADD, c.peer, c.s);
  CUDA_CHECK(cudaStreamEndCapture(c.s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (unsigned long long rep = 1; rep <= 5; ++rep) {
    CUDA_CHECK(cudaGraphLaunch(exec, c.s));
    const std::string what =
        "graph of waits, put_signal, iput, p and signal_op on stream, replay " + std::to_string(rep);
    sync(c, what);
    check_failures(c, what);
    gputest::sync_and_barrier();  // both PEs' replays are done
    unsigned long long r = 0;
    uint64_t sigs[3];
    int p = 0;
    CUDA_CHECK(cudaMemcpy(&r, round, sizeof r, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(sigs, c.sig + 3, sizeof sigs, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&p, pword, sizeof p, cudaMemcpyDeviceToHost));
    MP_CHECK(r == rep, "%s: the graph's round counter is %llu", what.c_str(), r);
    MP_CHECK(sigs[0] == rep && sigs[1] == rep && sigs[2] == rep,
             "%s: data signal %llu, acknowledgements %llu, signal_op count %llu; expected %llu each", what.c_str(),
             static_cast<unsigned long long>(sigs[0]), static_cast<unsigned long long>(sigs[1]),
             static_cast<unsigned long long>(sigs[2]), rep);
    MP_CHECK(p == 1234 + c.peer, "%s: p_on_stream stored %d, expected %d", what.c_str(), p, 1234 + c.peer);
    // iput: element k of the peer's source (ints) at 2k, the ints between untouched.
    const auto got = gputest::to_host(irecv, 2 * m * sizeof(int));
    const uint64_t seed = round_seed(base, c.peer, rep);
    for (size_t k = 0; k < 2 * m; ++k) {
      int want = 0;
      if (k % 2 == 0) {
        unsigned char b[4];
        for (int q = 0; q < 4; ++q) b[q] = pattern(seed, (k / 2) * 4 + static_cast<size_t>(q));
        std::memcpy(&want, b, 4);
      } else {
        std::memset(&want, kPoison, 4);
      }
      int have;
      std::memcpy(&have, got.data() + k * 4, 4);
      MP_CHECK(have == want, "%s: iput_on_stream: int %zu is 0x%08x, expected 0x%08x", what.c_str(), k,
               static_cast<unsigned>(have), static_cast<unsigned>(want));
    }
    gputest::sync_and_barrier();  // checked before the next replay overwrites
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  if (c.me == 0) std::printf("gpu_stream: a captured graph of on-stream calls, replayed 5 times\n");

  // Graph B: putmem_nbi, quiet_on_stream, barrier_all_on_stream, a check, sync_all_on_stream.
  CUDA_CHECK(cudaMemset(c.rec, 0, 16 * sizeof(unsigned long long)));
  c.failures->reset();
  gputest::sync_and_barrier();
  const uint64_t base_b = mp::seed_of(0, ++c.round, 0x6b);
  CUDA_CHECK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeGlobal));
  next_round<<<1, 1, 0, c.s>>>(round, cmpv);
  fill_round<<<64, 256, 0, c.s>>>(c.dev_src, n, round, base_b, c.me);
  nvshmemx_putmem_nbi_on_stream(recv, c.dev_src, n, c.peer, c.s);
  nvshmemx_quiet_on_stream(c.s);
  nvshmemx_barrier_all_on_stream(c.s);
  verify_round<<<64, 256, 0, c.s>>>(recv, n, round, base_b, c.peer, kGraphBData, c.failures->dev());
  nvshmemx_sync_all_on_stream(c.s);
  CUDA_CHECK(cudaStreamEndCapture(c.s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int rep = 1; rep <= 5; ++rep) {
    CUDA_CHECK(cudaGraphLaunch(exec, c.s));
    const std::string what =
        "graph of putmem_nbi, quiet, barrier_all and sync_all on stream, replay " + std::to_string(rep);
    sync(c, what);
    check_failures(c, what);
  }
  gputest::sync_and_barrier();
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  if (c.me == 0) std::printf("gpu_stream: a captured graph with quiet, barrier_all and sync_all on stream\n");
}

// Graph C: the on-stream calls graphs A and B leave out. Both PEs capture the same graph; a replay
// does the next round (a kernel advances the round on the device, and every source is filled from
// it), and the PE whose turn it is (the round's parity) pauses before each of the three steps below
// that the other PE waits for, so that each wait must hold the stream in every other replay, and is
// the only thing that orders the check after it:
//  - putmem_signal_on_stream (SET 1); the receiver's signal_wait_until_on_stream(EQ 1), then a kernel
//    checks the data;
//  - float_put_signal_nbi_on_stream (ADD 1): the signal counts the replays; the host checks it and
//    the data after each replay;
//  - float_put_on_stream, then signal_op_on_stream (SET 1) into a word that the receiver waits on
//    with uint64_wait_until_on_stream(NE 0), then a kernel checks the data;
//  - the sender fills a symmetric buffer, then sets 3 of 4 ints with int_p_on_stream; the receiver
//    waits with int_wait_until_all_on_stream(GE 1, the fourth excluded by status), then gets the
//    buffer with float_get_on_stream, float_get_nbi_on_stream and float_iget_on_stream, and kernels
//    check what arrived (the _nbi ones after quiet_on_stream);
//  - kernels record what each wait saw, and at the end of the replay the words waited on go back to
//    0 (their comparison values are fixed at capture); the host barriers between replays keep the
//    peer's next updates after that.
void graph_c_suite(Ctx& c) {
  const size_t n = 64u << 10, nf = n / sizeof(float);
  const size_t m = gputest::scaled<size_t>(1000, 16), sst = 3;  // iget: m floats (16 at scale 64), source stride 3
  const unsigned long long kLate = 3000000;                     // ns: each pause of the late PE
  auto region = [](char* base, int k) { return base + static_cast<size_t>(k) * kRegion; };
  unsigned long long* round = c.rec;                        // device: the graph's round
  uint64_t* cmpv = reinterpret_cast<uint64_t*>(c.rec + 8);  // written by next_round, unused here
  unsigned long long* seen = c.rec + 16;                    // what the waits saw: 6 words
  uint64_t* words = reinterpret_cast<uint64_t*>(region(c.sym_dst, 4));
  uint64_t* sig_a = words;                         // putmem_signal_on_stream's signal (SET 1)
  uint64_t* sig_b = words + 1;                     // float_put_signal_nbi_on_stream's signal (ADD 1, never cleared)
  uint64_t* flag = words + 2;                      // signal_op_on_stream after float_put_on_stream (SET 1)
  int* ivars = reinterpret_cast<int*>(words + 4);  // int_p_on_stream sets 0, 1 and 3
  char* recv_a = region(c.sym_dst, 0);
  char* recv_b = region(c.sym_dst, 1);
  char* recv_c = region(c.sym_dst, 2);
  char* get_src = region(c.sym_src, 0);
  const uint64_t base_a = mp::seed_of(0, ++c.round, 0x6c1), base_b = mp::seed_of(0, c.round, 0x6c2);
  const uint64_t base_c = mp::seed_of(0, c.round, 0x6c3), base_g = mp::seed_of(0, c.round, 0x6c4);
  int* status = nullptr;
  const int status_host[4] = {0, 0, 1, 0};
  CUDA_CHECK(cudaMalloc(&status, sizeof status_host));
  CUDA_CHECK(cudaMemcpy(status, status_host, sizeof status_host, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(c.rec, 0, 32 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(c.sym_dst, kPoison, 3 * kRegion));
  CUDA_CHECK(cudaMemset(words, 0, 64));
  c.failures->reset();
  gputest::sync_and_barrier();

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeGlobal));
  next_round<<<1, 1, 0, c.s>>>(round, cmpv);
  fill_round<<<64, 256, 0, c.s>>>(region(c.dev_src, 0), n, round, base_a, c.me);
  fill_round<<<64, 256, 0, c.s>>>(region(c.dev_src, 1), n, round, base_b, c.me);
  fill_round<<<64, 256, 0, c.s>>>(region(c.dev_src, 2), n, round, base_c, c.me);
  // This PE's side for the peer. When late, it pauses before each step, so that each of the peer's
  // waits is what orders the check after it.
  delay_if_late<<<1, 1, 0, c.s>>>(round, c.me, kLate);
  nvshmemx_putmem_signal_on_stream(recv_a, region(c.dev_src, 0), n, sig_a, 1, NVSHMEM_SIGNAL_SET, c.peer, c.s);
  delay_if_late<<<1, 1, 0, c.s>>>(round, c.me, kLate);
  nvshmemx_float_put_signal_nbi_on_stream(reinterpret_cast<float*>(recv_b),
                                          reinterpret_cast<float*>(region(c.dev_src, 1)), nf, sig_b, 1,
                                          NVSHMEM_SIGNAL_ADD, c.peer, c.s);
  nvshmemx_float_put_on_stream(reinterpret_cast<float*>(recv_c), reinterpret_cast<float*>(region(c.dev_src, 2)), nf,
                               c.peer, c.s);
  nvshmemx_signal_op_on_stream(flag, 1, NVSHMEM_SIGNAL_SET, c.peer, c.s);
  delay_if_late<<<1, 1, 0, c.s>>>(round, c.me, kLate);
  fill_round<<<64, 256, 0, c.s>>>(get_src, n, round, base_g, c.me);
  for (int i : {0, 1, 3}) nvshmemx_int_p_on_stream(ivars + i, 1, c.peer, c.s);
  // The peer's side for this PE.
  nvshmemx_signal_wait_until_on_stream(sig_a, NVSHMEM_CMP_EQ, 1, c.s);
  record_values<uint64_t><<<1, 1, 0, c.s>>>(sig_a, 1, seen);
  verify_round<<<64, 256, 0, c.s>>>(recv_a, n, round, base_a, c.peer, kGraphCSignalData, c.failures->dev());
  nvshmemx_uint64_wait_until_on_stream(flag, NVSHMEM_CMP_NE, 0, c.s);
  record_values<uint64_t><<<1, 1, 0, c.s>>>(flag, 1, seen + 1);
  verify_round<<<64, 256, 0, c.s>>>(recv_c, n, round, base_c, c.peer, kGraphCPutData, c.failures->dev());
  nvshmemx_int_wait_until_all_on_stream(ivars, 4, status, NVSHMEM_CMP_GE, 1, c.s);
  record_values<int><<<1, 1, 0, c.s>>>(ivars, 4, seen + 2);
  float* got = reinterpret_cast<float*>(region(c.dev_dst, 0));
  float* got_nbi = reinterpret_cast<float*>(region(c.dev_dst, 1));
  float* got_strided = reinterpret_cast<float*>(region(c.dev_dst, 2));
  const float* peer_src = reinterpret_cast<const float*>(get_src);
  nvshmemx_float_get_on_stream(got, peer_src, nf, c.peer, c.s);
  verify_round<<<64, 256, 0, c.s>>>(region(c.dev_dst, 0), n, round, base_g, c.peer, kGraphCGet, c.failures->dev());
  nvshmemx_float_get_nbi_on_stream(got_nbi, peer_src, nf, c.peer, c.s);
  nvshmemx_float_iget_on_stream(got_strided, peer_src, 1, static_cast<ptrdiff_t>(sst), m, c.peer, c.s);
  nvshmemx_quiet_on_stream(c.s);
  verify_round<<<64, 256, 0, c.s>>>(region(c.dev_dst, 1), n, round, base_g, c.peer, kGraphCGetNbi, c.failures->dev());
  verify_iget_round<<<8, 256, 0, c.s>>>(region(c.dev_dst, 2), m, sst, round, base_g, c.peer, kGraphCIget,
                                        c.failures->dev());
  clear_waited<<<1, 1, 0, c.s>>>(sig_a, flag, ivars, 4);
  CUDA_CHECK(cudaStreamEndCapture(c.s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (unsigned long long rep = 1; rep <= 6; ++rep) {
    CUDA_CHECK(cudaGraphLaunch(exec, c.s));
    const std::string what =
        "graph C (signal_wait_until, putmem_signal, float_put_signal_nbi, float_put, "
        "uint64_wait_until, int_wait_until_all, float_get, get_nbi and iget on stream), replay " +
        std::to_string(rep) + " (PE " + std::to_string(rep % 2) + " late)";
    sync(c, what);
    check_failures(c, what);
    gputest::sync_and_barrier();  // both PEs' replays are done
    unsigned long long r = 0, rec[6];
    uint64_t count = 0;
    CUDA_CHECK(cudaMemcpy(&r, round, sizeof r, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(rec, seen, sizeof rec, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&count, sig_b, sizeof count, cudaMemcpyDeviceToHost));
    MP_CHECK(r == rep, "%s: the graph's round counter is %llu", what.c_str(), r);
    MP_CHECK(rec[0] == 1,
             "%s: the stream passed nvshmemx_signal_wait_until_on_stream(NVSHMEM_CMP_EQ, 1) with the signal at %llu",
             what.c_str(), rec[0]);
    MP_CHECK(rec[1] == 1,
             "%s: the stream passed nvshmemx_uint64_wait_until_on_stream(NVSHMEM_CMP_NE, 0) with the word at %llu, "
             "expected 1 (the peer's signal_op_on_stream SET)",
             what.c_str(), rec[1]);
    for (int i = 0; i < 4; ++i) {
      const unsigned long long want = i == 2 ? 0 : 1;
      MP_CHECK(rec[2 + i] == want,
               "%s: after nvshmemx_int_wait_until_all_on_stream(NVSHMEM_CMP_GE, 1), ivars[%d] was %llu, expected "
               "%llu%s",
               what.c_str(), i, rec[2 + i], want, i == 2 ? " (excluded by status: nobody stores to it)" : "");
    }
    MP_CHECK(count == rep,
             "%s: the signal of nvshmemx_float_put_signal_nbi_on_stream (NVSHMEM_SIGNAL_ADD 1 per replay) is %llu",
             what.c_str(), static_cast<unsigned long long>(count));
    check_bytes(recv_a, n, 64, round_seed(base_a, c.peer, rep), what + ": nvshmemx_putmem_signal_on_stream");
    check_bytes(recv_b, n, 64, round_seed(base_b, c.peer, rep), what + ": nvshmemx_float_put_signal_nbi_on_stream");
    check_bytes(recv_c, n, 64, round_seed(base_c, c.peer, rep), what + ": nvshmemx_float_put_on_stream");
    gputest::sync_and_barrier();  // checked before the next replay overwrites
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaFree(status));
  if (c.me == 0) {
    std::printf(
        "gpu_stream: graph C (signal and scalar waits, putmem_signal, put_signal_nbi, put, get, get_nbi, iget on "
        "stream), replayed 6 times\n");
  }
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  Ctx c;
  c.me = nvshmem_my_pe();
  c.peer = 1 - c.me;
  c.sym_dst = static_cast<char*>(nvshmem_malloc(kRegions * kRegion));
  c.sym_src = static_cast<char*>(nvshmem_malloc(kRegions * kRegion));
  c.sig = static_cast<uint64_t*>(nvshmem_calloc(8, sizeof(uint64_t)));
  MP_CHECK(c.sym_dst && c.sym_src && c.sig, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMalloc(&c.dev_src, kRegions * kRegion));
  CUDA_CHECK(cudaMalloc(&c.dev_dst, kRegions * kRegion));
  CUDA_CHECK(cudaMalloc(&c.rec, 64 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.s2, cudaStreamNonBlocking));
  {
    gputest::Failures failures;
    c.failures = &failures;
    rma_suite<S_int>(c);
    rma_suite<S_double>(c);
    rma_suite<S_uint64>(c);
    rma_suite<S_char>(c);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
    rma_suite<S_half>(c);
#endif
    rma_suite<Sized16>(c);
    rma_suite<Sized64>(c);
    rma_suite<Sized128>(c);
    rma_suite<Mem>(c);
    put_signal_suite<S_int>(c);
    put_signal_suite<S_double>(c);
    put_signal_suite<S_uint64>(c);
    put_signal_suite<S_char>(c);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
    put_signal_suite<S_half>(c);
#endif
    put_signal_suite<Sized16>(c);
    put_signal_suite<Sized64>(c);
    put_signal_suite<Sized128>(c);
    put_signal_suite<Mem>(c);
    signal_op_suite(c);
    wait_suite<WS_short>(c);
    wait_suite<WS_int>(c);
    wait_suite<WS_uint64>(c);
    wait_suite<WS_ptrdiff>(c);
    sync_all_suite(c);
    quiet_suite(c);
    graph_suite(c);
    graph_c_suite(c);
    gputest::sync_and_barrier();
  }
  CUDA_CHECK(cudaStreamDestroy(c.s));
  CUDA_CHECK(cudaStreamDestroy(c.s2));
  CUDA_CHECK(cudaFree(c.rec));
  CUDA_CHECK(cudaFree(c.dev_src));
  CUDA_CHECK(cudaFree(c.dev_dst));
  nvshmem_free(c.sig);
  nvshmem_free(c.sym_src);
  nvshmem_free(c.sym_dst);
  if (c.me == 0) std::printf("gpu_stream: every check passed on 2 PEs%s\n", gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
