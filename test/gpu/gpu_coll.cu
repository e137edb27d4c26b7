// Team collectives on the GPU, through the NVSHMEM API only: broadcast, fcollect and alltoall (typed
// forms for int, double, char, uint64 and half, and the mem forms), barrier and team_sync, and the
// team queries, on NVSHMEM_TEAM_WORLD and on two teams split from it with nvshmem_team_split_strided
// (2 PEs: {1} and {0, 1}; 4 PEs: {1, 3} and {0, 1, 2}; in general start 1 stride 2 size npes/2, and
// start 0 stride 1 size npes-1). PEs outside a split team get NVSHMEM_TEAM_INVALID and do not call.
//
// Semantics checked: PE_root is the root's index in the team and every member's dest (the root's
// too) receives the root's source; fcollect's dest block k comes from team member k; alltoall sends
// member i's source block j to member j's dest block i. A guard of poison before and after each dest
// must stay untouched, the source must not change, and every call must return 0. Sizes (bytes; the
// typed forms round up to whole elements): 0, 1, 7, 64, 1000, 4096, 65536+3, 1 MiB and 5 MiB, on
// both sides of the thresholds an implementation may switch algorithms at. The data of every
// member depends on (family, collective, team, scope, size, member), so stale data never passes.
//
// Under the network scale (GSHMEMT_NET_SCALE, gputest::net_scale), where every operation to another PE
// is a network round trip: the two largest sizes, the rounds of the syncs and the ring kernel, the ints
// of the ring, and the graph replays are divided by the scale (at scale 64: 16 KiB and 80 KiB, 4
// rounds, 32 ints, 4 replays); every family, collective, scope, team and form still runs.
//
// Sub-tests (argv[1]: "all" or nothing runs them all; several separated by commas):
//   device  the device team queries (my_pe, n_pes, translate_pe; -1 for NVSHMEM_TEAM_INVALID);
//           nvshmem_barrier and nvshmem_team_sync at thread, warp and block scope: after each, every
//           member sees every member's put of the round (team_sync after put and nvshmem_quiet);
//           the collectives called from kernels (one block of kThreads threads), the data made and
//           checked on the device, and the last size also checked on the host; barrier or team_sync
//           (alternately) before each call orders the poisoning. int, char and mem: every scope
//           (thread, warp, block) on the world team, one scope in turn on the split teams; double,
//           uint64 and half: one scope per collective, (family + collective) % 3. Thread scope stops
//           at 64 KiB + 3 (1 MiB for int and mem) and warp scope at 1 MiB: one thread moving 5 MiB
//           to each of 4 PEs would take long on a time-sliced GPU.
//   stream  nvshmemx_<T>_<coll>_on_stream and the mem forms after nvshmemx_barrier_on_stream or
//           nvshmemx_team_sync_on_stream, the source copied in from a host pattern and the dest
//           copied back to the host, all on one stream.
//   host    the blocking host forms nvshmem_<T>_<coll> and nvshmem_<coll>mem (the GPU backend runs
//           them with its own kernels), after a host nvshmem_barrier or nvshmem_team_sync.
//   graph   nvshmemx_barrier_on_stream, int broadcast, fcollect and alltoall on stream, and
//           nvshmemx_team_sync_on_stream captured into a CUDA graph with a kernel that makes new
//           source data each replay (from a device counter) and a kernel that checks the results
//           and keeps a checksum; 100 replays on the world team and on a split team, each checked on
//           the host too.
//   launch  nvshmemx_collective_launch of a one-block kernel (PEs may share the GPU: the library
//           allows it with a warning) that passes data round a ring with nvshmem_int_p and
//           nvshmem_barrier_all / nvshmemx_barrier_all_block, then gathers a value of every PE with
//           nvshmemx_int_fcollect_block; the launch must return 0.
// PEs may share one GPU (time-sliced), so every kernel is one block and waits only on its peers.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test.cuh"

