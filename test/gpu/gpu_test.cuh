// Helpers for the GPU tests: skip without a GPU, check CUDA calls, bind the GPU the NVSHMEM way.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../mp/mp_test.h"

#define CUDA_CHECK(call)                                                                                  \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "PE %d: %s failed at %s:%d: %s\n", nvshmem_my_pe(), #call, __FILE__, __LINE__, \
                   cudaGetErrorString(e_));                                                               \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

#define KERNEL_CHECK()                   \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)

namespace gputest {

// Exit status 77 makes ctest report the test as skipped.
inline void skip_without_gpu() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no usable GPU: skipped\n");
    std::exit(77);
  }
}

// ---- the network scale -----------------------------------------------------------------------------
// Where every device operation to another PE goes through the network proxy (the net_ tests, with
// NVSHMEM_DISABLE_P2P), each costs a network round trip, and the full counts of the tests take far longer
// than their limits. GSHMEMT_NET_SCALE=k (a positive integer) has each test divide the operations that
// cross to another PE by about k (fewer blocks, threads, iterations, elements, repetitions), keeping every
// operation family, type, scope and ordering pattern, with the contention cases still contended by both
// PEs, and every value checked as exactly as before (the expectations follow the scaled counts). Unset,
// every test runs its full counts.

// The divisor k; 1 when GSHMEMT_NET_SCALE is unset. A value that is not a positive integer (at most
// 1000000) ends the process with exit status 1 and a message.
inline int net_scale() {
  static const int scale = [] {
    const char* s = std::getenv("GSHMEMT_NET_SCALE");
    if (s == nullptr) return 1;
    long v = 0;
    bool ok = *s != '\0';
    for (const char* p = s; ok && *p != '\0'; ++p) {
      ok = *p >= '0' && *p <= '9';
      if (ok) v = v * 10 + (*p - '0');
      ok = ok && v <= 1000000;
    }
    if (!ok || v < 1) {
      std::fprintf(stderr,
                   "GSHMEMT_NET_SCALE=\"%s\": the network scale must be a positive integer (the divisor of the "
                   "tests' operation counts, at most 1000000), such as 64\n",
                   s);
      std::exit(1);
    }
    return static_cast<int>(v);
  }();
  return scale;
}

// A count under the network scale: `n` itself when the scale is 1 (the full run is unchanged), else
// n / net_scale(), but at least `min` (and never more than n). `min` keeps what the case needs to mean
// anything: two PEs' worth of contention, a partial warp, both buffers of an alternation.
template <class N>
N scaled(N n, std::common_type_t<N> min) {
  const int s = net_scale();
  if (s == 1) return n;
  const N q = n / static_cast<N>(s);
  return q > min ? q : (min < n ? min : n);
}

// " (network scale 1/k)" under the network scale, else "": the tests append it to their summary lines,
// so that the log shows a reduced run.
inline std::string scale_note() {
  return net_scale() == 1 ? std::string() : " (network scale 1/" + std::to_string(net_scale()) + ")";
}

// GSHMEMT_HANG_S: the hang watchdog's limit in seconds for every kernel (see sync_or_die), a positive
// number; 0 when unset. Another value ends the process with exit status 1 and a message.
inline double hang_override() {
  static const double seconds = [] {
    const char* s = std::getenv("GSHMEMT_HANG_S");
    if (s == nullptr) return 0.0;
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || !(v > 0 && v <= 1e6)) {
      std::fprintf(stderr,
                   "GSHMEMT_HANG_S=\"%s\": the hang watchdog's limit must be a positive number of seconds (at most "
                   "1000000)\n",
                   s);
      std::exit(1);
    }
    return v;
  }();
  return seconds;
}

// The watchdog's limit for a kernel that a test gives `seconds`: GSHMEMT_HANG_S when set; else 4 x
// `seconds` under the network scale (a scaled run still waits on many network round trips, which a
// loaded machine stretches); else `seconds`.
inline double hang_seconds(double seconds) {
  if (hang_override() > 0) return hang_override();
  return net_scale() > 1 ? 4 * seconds : seconds;
}

// The usual NVSHMEM start: init, pick the GPU by node rank, then the first collective binds it.
// A bad GSHMEMT_NET_SCALE or GSHMEMT_HANG_S ends the test here, before it starts.
inline void init_and_select_gpu() {
  // A line at a time (set before anything is printed): a test that ctest stops at its time limit still
  // shows how far it came.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  net_scale();
  hang_override();
  skip_without_gpu();
  nvshmem_init();
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % n));
}