namespace {

using gputest::Failure;
using gputest::hash64;

constexpr int kThreads = 512;   // the block of the device test kernels
constexpr size_t kGuard = 256;  // poison before and after each dest
constexpr unsigned char kPoison = 0xa5;
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kMaxBytes = 5 * kMiB;  // the largest block of a collective
constexpr int kSyncRounds = 20;
constexpr int kReplays = 100;
constexpr int kRing = 256;  // ints per bank of the ring kernel (the most it puts per round)
constexpr int kRingRounds = 10;
constexpr double kHang = 120;  // seconds before a kernel counts as hung

// The counts above under the network scale. The syncs and the ring keep both banks of their
// alternation, each used twice, and the ring's two barrier forms (odd and even rounds).
int scaled_sync_rounds() { return gputest::scaled(kSyncRounds, 4); }
int scaled_replays() { return gputest::scaled(kReplays, 4); }
int scaled_ring_ints() { return gputest::scaled(kRing, 32); }
int scaled_ring_rounds() { return gputest::scaled(kRingRounds, 4); }

enum Coll { kBroadcast = 0, kFcollect = 1, kAlltoall = 2 };
const char* const kCollNames[] = {"broadcast", "fcollect", "alltoall"};
enum Sub { kSubDevice = 1, kSubStream = 2, kSubHost = 3 };
enum Check { kCheckDest = 1, kCheckFrontGuard, kCheckBackGuard, kCheckSource, kCheckRc, kCheckSyncRc };

// ---- the API under test, per family ------------------------------------------------------------
// dev: the call at scope SCOPE, 0 (thread), 1 (warp) or 2 (block), made by the calling threads only;
// host: the blocking host form; stream: the on-stream form.

#define GSHMEMT_COLL_FAMILY(STRUCT, ID, TYPE, LABEL, ALL_SCOPES, BC, FC, AA, BCX, FCX, AAX)                \
  struct STRUCT {                                                                                          \
    using T = TYPE;                                                                                        \
    static constexpr int id = ID;                                                                          \
    static constexpr const char* label = LABEL;                                                            \
    static constexpr bool all_scopes = ALL_SCOPES;                                                         \
    template <int COLL, int SCOPE>                                                                         \
    __device__ static int dev(nvshmem_team_t t, T* d, const T* s, size_t n, int root) {                    \
      if constexpr (COLL == kBroadcast) {                                                                  \
        if constexpr (SCOPE == 0) return BC(t, d, s, n, root);                                             \
        if constexpr (SCOPE == 1) return BCX##_warp(t, d, s, n, root);                                     \
        if constexpr (SCOPE == 2) return BCX##_block(t, d, s, n, root);                                    \
      } else if constexpr (COLL == kFcollect) {                                                            \
        if constexpr (SCOPE == 0) return FC(t, d, s, n);                                                   \
        if constexpr (SCOPE == 1) return FCX##_warp(t, d, s, n);                                           \
        if constexpr (SCOPE == 2) return FCX##_block(t, d, s, n);                                          \
      } else {                                                                                             \
        if constexpr (SCOPE == 0) return AA(t, d, s, n);                                                   \
        if constexpr (SCOPE == 1) return AAX##_warp(t, d, s, n);                                           \
        if constexpr (SCOPE == 2) return AAX##_block(t, d, s, n);                                          \
      }                                                                                                    \
    }                                                                                                      \
    static int host(int coll, nvshmem_team_t t, T* d, const T* s, size_t n, int root) {                    \
      if (coll == kBroadcast) return BC(t, d, s, n, root);                                                 \
      if (coll == kFcollect) return FC(t, d, s, n);                                                        \
      return AA(t, d, s, n);                                                                               \
    }                                                                                                      \
    static int stream(int coll, nvshmem_team_t t, T* d, const T* s, size_t n, int root, cudaStream_t st) { \
      if (coll == kBroadcast) return BCX##_on_stream(t, d, s, n, root, st);                                \
      if (coll == kFcollect) return FCX##_on_stream(t, d, s, n, st);                                       \
      return AAX##_on_stream(t, d, s, n, st);                                                              \
    }                                                                                                      \
  };
#define GSHMEMT_COLL_TYPED(NAME, TYPE, ID, ALL_SCOPES)                                                              \
  GSHMEMT_COLL_FAMILY(F_##NAME, ID, TYPE, #NAME, ALL_SCOPES, nvshmem_##NAME##_broadcast, nvshmem_##NAME##_fcollect, \
                      nvshmem_##NAME##_alltoall, nvshmemx_##NAME##_broadcast, nvshmemx_##NAME##_fcollect,           \
                      nvshmemx_##NAME##_alltoall)
// ALL_SCOPES: the device test calls each collective at every scope; otherwise at one scope, (id + the
// collective) % 3, so that the family still meets each scope once (and the test compiles faster).
GSHMEMT_COLL_TYPED(int, int, 0, true)
GSHMEMT_COLL_TYPED(double, double, 1, false)
GSHMEMT_COLL_TYPED(char, char, 2, true)
GSHMEMT_COLL_TYPED(uint64, uint64_t, 3, false)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
GSHMEMT_COLL_TYPED(half, __half, 4, false)
#endif
// nelems counts bytes in the mem forms.
GSHMEMT_COLL_FAMILY(F_mem, 5, char, "mem", true, nvshmem_broadcastmem, nvshmem_fcollectmem, nvshmem_alltoallmem,
                    nvshmemx_broadcastmem, nvshmemx_fcollectmem, nvshmemx_alltoallmem)
#undef GSHMEMT_COLL_TYPED
#undef GSHMEMT_COLL_FAMILY

// The name of the call, for messages: form is "", "_warp", "_block" or "_on_stream".
std::string op_name(const char* label, int coll, const char* form) {
  const bool mem = std::strcmp(label, "mem") == 0;
  const std::string base = mem ? std::string(kCollNames[coll]) + "mem" : std::string(label) + "_" + kCollNames[coll];
  const bool x = form[0] != '\0';
  return (x ? "nvshmemx_" : "nvshmem_") + base + form;
}
const char* const kScopeForms[] = {"", "_warp", "_block"};

// ---- data --------------------------------------------------------------------------------------

template <class T>
__host__ __device__ inline size_t elems_of(size_t bytes) {
  return (bytes + sizeof(T) - 1) / sizeof(T);
}
__host__ __device__ inline size_t src_bytes_of(int coll, int n, size_t bytes) {
  return coll == kAlltoall ? static_cast<size_t>(n) * bytes : bytes;
}
__host__ __device__ inline size_t dest_bytes_of(int coll, int n, size_t bytes) {
  return coll == kBroadcast ? bytes : static_cast<size_t>(n) * bytes;
}
// The root (index in the team) of size s of a case: it moves round the team.
__host__ __device__ inline int root_of(uint64_t round, int s, int n) {
  return static_cast<int>((round + static_cast<uint64_t>(s)) % static_cast<uint64_t>(n));
}
// A number per case, the same on every member: sub-test, team, family, collective and scope.
inline uint64_t round_of(int sub, int team, int fam, int coll, int scope) {
  return ((((static_cast<uint64_t>(sub) * 4 + team) * 8 + fam) * 4 + coll) * 4 + scope) + 1;
}
// The seed of member `member`'s source at size s of case `round`.
__host__ __device__ inline uint64_t seed_of(uint64_t round, int member, int s) {
  return hash64((round << 32) ^ (static_cast<uint64_t>(member) << 8) ^ static_cast<uint64_t>(s));
}
// Byte b of the pattern of `seed`: byte b%8 of hash64(seed + b/8).
__host__ __device__ inline unsigned char pat_byte(uint64_t seed, size_t b) {
  return static_cast<unsigned char>(hash64(seed + (b >> 3)) >> (8 * (b & 7)));
}
// Bytes [start, start+len) of the pattern of `seed`.
void host_pattern(unsigned char* out, uint64_t seed, size_t start, size_t len) {
  size_t word = ~size_t{0};
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) {
    const size_t b = start + i;
    if ((b >> 3) != word) {
      word = b >> 3;
      v = hash64(seed + word);
    }
    out[i] = static_cast<unsigned char>(v >> (8 * (b & 7)));
  }
}
// Byte b of member me's dest after the collective (blocks of `bytes` bytes).
__host__ __device__ inline unsigned char want_dest(int coll, int me, int root, size_t bytes, uint64_t round, int s,
                                                   size_t b) {
  if (coll == kBroadcast) return pat_byte(seed_of(round, root, s), b);
  const size_t k = b / bytes, off = b % bytes;
  if (coll == kFcollect) return pat_byte(seed_of(round, static_cast<int>(k), s), off);
  return pat_byte(seed_of(round, static_cast<int>(k), s), static_cast<size_t>(me) * bytes + off);
}
// The whole dest with its guards, as the host expects it.
void expected_dest(unsigned char* want, int coll, int me, int n, int root, size_t bytes, uint64_t round, int s) {
  const size_t db = dest_bytes_of(coll, n, bytes);
  std::memset(want, kPoison, kGuard);
  std::memset(want + kGuard + db, kPoison, kGuard);
  unsigned char* d = want + kGuard;
  if (coll == kBroadcast) {
    host_pattern(d, seed_of(round, root, s), 0, bytes);
    return;
  }
  for (int k = 0; k < n; ++k) {
    host_pattern(d + static_cast<size_t>(k) * bytes, seed_of(round, k, s),
                 coll == kFcollect ? 0 : static_cast<size_t>(me) * bytes, bytes);
  }
}
// "" when `got` (dest and guards, copied back) is `want`; else where it differs first, and how often.
std::string first_difference(const unsigned char* got, const unsigned char* want, size_t db, size_t bytes) {
  const size_t total = db + 2 * kGuard;
  size_t first = total, count = 0;
  for (size_t i = 0; i < total; ++i) {
    if (got[i] != want[i]) {
      if (first == total) first = i;
      ++count;
    }
  }
  if (count == 0) return "";
  char buf[256];
  if (first < kGuard) {
    std::snprintf(buf, sizeof buf, "byte %zu of the guard before dest was overwritten with 0x%02x", first, got[first]);
  } else if (first >= kGuard + db) {
    std::snprintf(buf, sizeof buf, "byte %zu of the guard after dest was overwritten with 0x%02x", first - kGuard - db,
                  got[first]);
  } else {
    const size_t b = first - kGuard;
    std::snprintf(buf, sizeof buf, "dest byte %zu (block %zu, offset %zu) is 0x%02x, expected 0x%02x", b, b / bytes,
                  b % bytes, got[first], want[first]);
  }
  return std::string(buf) + " (" + std::to_string(count) + " wrong bytes)";
}

// The sizes of a case, in bytes; the last one is checked on the host too after the device test.
struct SizeList {
  int count = 0;
  size_t bytes[12] = {};
};
// Thread scope moves megabytes with one thread, so it stops at 64 KiB + 3 (1 MiB for the int and mem
// families); warp scope stops at 1 MiB; block scope, the stream and the host forms take them all.
// Under the network scale the two largest are divided by it (16 KiB and 80 KiB at 64).
SizeList sizes_for(int scope, bool big_thread) {
  SizeList l;
  for (size_t b : {size_t{0}, size_t{1}, size_t{7}, size_t{64}, size_t{1000}, size_t{4096}}) l.bytes[l.count++] = b;
  if (scope >= 1 || big_thread) l.bytes[l.count++] = gputest::scaled(kMiB, 16u << 10);
  if (scope >= 2) l.bytes[l.count++] = gputest::scaled(kMaxBytes, 80u << 10);
  l.bytes[l.count++] = 65536 + 3;
  return l;
}

// ---- teams -------------------------------------------------------------------------------------

using gputest::Team;
using gputest::team_text;

struct Ctx {
  int me = 0, npes = 0;
  std::vector<Team> teams;           // [0] world, [1] and [2] split
  unsigned char* sym_src = nullptr;  // symmetric: kGuard bytes, then the source
  unsigned char* sym_dst = nullptr;  // symmetric: kGuard bytes, the dest, kGuard bytes
  size_t buf = 0;                    // bytes of each
  uint64_t* sync_slots = nullptr;    // symmetric [2][npes]
  int* ring = nullptr;               // symmetric [2][kRing] slots, 1 source, [npes] gathered
  unsigned char* h_src = nullptr;    // pinned host buffers of `buf` bytes
  unsigned char* h_dst = nullptr;
  unsigned char* h_back = nullptr;
  std::vector<unsigned char> want;
  int* info = nullptr;                  // device words of the query kernels
  unsigned long long* words = nullptr;  // device words: graph counter, mismatches, checksum; launches
  cudaStream_t st = nullptr;
  gputest::Failures* failures = nullptr;
  unsigned char* src() const { return sym_src + kGuard; }
  unsigned char* dst() const { return sym_dst + kGuard; }
};

void make_teams(Ctx& c) { c.teams = gputest::make_teams(c.me, c.npes); }

// What the team queries must answer on this PE, in the layout of team_queries' output.
std::vector<int> expected_queries(const Ctx& c, const Team& t, const Team& other) {
  const int n = c.npes;
  std::vector<int> want(4 + 3 * n, -2);
  const bool member = t.index >= 0;
  want[0] = member ? t.index : -1;
  want[1] = member ? t.size : -1;
  want[2] = c.me;
  want[3] = c.npes;
  for (int i = 0; member && i < t.size; ++i) {
    want[4 + i] = t.pe(i);
    want[4 + 2 * n + i] = other.index >= 0 ? other.index_of(t.pe(i)) : -1;
  }
  for (int w = 0; w < n; ++w) want[4 + n + w] = member ? t.index_of(w) : -1;
  return want;
}

// The host queries of every team.
void host_queries(const Ctx& c) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    const Team& t = c.teams[ti];
    const Team& other = c.teams[(ti + 1) % c.teams.size()];
    const std::vector<int> want = expected_queries(c, t, other);
    const int n = c.npes;
    std::vector<int> got(want.size(), -2);
    got[0] = nvshmem_team_my_pe(t.handle);
    got[1] = nvshmem_team_n_pes(t.handle);
    got[2] = nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD);
    got[3] = nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD);
    for (int i = 0; t.index >= 0 && i < t.size; ++i) {
      got[4 + i] = nvshmem_team_translate_pe(t.handle, i, NVSHMEM_TEAM_WORLD);
      got[4 + 2 * n + i] = nvshmem_team_translate_pe(t.handle, i, other.handle);
    }
    for (int w = 0; w < n; ++w) got[4 + n + w] = nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, w, t.handle);
    for (size_t k = 0; k < want.size(); ++k) {
      MP_CHECK(got[k] == want[k], "host team query %zu of %s (other team %s): %d, expected %d", k, t.name.c_str(),
               other.name.c_str(), got[k], want[k]);
    }
  }
}

// ---- device: queries ---------------------------------------------------------------------------

// out: [0] my_pe(team), [1] n_pes(team), [2] my_pe(WORLD), [3] n_pes(WORLD), [4 + i] translate(team,
// i, WORLD), [4 + npes + w] translate(WORLD, w, team), [4 + 2 npes + i] translate(team, i, other);
// -2 where not asked (i beyond the team).
__global__ void team_queries(nvshmem_team_t team, nvshmem_team_t other, int npes, int* out) {
  if (threadIdx.x != 0) return;
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  out[0] = me;
  out[1] = n;
  out[2] = nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD);
  out[3] = nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD);
  for (int i = 0; i < npes; ++i) {
    const bool asked = me >= 0 && i < n;
    out[4 + i] = asked ? nvshmem_team_translate_pe(team, i, NVSHMEM_TEAM_WORLD) : -2;
    out[4 + npes + i] = nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, i, team);
    out[4 + 2 * npes + i] = asked ? nvshmem_team_translate_pe(team, i, other) : -2;
  }
}

void device_queries(Ctx& c) {
  const int n = c.npes;
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    const Team& t = c.teams[ti];
    const Team& other = c.teams[(ti + 1) % c.teams.size()];
    CUDA_CHECK(cudaMemsetAsync(c.info, 0xff, (4 + 3 * n) * sizeof(int), c.st));  // the kernel's stream
    team_queries<<<1, 32, 0, c.st>>>(t.handle, other.handle, n, c.info);
    CUDA_CHECK(cudaGetLastError());
    gputest::sync_or_die(c.st, kHang, [&] { return "the device team queries of " + t.name; });
    std::vector<int> got(4 + 3 * n);
    CUDA_CHECK(cudaMemcpy(got.data(), c.info, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    const std::vector<int> want = expected_queries(c, t, other);
    const char* what[] = {"nvshmem_team_my_pe(team)", "nvshmem_team_n_pes(team)", "nvshmem_team_my_pe(WORLD)",
                          "nvshmem_team_n_pes(WORLD)"};
    for (size_t k = 0; k < want.size(); ++k) {
      std::string q;
      if (k < 4) {
        q = what[k];
      } else if (k < 4 + static_cast<size_t>(n)) {
        q = "nvshmem_team_translate_pe(team, " + std::to_string(k - 4) + ", NVSHMEM_TEAM_WORLD)";
      } else if (k < 4 + 2 * static_cast<size_t>(n)) {
        q = "nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, " + std::to_string(k - 4 - n) + ", team)";
      } else {
        q = "nvshmem_team_translate_pe(team, " + std::to_string(k - 4 - 2 * n) + ", " + other.name + ")";
      }
      MP_CHECK(got[k] == want[k], "device %s with team %s%s: %d, expected %d", q.c_str(), t.name.c_str(),
               t.handle == NVSHMEM_TEAM_INVALID ? " (NVSHMEM_TEAM_INVALID on this PE)" : "", got[k], want[k]);
    }
  }
  if (c.me == 0)
    std::printf("gpu_coll: device team queries (my_pe, n_pes, translate_pe) of %zu teams\n", c.teams.size());
}

// ---- device: barrier and team_sync -------------------------------------------------------------

using gputest::is_caller;
using gputest::sync_at;

__device__ int sync_at(int scope, bool barrier, nvshmem_team_t team) {
  return scope == 0 ? sync_at<0>(barrier, team) : scope == 1 ? sync_at<1>(barrier, team) : sync_at<2>(barrier, team);
}

__host__ __device__ inline uint64_t sync_value(uint64_t tag, int r, int member) {
  return (tag << 40) | (static_cast<uint64_t>(r) << 16) | static_cast<uint64_t>(member);
}

// Each of `rounds` rounds thread 0 puts the round's value into this member's slot on every member
// (nvshmem_quiet after them when the sync is team_sync, which does not complete puts), then the barrier
// or sync, then every member's slot must hold the round's value. Two banks alternate.
__global__ void sync_rounds(int scope, bool barrier, nvshmem_team_t team, uint64_t* slots, uint64_t tag, int rounds,
                            Failure* f) {
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  for (int r = 1; r <= rounds; ++r) {
    uint64_t* bank = slots + (r % 2) * n;
    if (threadIdx.x == 0) {
      for (int k = 0; k < n; ++k) {
        nvshmem_uint64_p(bank + me, sync_value(tag, r, me), nvshmem_team_translate_pe(team, k, NVSHMEM_TEAM_WORLD));
      }
      if (!barrier) nvshmem_quiet();
    }
    __syncthreads();
    const int rc = sync_at(scope, barrier, team);
    if (rc != 0) gputest::fail(f, kCheckSyncRc, -1, r, 0, static_cast<unsigned long long>(rc));
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
      const uint64_t v = *reinterpret_cast<volatile uint64_t*>(bank + k);
      if (v != sync_value(tag, r, k)) gputest::fail(f, kCheckDest, k, r, sync_value(tag, r, k), v);
    }
    __syncthreads();
  }
}