// Checks that need every PE's whole grid resident at once (a grid sized by
// nvshmemx_collective_launch_query_gridsize that waits across PEs) cannot hold where PEs share a GPU:
// their grids take turns. Such a test reports skipped there. Collective (the barrier binds the GPU).
inline void skip_if_limited_mpg(const char* test) {
  nvshmem_barrier_all();
  if (nvshmemx_init_status() == NVSHMEM_STATUS_LIMITED_MPG) {
    std::printf("%s: skipped: PEs share a GPU (limited MPG), so their grids take turns, never all resident at once\n",
                test);
    nvshmem_finalize();
    std::exit(77);
  }
}

// Completes this PE's device work, then waits for every PE. cudaMemset and cudaMemcpy from pageable
// memory may return before the device has done them, and nvshmem_barrier_all does not wait for the
// legacy stream: without the synchronisation a peer could put into memory this PE is still
// initialising.
inline void sync_and_barrier() {
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
}

// Copies `n` bytes of device (or symmetric) memory to a new host vector.
inline std::vector<unsigned char> to_host(const void* dev, size_t n) {
  std::vector<unsigned char> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), dev, n, cudaMemcpyDeviceToHost));
  return h;
}

// Test kernels run one block; SCOPE is 0 (thread: thread 0 calls), 1 (warp: the first warp) or 2
// (block). Whether this thread is one of the callers at SCOPE.
template <int SCOPE>
__device__ inline bool is_caller() {
  return SCOPE == 0 ? threadIdx.x == 0 : SCOPE == 1 ? threadIdx.x < 32 : true;
}

// nvshmem_barrier (barrier) or nvshmem_team_sync at SCOPE, then __syncthreads; the call's status in
// the calling threads, 0 in the others.
template <int SCOPE>
__device__ int sync_at(bool barrier, nvshmem_team_t team) {
  int rc = 0;
  if constexpr (SCOPE == 0) {
    if (threadIdx.x == 0) rc = barrier ? nvshmem_barrier(team) : nvshmem_team_sync(team);
  } else if constexpr (SCOPE == 1) {
    if (threadIdx.x < 32) rc = barrier ? nvshmemx_barrier_warp(team) : nvshmemx_team_sync_warp(team);
  } else {
    rc = barrier ? nvshmemx_barrier_block(team) : nvshmemx_team_sync_block(team);
  }
  __syncthreads();
  return rc;
}

inline const char* scope_name(int scope) {
  static const char* const names[] = {"thread", "warp", "block"};
  return scope >= 0 && scope < 3 ? names[scope] : "?";
}

inline const char* cmp_name(int cmp) {
  switch (cmp) {
    case NVSHMEM_CMP_EQ:
      return "NVSHMEM_CMP_EQ";
    case NVSHMEM_CMP_NE:
      return "NVSHMEM_CMP_NE";
    case NVSHMEM_CMP_GT:
      return "NVSHMEM_CMP_GT";
    case NVSHMEM_CMP_GE:
      return "NVSHMEM_CMP_GE";
    case NVSHMEM_CMP_LT:
      return "NVSHMEM_CMP_LT";
    case NVSHMEM_CMP_LE:
      return "NVSHMEM_CMP_LE";
  }
  return "?";
}

// splitmix64's finaliser: a well-mixed 64-bit function of `x`, the same on the host and the device,
// so that the host can recompute the operands and values a kernel used.
__host__ __device__ inline uint64_t hash64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The bits of a value of at most 8 bytes, and back: kernels report values of any type as bits.
template <class T>
__host__ __device__ inline unsigned long long bits_of(T v) {
  static_assert(sizeof(T) <= 8, "at most 8 bytes");
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
__host__ __device__ inline T from_bits(unsigned long long b) {
  static_assert(sizeof(T) <= 8, "at most 8 bytes");
  T v;
  memcpy(static_cast<void*>(&v), &b, sizeof(T));
  return v;
}

// A floating-point T (float, double, __half) from a double, and back: exact for the values tests use.
template <class T>
__host__ __device__ inline T float_of(double d) {
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(d));
  } else  // NOLINT(readability/braces)
#endif
  {
    return static_cast<T>(d);
  }
}
template <class T>
inline double double_of(T v) {
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(v));
  } else  // NOLINT(readability/braces)