void device_syncs(Ctx& c) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    const Team& t = c.teams[ti];
    for (int scope = 0; scope < 3; ++scope) {
      for (int barrier = 1; barrier >= 0; --barrier) {
        if (t.index >= 0) {
          c.failures->reset();
          const uint64_t tag = (ti * 3 + scope) * 2 + barrier + 1;
          sync_rounds<<<1, 128, 0, c.st>>>(scope, barrier != 0, t.handle, c.sync_slots, tag, scaled_sync_rounds(),
                                           c.failures->dev());
          CUDA_CHECK(cudaGetLastError());
          const std::string what = std::string(scope == 0 ? "nvshmem_" : "nvshmemx_") +
                                   (barrier ? "barrier" : "team_sync") + kScopeForms[scope] + " on " + team_text(t);
          gputest::sync_or_die(c.st, kHang, [&] { return what; });
          const Failure f = c.failures->get();
          if (f.count != 0 && f.check == kCheckSyncRc) {
            MP_CHECK(false, "%s: returned %lld in round %lld", what.c_str(), static_cast<long long>(f.actual), f.round);
          }
          MP_CHECK(f.count == 0,
                   "%s: %llu stale slots after it; the first: round %lld, member %lld's slot is 0x%llx, expected "
                   "0x%llx%s",
                   what.c_str(), f.count, f.round, f.index, f.actual, f.expected,
                   barrier ? "" : " (the puts were followed by nvshmem_quiet)");
        }
        gputest::sync_and_barrier();  // every PE is done with the slots before the next case
      }
    }
  }
  if (c.me == 0) {
    std::printf(
        "gpu_coll: device nvshmem_barrier and nvshmem_team_sync (thread, warp, block) on %zu teams, %d rounds\n",
        c.teams.size(), scaled_sync_rounds());
  }
}

// ---- device: collectives -----------------------------------------------------------------------

// For each size: fill this member's source, poison the dest and its guards, barrier (even sizes) or
// team_sync (odd sizes) so that no member writes into a dest still being poisoned or checked, the
// collective at `scope`, then check dest, guards and source. The last size's dest stays for the host.
template <class F, int COLL, int SCOPE>
__global__ void __launch_bounds__(kThreads) coll_kernel(nvshmem_team_t team, unsigned char* dest, unsigned char* src,
                                                        SizeList sizes, uint64_t round, Failure* f, int* info) {
  using T = typename F::T;
  constexpr int coll = COLL;
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  if (threadIdx.x == 0) {
    info[0] = me;
    info[1] = n;
  }
  if (me < 0 || n <= 0) return;  // the host reports it
  volatile const unsigned char* vdest = dest;
  volatile const unsigned char* vsrc = src;
  for (int s = 0; s < sizes.count; ++s) {
    const size_t nelems = elems_of<T>(sizes.bytes[s]), bytes = nelems * sizeof(T);
    const int root = root_of(round, s, n);
    const size_t sb = src_bytes_of(coll, n, bytes), db = dest_bytes_of(coll, n, bytes);
    const uint64_t mine = seed_of(round, me, s);
    for (size_t b = threadIdx.x; b < sb; b += blockDim.x) src[b] = pat_byte(mine, b);
    unsigned char* region = dest - kGuard;
    for (size_t b = threadIdx.x; b < db + 2 * kGuard; b += blockDim.x) region[b] = kPoison;
    __syncthreads();
    const int sync_rc = sync_at<SCOPE>(s % 2 == 0, team);
    if (sync_rc != 0) gputest::fail(f, kCheckSyncRc, -1, s, 0, static_cast<unsigned long long>(sync_rc));
    int rc = 0;
    if (is_caller<SCOPE>()) {
      rc =
          F::template dev<COLL, SCOPE>(team, reinterpret_cast<T*>(dest), reinterpret_cast<const T*>(src), nelems, root);
    }
    if (rc != 0) gputest::fail(f, kCheckRc, -1, s, 0, static_cast<unsigned long long>(rc));
    __syncthreads();
    for (size_t b = threadIdx.x; b < db; b += blockDim.x) {
      const unsigned char want = want_dest(coll, me, root, bytes, round, s, b), got = vdest[b];
      if (got != want) gputest::fail(f, kCheckDest, static_cast<long long>(b), s, want, got);
    }
    for (size_t b = threadIdx.x; b < kGuard; b += blockDim.x) {
      const unsigned char front = vdest[static_cast<ptrdiff_t>(b) - static_cast<ptrdiff_t>(kGuard)];
      if (front != kPoison) gputest::fail(f, kCheckFrontGuard, static_cast<long long>(b), s, kPoison, front);
      const unsigned char back = vdest[db + b];
      if (back != kPoison) gputest::fail(f, kCheckBackGuard, static_cast<long long>(b), s, kPoison, back);
    }
    for (size_t b = threadIdx.x; b < sb; b += blockDim.x) {
      const unsigned char want = pat_byte(mine, b), got = vsrc[b];
      if (got != want) gputest::fail(f, kCheckSource, static_cast<long long>(b), s, want, got);
    }
    __syncthreads();
  }
}

// The first failed check of a device collective case, for a message.
std::string describe_failure(const Failure& f, const SizeList& sizes, size_t elem) {
  const int s = static_cast<int>(f.round);
  const size_t asked = s >= 0 && s < sizes.count ? sizes.bytes[s] : 0;
  const size_t nelems = (asked + elem - 1) / elem;
  const long long bytes = static_cast<long long>(nelems * elem);
  char buf[256];
  switch (f.check) {
    case kCheckDest:
      std::snprintf(buf, sizeof buf, "dest byte %lld (block %lld, offset %lld) is 0x%02llx, expected 0x%02llx", f.index,
                    bytes ? f.index / bytes : 0, bytes ? f.index % bytes : 0, f.actual, f.expected);
      break;
    case kCheckFrontGuard:
    case kCheckBackGuard:
      std::snprintf(buf, sizeof buf, "byte %lld of the guard %s dest was overwritten with 0x%02llx", f.index,
                    f.check == kCheckFrontGuard ? "before" : "after", f.actual);
      break;
    case kCheckSource:
      std::snprintf(buf, sizeof buf, "source byte %lld changed to 0x%02llx, expected 0x%02llx", f.index, f.actual,
                    f.expected);
      break;
    case kCheckRc:
      std::snprintf(buf, sizeof buf, "the call returned %d", static_cast<int>(f.actual));
      break;
    case kCheckSyncRc:
      std::snprintf(buf, sizeof buf, "the barrier or team_sync before the call returned %d",
                    static_cast<int>(f.actual));
      break;
    default:
      std::snprintf(buf, sizeof buf, "check %d failed", f.check);
  }
  char where[160];
  std::snprintf(where, sizeof where, "%zu elements (%lld bytes; size %d of the case), thread %d: ", nelems, bytes, s,
                f.thread);
  return std::string(where) + buf + " (" + std::to_string(f.count) + " failed checks)";
}

template <class F, int COLL, int SCOPE>
void device_case(Ctx& c, size_t ti) {
  using T = typename F::T;
  const Team& t = c.teams[ti];
  const bool big_thread = std::is_same_v<F, F_int> || std::is_same_v<F, F_mem>;
  const SizeList sizes = sizes_for(SCOPE, big_thread);
  const uint64_t round = round_of(kSubDevice, static_cast<int>(ti), F::id, COLL, SCOPE);
  const std::string what = op_name(F::label, COLL, kScopeForms[SCOPE]) + " (device) on " + team_text(t);
  c.failures->reset();
  CUDA_CHECK(cudaMemsetAsync(c.info, 0xff, 2 * sizeof(int), c.st));  // the kernel's stream
  coll_kernel<F, COLL, SCOPE>
      <<<1, kThreads, 0, c.st>>>(t.handle, c.dst(), c.src(), sizes, round, c.failures->dev(), c.info);
  CUDA_CHECK(cudaGetLastError());
  gputest::sync_or_die(c.st, kHang, [&] { return "the kernel calling " + what; });
  int info[2];
  CUDA_CHECK(cudaMemcpy(info, c.info, sizeof info, cudaMemcpyDeviceToHost));
  MP_CHECK(info[0] == t.index && info[1] == t.size,
           "%s: the kernel's nvshmem_team_my_pe / nvshmem_team_n_pes gave %d / %d, expected %d / %d", what.c_str(),
           info[0], info[1], t.index, t.size);
  const Failure f = c.failures->get();
  MP_CHECK(f.count == 0, "%s: %s", what.c_str(), describe_failure(f, sizes, sizeof(T)).c_str());
  // The last size again, on the host.
  const int s = sizes.count - 1;
  const size_t bytes = elems_of<T>(sizes.bytes[s]) * sizeof(T);
  const size_t db = dest_bytes_of(COLL, t.size, bytes);
  const int root = root_of(round, s, t.size);
  CUDA_CHECK(cudaMemcpy(c.h_dst, c.dst() - kGuard, db + 2 * kGuard, cudaMemcpyDeviceToHost));
  expected_dest(c.want.data(), COLL, t.index, t.size, root, bytes, round, s);
  const std::string diff = first_difference(c.h_dst, c.want.data(), db, bytes);
  MP_CHECK(diff.empty(), "%s, %zu bytes, root %d, copied back to the host: %s", what.c_str(), bytes, root,
           diff.c_str());
}

// The scope a family without all_scopes calls collective `coll` at.
template <class F>
constexpr int one_scope(int coll) {
  return (F::id + coll) % 3;
}

// A family with all_scopes: every scope on the world team, and on the split teams one scope that
// turns with the family, the collective and the team (the kernels of PEs sharing a GPU take turns).
template <class F, int COLL>
void device_coll(Ctx& c, size_t ti) {
  if (c.teams[ti].index < 0) return;
  if constexpr (F::all_scopes) {
    const int only = (F::id + COLL + static_cast<int>(ti)) % 3;
    if (ti == 0 || only == 0) device_case<F, COLL, 0>(c, ti);
    if (ti == 0 || only == 1) device_case<F, COLL, 1>(c, ti);
    if (ti == 0 || only == 2) device_case<F, COLL, 2>(c, ti);
  } else {
    device_case<F, COLL, one_scope<F>(COLL)>(c, ti);
  }
}

template <class F>
void device_family(Ctx& c) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    device_coll<F, kBroadcast>(c, ti);
    device_coll<F, kFcollect>(c, ti);
    device_coll<F, kAlltoall>(c, ti);
    gputest::sync_and_barrier();
  }
  if (c.me != 0) return;
  if (F::all_scopes) {
    std::printf("gpu_coll: device %s, %s, %s and their _warp and _block forms\n",
                op_name(F::label, kBroadcast, "").c_str(), op_name(F::label, kFcollect, "").c_str(),
                op_name(F::label, kAlltoall, "").c_str());
  } else {
    std::printf("gpu_coll: device %s, %s and %s (%s, %s and %s scope)\n",
                op_name(F::label, kBroadcast, kScopeForms[one_scope<F>(kBroadcast)]).c_str(),
                op_name(F::label, kFcollect, kScopeForms[one_scope<F>(kFcollect)]).c_str(),
                op_name(F::label, kAlltoall, kScopeForms[one_scope<F>(kAlltoall)]).c_str(),
                gputest::scope_name(one_scope<F>(kBroadcast)), gputest::scope_name(one_scope<F>(kFcollect)),
                gputest::scope_name(one_scope<F>(kAlltoall)));
  }
}

void run_device(Ctx& c) {
  device_queries(c);
  device_syncs(c);
  device_family<F_int>(c);
  device_family<F_double>(c);
  device_family<F_char>(c);
  device_family<F_uint64>(c);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  device_family<F_half>(c);
#endif
  device_family<F_mem>(c);
}

// ---- stream and host forms ---------------------------------------------------------------------