#endif
  {
    return static_cast<double>(v);
  }
}

// A value of T, given as bits, for a message: the value and its bits in hex.
template <class T>
std::string show(unsigned long long b) {
  char buf[96];
  if constexpr (sizeof(T) < 8) b &= (1ull << (8 * sizeof(T))) - 1;
  const T v = from_bits<T>(b);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  if constexpr (std::is_same_v<T, __half>) {
    std::snprintf(buf, sizeof buf, "%g (0x%04llx)", static_cast<double>(__half2float(v)), b);
    return buf;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    std::snprintf(buf, sizeof buf, "%g (0x%04llx)", static_cast<double>(__bfloat162float(v)), b);
    return buf;
  }
#endif
  if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(buf, sizeof buf, "%.17g (0x%llx)", static_cast<double>(v), b);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    std::snprintf(buf, sizeof buf, "%lld (0x%llx)", static_cast<long long>(v), b);
  } else if constexpr (std::is_integral_v<T>) {
    std::snprintf(buf, sizeof buf, "%llu (0x%llx)", static_cast<unsigned long long>(v), b);
  } else {
    std::snprintf(buf, sizeof buf, "0x%llx", b);
  }
  return buf;
}

// The first failed check of a kernel, and how many checks failed. Kernels call fail(); the host
// reads the record (Failures::get) and prints it with what it knows (PE, type, scope, operation).
struct Failure {
  unsigned long long count;
  unsigned int claimed;
  int check;  // which check failed: each test numbers its own
  long long index;
  long long round;
  unsigned long long expected;  // bits (see bits_of)
  unsigned long long actual;
  int block;
  int thread;
};

__device__ inline void fail(Failure* f, int check, long long index, long long round, unsigned long long expected,
                            unsigned long long actual) {
  atomicAdd(&f->count, 1ull);
  if (atomicCAS(&f->claimed, 0u, 1u) == 0u) {
    f->check = check;
    f->index = index;
    f->round = round;
    f->expected = expected;
    f->actual = actual;
    f->block = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    f->thread = static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }
}

// A Failure record in device memory.
class Failures {
 public:
  Failures() {
    CUDA_CHECK(cudaMalloc(&dev_, sizeof(Failure)));
    reset();
  }
  ~Failures() { cudaFree(dev_); }
  Failures(const Failures&) = delete;
  Failures& operator=(const Failures&) = delete;
  Failure* dev() const { return dev_; }
  // Done when it returns, so that kernels on any stream see the cleared record.
  void reset() {
    CUDA_CHECK(cudaMemset(dev_, 0, sizeof(Failure)));
    CUDA_CHECK(cudaStreamSynchronize(0));
  }
  Failure get() const {
    Failure f;
    CUDA_CHECK(cudaMemcpy(&f, dev_, sizeof f, cudaMemcpyDeviceToHost));
    return f;
  }

 private:
  Failure* dev_ = nullptr;
};

// Words in mapped host memory where kernels note how far they got, so that a hang can be
// described (see sync_or_die). Kernels write them with note().
class Progress {
 public:
  static constexpr int kWords = 8;
  Progress() {
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, kWords * sizeof(unsigned long long), cudaHostAllocMapped));
    std::memset(p, 0, kWords * sizeof(unsigned long long));
    host_ = static_cast<volatile unsigned long long*>(p);
    void* d = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    dev_ = static_cast<unsigned long long*>(d);
  }
  ~Progress() { cudaFreeHost(const_cast<unsigned long long*>(host_)); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  unsigned long long* dev() const { return dev_; }
  unsigned long long read(int i) const { return host_[i]; }
  void clear() {
    for (int i = 0; i < kWords; ++i) host_[i] = 0;
  }

 private:
  volatile unsigned long long* host_ = nullptr;
  unsigned long long* dev_ = nullptr;
};

__device__ inline void note(unsigned long long* progress, int i, unsigned long long value) {
  if (progress) *reinterpret_cast<volatile unsigned long long*>(progress + i) = value;
}