// Every size of the full list: the source from a host pattern, barrier or team_sync (on stream or
// from the host), the collective (on stream or from the host), the dest and the source copied back.
template <class F>
void stream_case(Ctx& c, size_t ti, int coll, bool host_form) {
  using T = typename F::T;
  const Team& t = c.teams[ti];
  const int me = t.index, n = t.size;
  const SizeList sizes = sizes_for(2, true);
  const uint64_t round = round_of(host_form ? kSubHost : kSubStream, static_cast<int>(ti), F::id, coll, 0);
  const std::string what =
      op_name(F::label, coll, host_form ? "" : "_on_stream") + (host_form ? " (host)" : "") + " on " + team_text(t);
  for (int s = 0; s < sizes.count; ++s) {
    const size_t nelems = elems_of<T>(sizes.bytes[s]), bytes = nelems * sizeof(T);
    const int root = root_of(round, s, n);
    const size_t sb = src_bytes_of(coll, n, bytes), db = dest_bytes_of(coll, n, bytes);
    host_pattern(c.h_src, seed_of(round, me, s), 0, sb);
    T* dest = reinterpret_cast<T*>(c.dst());
    const T* source = reinterpret_cast<const T*>(c.src());
    const bool barrier = s % 2 == 0;
    int sync_rc = 0, rc = 0;
    if (host_form) {
      CUDA_CHECK(cudaMemcpy(c.src(), c.h_src, sb, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemset(c.dst() - kGuard, kPoison, db + 2 * kGuard));
      CUDA_CHECK(cudaDeviceSynchronize());
      sync_rc = barrier ? nvshmem_barrier(t.handle) : nvshmem_team_sync(t.handle);
      rc = F::host(coll, t.handle, dest, source, nelems, root);
      CUDA_CHECK(cudaMemcpy(c.h_dst, c.dst() - kGuard, db + 2 * kGuard, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(c.h_back, c.src(), sb, cudaMemcpyDeviceToHost));
    } else {
      CUDA_CHECK(cudaMemcpyAsync(c.src(), c.h_src, sb, cudaMemcpyHostToDevice, c.st));
      CUDA_CHECK(cudaMemsetAsync(c.dst() - kGuard, kPoison, db + 2 * kGuard, c.st));
      sync_rc = barrier ? nvshmemx_barrier_on_stream(t.handle, c.st) : nvshmemx_team_sync_on_stream(t.handle, c.st);
      rc = F::stream(coll, t.handle, dest, source, nelems, root, c.st);
      CUDA_CHECK(cudaMemcpyAsync(c.h_dst, c.dst() - kGuard, db + 2 * kGuard, cudaMemcpyDeviceToHost, c.st));
      CUDA_CHECK(cudaMemcpyAsync(c.h_back, c.src(), sb, cudaMemcpyDeviceToHost, c.st));
      gputest::sync_or_die(c.st, kHang, [&] { return what + ", " + std::to_string(bytes) + " bytes"; });
    }
    MP_CHECK(sync_rc == 0, "%s: %s before it returned %d", what.c_str(),
             host_form ? (barrier ? "nvshmem_barrier" : "nvshmem_team_sync")
                       : (barrier ? "nvshmemx_barrier_on_stream" : "nvshmemx_team_sync_on_stream"),
             sync_rc);
    MP_CHECK(rc == 0, "%s, %zu elements: returned %d", what.c_str(), nelems, rc);
    expected_dest(c.want.data(), coll, me, n, root, bytes, round, s);
    const std::string diff = first_difference(c.h_dst, c.want.data(), db, bytes);
    MP_CHECK(diff.empty(), "%s, %zu elements (%zu bytes), root %d: %s", what.c_str(), nelems, bytes, root,
             diff.c_str());
    MP_CHECK(std::memcmp(c.h_back, c.h_src, sb) == 0, "%s, %zu elements: the source changed", what.c_str(), nelems);
  }
}

template <class F>
void stream_family(Ctx& c, bool host_form) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    if (c.teams[ti].index >= 0) {
      for (int coll = 0; coll < 3; ++coll) stream_case<F>(c, ti, coll, host_form);
    }
    gputest::sync_and_barrier();
  }
  if (c.me == 0) {
    const char* form = host_form ? "" : "_on_stream";
    std::printf("gpu_coll: %s %s, %s and %s\n", host_form ? "host" : "stream",
                op_name(F::label, kBroadcast, form).c_str(), op_name(F::label, kFcollect, form).c_str(),
                op_name(F::label, kAlltoall, form).c_str());
  }
}

void run_stream_or_host(Ctx& c, bool host_form) {
  stream_family<F_int>(c, host_form);
  stream_family<F_double>(c, host_form);
  stream_family<F_char>(c, host_form);
  stream_family<F_uint64>(c, host_form);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  stream_family<F_half>(c, host_form);
#endif
  stream_family<F_mem>(c, host_form);
}

// ---- graph -------------------------------------------------------------------------------------

constexpr size_t kGraphB = 4099, kGraphF = 1000, kGraphA = 17;  // ints: broadcast, fcollect, alltoall blocks
constexpr int kGraphPoison = 0x5a5a5a5a;

// Element i of member `member`'s source of kind `kind` (0 broadcast, 1 fcollect, 2 alltoall) in replay c.
__host__ __device__ inline int gval(int kind, int member, unsigned long long c, size_t i) {
  return static_cast<int>(hash64((static_cast<uint64_t>(kind) << 60) ^ (static_cast<uint64_t>(member) << 48) ^
                                 (static_cast<uint64_t>(c) << 24) ^ static_cast<uint64_t>(i)));
}

struct GraphBufs {
  int *src_b, *src_f, *src_a, *dst_b, *dst_f, *dst_a;
};

// words: [0] the replay counter, [1] mismatches seen by graph_check, [2] its checksum.
__global__ void graph_step(GraphBufs g, nvshmem_team_t team, int kind0, unsigned long long* words) {
  __shared__ unsigned long long c;
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  if (threadIdx.x == 0) c = ++words[0];
  __syncthreads();
  for (size_t i = threadIdx.x; i < kGraphB; i += blockDim.x) g.src_b[i] = gval(kind0, me, c, i);
  for (size_t i = threadIdx.x; i < kGraphF; i += blockDim.x) g.src_f[i] = gval(kind0 + 1, me, c, i);
  for (size_t i = threadIdx.x; i < n * kGraphA; i += blockDim.x) g.src_a[i] = gval(kind0 + 2, me, c, i);
  for (size_t i = threadIdx.x; i < kGraphB; i += blockDim.x) g.dst_b[i] = kGraphPoison;
  for (size_t i = threadIdx.x; i < n * kGraphF; i += blockDim.x) g.dst_f[i] = kGraphPoison;
  for (size_t i = threadIdx.x; i < n * kGraphA; i += blockDim.x) g.dst_a[i] = kGraphPoison;
}

__global__ void graph_check(GraphBufs g, nvshmem_team_t team, int kind0, int root, unsigned long long* words) {
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  const unsigned long long c = words[0];
  unsigned long long bad = 0, sum = 0;
  for (size_t i = threadIdx.x; i < kGraphB; i += blockDim.x) {
    const int v = g.dst_b[i];
    bad += v != gval(kind0, root, c, i);
    sum += static_cast<unsigned>(v);
  }
  for (size_t i = threadIdx.x; i < n * kGraphF; i += blockDim.x) {
    const int v = g.dst_f[i];
    bad += v != gval(kind0 + 1, static_cast<int>(i / kGraphF), c, i % kGraphF);
    sum += static_cast<unsigned>(v);
  }
  for (size_t i = threadIdx.x; i < n * kGraphA; i += blockDim.x) {
    const int v = g.dst_a[i];
    bad += v != gval(kind0 + 2, static_cast<int>(i / kGraphA), c, me * kGraphA + i % kGraphA);
    sum += static_cast<unsigned>(v);
  }
  atomicAdd(&words[1], bad);
  atomicAdd(&words[2], sum);
}