// Waits for the work on `stream`. A kernel that has not finished after `seconds` (as hang_seconds
// adjusts it: GSHMEMT_HANG_S, the network scale) hangs: the message says which (describe() returns the
// text) and the process ends at once, without exit handlers (they would wait for the stuck kernel);
// gshmrun then stops the other PEs.
template <class Describe>
void sync_or_die(cudaStream_t stream, double seconds, Describe describe) {
  seconds = hang_seconds(seconds);
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) CUDA_CHECK(e);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > seconds) {
      const std::string what = describe();
      std::fprintf(stderr, "PE %d: %s has not finished after %.0f s: it hangs\n", nvshmem_my_pe(), what.c_str(),
                   seconds);
      std::fflush(nullptr);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  CUDA_CHECK(cudaGetLastError());
}

// A driver API function, found through the CUDA runtime (the tests link no libcuda): *fn, or the test
// fails naming it.
template <class F>
void driver_entry(F* fn, const char* name) {
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, reinterpret_cast<void**>(fn), 12000, cudaEnableDefault, &q));
  MP_CHECK(q == cudaDriverEntryPointSuccess && *fn != nullptr, "the CUDA driver has no %s", name);
}

// The driver's text for `r`.
inline const char* driver_error(CUresult r) {
  static decltype(&cuGetErrorString) get = nullptr;
  if (!get) driver_entry(&get, "cuGetErrorString");
  const char* s = nullptr;
  get(r, &s);
  return s ? s : "?";
}

// A team of the collective tests: a strided split of NVSHMEM_TEAM_WORLD (WORLD itself: start 0, stride 1).
struct Team {
  std::string name;
  int start = 0, stride = 1, size = 0;
  nvshmem_team_t handle = NVSHMEM_TEAM_INVALID;
  int index = -1;  // this PE's index in the team, or -1
  int pe(int i) const { return start + i * stride; }
  int index_of(int world) const {
    if (world < start || (world - start) % stride != 0) return -1;
    const int k = (world - start) / stride;
    return k < size ? k : -1;
  }
};

inline std::string team_text(const Team& t) {
  return t.name + " (member " + std::to_string(t.index) + " of " + std::to_string(t.size) + ")";
}

// WORLD, then two teams split from it (collective over the world, in the same order on every PE).
inline std::vector<Team> make_teams(int me, int npes) {
  std::vector<Team> teams;
  Team w;
  w.name = "NVSHMEM_TEAM_WORLD";
  w.size = npes;
  w.handle = NVSHMEM_TEAM_WORLD;
  w.index = me;
  teams.push_back(w);
  int spec[2][3];
  if (npes == 2) {
    const int s[2][3] = {{1, 1, 1}, {0, 1, 2}};
    std::memcpy(spec, s, sizeof spec);
  } else {
    const int s[2][3] = {{1, 2, npes / 2}, {0, 1, npes - 1}};
    std::memcpy(spec, s, sizeof spec);
  }
  for (auto& sp : spec) {
    Team t;
    t.start = sp[0];
    t.stride = sp[1];
    t.size = sp[2];
    t.name = "split of NVSHMEM_TEAM_WORLD (start " + std::to_string(t.start) + ", stride " + std::to_string(t.stride) +
             ", size " + std::to_string(t.size) + ")";
    nvshmem_team_t h = NVSHMEM_TEAM_INVALID;
    const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, t.start, t.stride, t.size, nullptr, 0, &h);
    MP_CHECK(rc == 0, "nvshmem_team_split_strided to %s returned %d", t.name.c_str(), rc);
    t.index = t.index_of(me);
    MP_CHECK((h != NVSHMEM_TEAM_INVALID) == (t.index >= 0),
             "nvshmem_team_split_strided to %s gave PE %d %s, but it is %s", t.name.c_str(), me,
             h == NVSHMEM_TEAM_INVALID ? "NVSHMEM_TEAM_INVALID" : "a team", t.index >= 0 ? "a member" : "no member");
    t.handle = h;
    teams.push_back(t);
  }
  return teams;
}

// Destroys the split teams of make_teams (WORLD, the first, stays).
inline void destroy_teams(const std::vector<Team>& teams) {
  for (size_t ti = 1; ti < teams.size(); ++ti) {
    if (teams[ti].handle != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(teams[ti].handle);
  }
}

}  // namespace gputest

// A driver API call that must succeed.
#define CU_CHECK(call)                                                                                    \
  do {                                                                                                    \
    CUresult r_ = (call);                                                                                 \
    if (r_ != CUDA_SUCCESS) {                                                                             \
      std::fprintf(stderr, "PE %d: %s failed at %s:%d: %s\n", nvshmem_my_pe(), #call, __FILE__, __LINE__, \
                   gputest::driver_error(r_));                                                            \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)