void graph_team(Ctx& c, size_t ti) {
  const Team& t = c.teams[ti];
  const int me = t.index, n = t.size, root = n - 1;
  const int kind0 = static_cast<int>(ti) * 3;
  GraphBufs g;
  g.src_b = reinterpret_cast<int*>(c.src());
  g.src_f = g.src_b + kGraphB;
  g.src_a = g.src_f + kGraphF;
  g.dst_b = reinterpret_cast<int*>(c.dst());
  g.dst_f = g.dst_b + kGraphB;
  g.dst_a = g.dst_f + n * kGraphF;
  const size_t total = kGraphB + n * kGraphF + n * kGraphA;  // ints of the dests, one after the other
  CUDA_CHECK(cudaMemsetAsync(c.words, 0, 3 * sizeof(unsigned long long), c.st));
  CUDA_CHECK(cudaStreamSynchronize(c.st));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(c.st, cudaStreamCaptureModeGlobal));
  graph_step<<<1, 256, 0, c.st>>>(g, t.handle, kind0, c.words);
  int rc[5];
  rc[0] = nvshmemx_barrier_on_stream(t.handle, c.st);  // every member's dest is poisoned and checked before
  rc[1] = nvshmemx_int_broadcast_on_stream(t.handle, g.dst_b, g.src_b, kGraphB, root, c.st);
  rc[2] = nvshmemx_int_fcollect_on_stream(t.handle, g.dst_f, g.src_f, kGraphF, c.st);
  rc[3] = nvshmemx_int_alltoall_on_stream(t.handle, g.dst_a, g.src_a, kGraphA, c.st);
  graph_check<<<1, 256, 0, c.st>>>(g, t.handle, kind0, root, c.words);
  rc[4] = nvshmemx_team_sync_on_stream(t.handle, c.st);
  CUDA_CHECK(cudaStreamEndCapture(c.st, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const char* const captured[] = {"nvshmemx_barrier_on_stream", "nvshmemx_int_broadcast_on_stream",
                                  "nvshmemx_int_fcollect_on_stream", "nvshmemx_int_alltoall_on_stream",
                                  "nvshmemx_team_sync_on_stream"};
  for (int k = 0; k < 5; ++k) {
    MP_CHECK(rc[k] == 0, "%s on %s returned %d while captured into a graph", captured[k], team_text(t).c_str(), rc[k]);
  }
  std::vector<int> got(total);
  unsigned long long checksum = 0;
  for (int rep = 1; rep <= scaled_replays(); ++rep) {
    CUDA_CHECK(cudaGraphLaunch(exec, c.st));
    const std::string what = "the graph of nvshmemx_barrier_on_stream, nvshmemx_int_broadcast_on_stream (root " +
                             std::to_string(root) +
                             "), nvshmemx_int_fcollect_on_stream, nvshmemx_int_alltoall_on_stream "
                             "and nvshmemx_team_sync_on_stream on " +
                             team_text(t) + ", replay " + std::to_string(rep);
    gputest::sync_or_die(c.st, kHang, [&] { return what; });
    unsigned long long words[3];
    CUDA_CHECK(cudaMemcpy(words, c.words, sizeof words, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got.data(), g.dst_b, total * sizeof(int), cudaMemcpyDeviceToHost));
    MP_CHECK(words[0] == static_cast<unsigned long long>(rep), "%s: the graph's counter is %llu", what.c_str(),
             words[0]);
    const int* b = got.data();
    const int* f = b + kGraphB;
    const int* a = f + n * kGraphF;
    for (size_t i = 0; i < kGraphB; ++i) {
      MP_CHECK(b[i] == gval(kind0, root, rep, i), "%s: broadcast dest[%zu] is %d, expected %d (root %d's source)",
               what.c_str(), i, b[i], gval(kind0, root, rep, i), root);
    }
    for (size_t i = 0; i < n * kGraphF; ++i) {
      const int want = gval(kind0 + 1, static_cast<int>(i / kGraphF), rep, i % kGraphF);
      MP_CHECK(f[i] == want, "%s: fcollect dest[%zu] is %d, expected %d (member %zu's element %zu)", what.c_str(), i,
               f[i], want, i / kGraphF, i % kGraphF);
    }
    for (size_t i = 0; i < n * kGraphA; ++i) {
      const int want = gval(kind0 + 2, static_cast<int>(i / kGraphA), rep, me * kGraphA + i % kGraphA);
      MP_CHECK(a[i] == want, "%s: alltoall dest[%zu] is %d, expected %d (member %zu's source block %d)", what.c_str(),
               i, a[i], want, i / kGraphA, me);
    }
    for (size_t i = 0; i < total; ++i) checksum += static_cast<unsigned>(got[i]);
    MP_CHECK(words[1] == 0, "%s: the checking kernel in the graph counted %llu wrong elements", what.c_str(), words[1]);
    MP_CHECK(words[2] == checksum, "%s: the checksum of the kernel in the graph is 0x%llx, the host's 0x%llx",
             what.c_str(), words[2], checksum);
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
}

void run_graph(Ctx& c) {
  const size_t graph_teams[] = {0, 2};
  for (size_t ti : graph_teams) {
    if (c.teams[ti].index >= 0) graph_team(c, ti);
    gputest::sync_and_barrier();
  }
  if (c.me == 0) {
    std::printf(
        "gpu_coll: CUDA graph of barrier, int broadcast, fcollect, alltoall and team_sync on stream, %d "
        "replays on %s and on %s\n",
        scaled_replays(), c.teams[0].name.c_str(), c.teams[2].name.c_str());
  }
}

// ---- collective launch -------------------------------------------------------------------------

__host__ __device__ inline int ring_val(uint64_t seed, int pe, int r, int i) {
  return static_cast<int>(
      hash64(seed ^ (static_cast<uint64_t>(pe) << 48) ^ (static_cast<uint64_t>(r) << 24) ^ static_cast<uint64_t>(i)));
}

// ring: [2][kRing] slots, [1] this PE's value, [npes] gathered. Each of `rounds` rounds the threads put
// the first `ints` (at most kRing) of their bank's ints to the next PE, a barrier_all (thread 0, or the
// block form on even rounds), then the previous PE's ints must be here. Then every PE's value through
// nvshmemx_int_fcollect_block on the world team.
__global__ void ring_kernel(int* ring, uint64_t seed, Failure* f, unsigned long long* launches, int ints, int rounds) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  if (threadIdx.x == 0) atomicAdd(launches, 1ull);
  for (int r = 1; r <= rounds; ++r) {
    int* bank = ring + (r % 2) * kRing;
    for (int i = threadIdx.x; i < ints; i += blockDim.x) nvshmem_int_p(bank + i, ring_val(seed, me, r, i), next);
    __syncthreads();
    if (r % 2) {
      if (threadIdx.x == 0) nvshmem_barrier_all();
      __syncthreads();
    } else {
      nvshmemx_barrier_all_block();
    }
    for (int i = threadIdx.x; i < ints; i += blockDim.x) {
      const int v = reinterpret_cast<volatile int*>(bank)[i], want = ring_val(seed, prev, r, i);
      if (v != want) gputest::fail(f, 1, i, r, static_cast<unsigned>(want), static_cast<unsigned>(v));
    }
    __syncthreads();
  }
  int* mine = ring + 2 * kRing;
  int* gathered = mine + 1;
  if (threadIdx.x == 0) *mine = ring_val(seed, me, 0, -1);
  __syncthreads();
  const int rc = nvshmemx_int_fcollect_block(NVSHMEM_TEAM_WORLD, gathered, mine, 1);
  if (rc != 0) gputest::fail(f, 3, -1, 0, 0, static_cast<unsigned>(rc));
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    const int v = reinterpret_cast<volatile int*>(gathered)[k], want = ring_val(seed, k, 0, -1);
    if (v != want) gputest::fail(f, 2, k, 0, static_cast<unsigned>(want), static_cast<unsigned>(v));
  }
}

void run_launch(Ctx& c) {
  unsigned long long* launches = c.words + 3;
  CUDA_CHECK(cudaMemset(launches, 0, sizeof *launches));
  for (int l = 1; l <= 2; ++l) {
    c.failures->reset();
    CUDA_CHECK(cudaMemset(c.ring, 0, (2 * kRing + 1 + c.npes) * sizeof(int)));
    gputest::sync_and_barrier();  // no peer puts into the ring before it is cleared
    uint64_t seed = hash64(0xc011ec7ull + l);
    Failure* f = c.failures->dev();
    int* ring = c.ring;
    int ints = scaled_ring_ints(), rounds = scaled_ring_rounds();
    void* args[] = {&ring, &seed, &f, &launches, &ints, &rounds};
    const int rc =
        nvshmemx_collective_launch(reinterpret_cast<const void*>(ring_kernel), dim3(1), dim3(128), args, 0, c.st);
    MP_CHECK(rc == 0,
             "nvshmemx_collective_launch of a 1-block kernel returned %d (launch %d); PEs that share a GPU "
             "may launch collectively (with a warning)",
             rc, l);
    const std::string what = "the collectively launched ring kernel (launch " + std::to_string(l) + ")";
    gputest::sync_or_die(c.st, kHang, [&] { return what; });
    const Failure fl = c.failures->get();
    MP_CHECK(fl.count == 0 || fl.check != 3, "%s: nvshmemx_int_fcollect_block returned %d", what.c_str(),
             static_cast<int>(fl.actual));
    MP_CHECK(fl.count == 0 || fl.check != 2,
             "%s: after nvshmemx_int_fcollect_block, gathered[%lld] is %d, expected %d (%llu wrong)", what.c_str(),
             fl.index, static_cast<int>(fl.actual), static_cast<int>(fl.expected), fl.count);
    MP_CHECK(fl.count == 0, "%s: round %lld (%s), slot %lld from PE %d is %d, expected %d (%llu wrong)", what.c_str(),
             fl.round, fl.round % 2 ? "nvshmem_barrier_all by thread 0" : "nvshmemx_barrier_all_block", fl.index,
             (c.me + c.npes - 1) % c.npes, static_cast<int>(fl.actual), static_cast<int>(fl.expected), fl.count);
    unsigned long long ran = 0;
    CUDA_CHECK(cudaMemcpy(&ran, launches, sizeof ran, cudaMemcpyDeviceToHost));
    MP_CHECK(ran == static_cast<unsigned long long>(l), "%s: the kernel ran %llu times in all, expected %d",
             what.c_str(), ran, l);
    gputest::sync_and_barrier();
  }
  if (c.me == 0) {
    std::printf(
        "gpu_coll: nvshmemx_collective_launch of a ring kernel (int_p, barrier_all, int_fcollect_block), "
        "twice\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  // argv[1]: "all", or sub-tests separated by commas ("stream,host").
  const std::string what = argc > 1 ? argv[1] : "all";
  const char* const subs[] = {"all", "device", "stream", "host", "graph", "launch"};
  auto wants = [&what](const char* sub) {
    return what == "all" || ("," + what + ",").find(std::string(",") + sub + ",") != std::string::npos;
  };
  for (size_t begin = 0; begin <= what.size();) {
    const size_t end = std::min(what.find(',', begin), what.size());
    const std::string sub = what.substr(begin, end - begin);
    if (std::find(std::begin(subs), std::end(subs), sub) == std::end(subs)) {
      std::fprintf(stderr, "usage: gpu_coll [all|device|stream|host|graph|launch][,...] (not \"%s\")\n", sub.c_str());
      return 2;
    }
    begin = end + 1;
  }
  gputest::init_and_select_gpu();
  Ctx c;
  c.me = nvshmem_my_pe();
  c.npes = nvshmem_n_pes();
  MP_CHECK(c.npes >= 2, "run with at least 2 PEs");
  c.buf = static_cast<size_t>(c.npes) * (kMaxBytes + 64) + 4 * kGuard;
  c.sym_src = static_cast<unsigned char*>(nvshmem_malloc(c.buf));
  c.sym_dst = static_cast<unsigned char*>(nvshmem_malloc(c.buf));
  c.sync_slots = static_cast<uint64_t*>(nvshmem_calloc(2 * c.npes, sizeof(uint64_t)));
  c.ring = static_cast<int*>(nvshmem_calloc(2 * kRing + 1 + c.npes, sizeof(int)));
  MP_CHECK(c.sym_src && c.sym_dst && c.sync_slots && c.ring, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMallocHost(&c.h_src, c.buf));
  CUDA_CHECK(cudaMallocHost(&c.h_dst, c.buf));
  CUDA_CHECK(cudaMallocHost(&c.h_back, c.buf));
  c.want.resize(c.buf);
  CUDA_CHECK(cudaMalloc(&c.info, (4 + 3 * c.npes) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&c.words, 8 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.st, cudaStreamNonBlocking));
  make_teams(c);
  host_queries(c);
  gputest::sync_and_barrier();
  {
    gputest::Failures failures;
    c.failures = &failures;
    if (wants("device")) run_device(c);
    if (wants("stream")) run_stream_or_host(c, false);
    if (wants("host")) run_stream_or_host(c, true);
    if (wants("graph")) run_graph(c);
    if (wants("launch")) run_launch(c);
    gputest::sync_and_barrier();
  }
  gputest::destroy_teams(c.teams);
  CUDA_CHECK(cudaStreamDestroy(c.st));
  CUDA_CHECK(cudaFree(c.words));
  CUDA_CHECK(cudaFree(c.info));
  CUDA_CHECK(cudaFreeHost(c.h_src));
  CUDA_CHECK(cudaFreeHost(c.h_dst));
  CUDA_CHECK(cudaFreeHost(c.h_back));
  nvshmem_free(c.ring);
  nvshmem_free(c.sync_slots);
  nvshmem_free(c.sym_dst);
  nvshmem_free(c.sym_src);
  if (c.me == 0) std::printf("gpu_coll %s: passed on %d PEs%s\n", what.c_str(), c.npes, gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
