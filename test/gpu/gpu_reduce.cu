// Reductions on the GPU, through the NVSHMEM API only: nvshmem_<T>_<op>_reduce (every member's dest[e]
// = op over the members' source[e]) and nvshmem_<T>_<op>_reducescatter (member k's dest[e] = op over
// the members' source[k * nreduce + e]) for int32, int64, uint8, float, double, half and bfloat16 and
// every operation each has (and/or/xor on the integers; min, max, sum, prod on all), from kernels at
// thread, warp and block scope, on a stream, from the host, captured in a CUDA graph; and
// nvshmemx_double2_maxloc_reduce_block. On NVSHMEM_TEAM_WORLD and on two teams split from it (2 PEs:
// {1} and {0, 1}; 4 PEs: {1, 3} and {0, 1, 2}: start 1 stride 2 size npes/2, start 0 stride 1 size
// npes-1). PEs outside a split team get NVSHMEM_TEAM_INVALID and do not call.
//
// Semantics checked, bit for bit (docs/collectives.md): the host computes each expected element from
// the members' data, combined in team order in the type itself (float, double), in float and rounded
// once to the 16-bit type at the end (half, bfloat16), wrapping modulo 2^bits (integer sum and prod);
// min/max give NaN if a member's value is NaN and -0 (min) or +0 (max) from signed zeros. Where the
// expectation is NaN the result must be a NaN; all other elements must have the expected bits, and
// the members of a reduce must hold bit-identical results (each member compares its dest with the
// next member's, read with nvshmem_getmem). The guards of poison before and after each dest must stay
// untouched, the source must not change (unless in place: dest == source, reduce only), and every
// call must return 0. maxloc: the largest .x with its .y, on equal .x the smaller .y (the data has
// many ties). Sizes (elements): 0, 1, 7, 33, 1000, 4099, 65536 + 3, 1 MiB of int (262144) and 5 MiB of
// int + 3 (1310723), on both sides of any threshold an implementation may switch algorithms at. The
// data of every member depends on (sub-test, team, type, op, scope, size, element, member) and mixes
// the extremes (INT_MAX, INT_MIN, all bits set) that make sums and products wrap, signed zeros, NaNs
// and infinities, so stale or misplaced data never passes.
//
// Sub-tests (the arguments, one or more; "all" or nothing runs them all):
//   device  the reductions called from kernels (one block of kThreads threads), every size up to its
//           scope's limit in one kernel, each size into its own dest; a barrier or team_sync (in turn,
//           at the same scope) before each call. int32, float and half: every op at every scope,
//           reduce and reducescatter; int64, uint8, double and bfloat16: every op at one scope for
//           reduce and the next for reducescatter, (type + op) % 3. Each reduce again in place.
//           Thread scope stops at 4099 elements and warp scope at 65539: one thread combining megabytes
//           from 4 PEs would take long on a time-sliced GPU.
//   stream  nvshmemx_<T>_<op>_reduce_on_stream and _reducescatter_on_stream after
//           nvshmemx_barrier_on_stream, the source copied in from the host and the dest copied back,
//           all on one stream; every size for int32, float and half, up to 65539 for the others.
//   host    the blocking host forms after a host nvshmem_barrier (the GPU backend runs them with its
//           own kernels), same sizes.
//   graph   a kernel making new data from a device counter, nvshmemx_barrier_on_stream, an int32 sum
//           reduce, a double sum reducescatter and an int64 max reduce in place on stream, a kernel
//           checking the results (the device computes the same expectation) and
//           nvshmemx_team_sync_on_stream, captured in a CUDA graph and replayed 100 times on the world
//           team and on a split team, each replay checked on the host too.
//   maxloc  nvshmemx_double2_maxloc_reduce_block on every team, sizes 1 to 262144.
// PEs may share one GPU (time-sliced), so every kernel is one block and waits only on its peers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test.cuh"

namespace {

using gputest::bits_of;
using gputest::Failure;
using gputest::from_bits;
using gputest::hash64;

constexpr int kThreads = 512;   // the block of the device test kernels
constexpr size_t kGuard = 256;  // poison before and after each dest
constexpr unsigned char kPoison = 0xa5;
constexpr int kReplays = 100;
constexpr double kHang = 120;  // seconds before a kernel counts as hung

enum Op { kAnd = 0, kOr, kXor, kMin, kMax, kSum, kProd };
const char* const kOpNames[] = {"and", "or", "xor", "min", "max", "sum", "prod"};
enum Mode { kReduce = 0, kScatter = 1 };
enum Sub { kSubDevice = 1, kSubStream = 2, kSubHost = 3, kSubGraph = 4, kSubMaxloc = 5 };
enum Check { kCheckRc = 1, kCheckSyncRc, kCheckSource, kCheckTeam };

// ---- element types: the bit layout of the floating types (values are made from bits, the same on
// the host and the device), and how the documented rules accumulate them.
template <class T>
struct Fmt {
  static constexpr bool kFloat = false;
};
template <>
struct Fmt<float> {
  static constexpr bool kFloat = true;
  static constexpr int kW = 32, kM = 23, kB = 127;
};
template <>
struct Fmt<double> {
  static constexpr bool kFloat = true;
  static constexpr int kW = 64, kM = 52, kB = 1023;
};
#if defined(GSHMEMI_HAVE_CUDA_FP16)
template <>
struct Fmt<__half> {
  static constexpr bool kFloat = true;
  static constexpr int kW = 16, kM = 10, kB = 15;
};
template <>
struct Fmt<__nv_bfloat16> {
  static constexpr bool kFloat = true;
  static constexpr int kW = 16, kM = 7, kB = 127;
};
#endif

// Acc: the type the rules combine in; in/out convert (the 16-bit floats: widened to float, rounded
// to nearest even once at the end).
template <class T>
struct Acc {
  using type = T;
  __host__ __device__ static T in(T v) { return v; }
  __host__ __device__ static T out(T a) { return a; }
};
#if defined(GSHMEMI_HAVE_CUDA_FP16)
template <>
struct Acc<__half> {
  using type = float;
  __host__ __device__ static float in(__half v) { return __half2float(v); }
  __host__ __device__ static __half out(float a) { return __float2half_rn(a); }
};
template <>
struct Acc<__nv_bfloat16> {
  using type = float;
  __host__ __device__ static float in(__nv_bfloat16 v) { return __bfloat162float(v); }
  __host__ __device__ static __nv_bfloat16 out(float a) { return __float2bfloat16_rn(a); }
};
#endif

template <class F>
__host__ __device__ inline bool sign_of(F x) {
  return (bits_of(x) >> (8 * sizeof(F) - 1)) & 1;
}

template <class T>
__host__ __device__ inline bool is_nan(T v) {
  if constexpr (Fmt<T>::kFloat) {
    const auto a = Acc<T>::in(v);
    return a != a;
  } else {
    return false;
  }
}

// One step of the documented combination, in the accumulator type.
template <class T>
__host__ __device__ inline typename Acc<T>::type combine(int op, typename Acc<T>::type a, typename Acc<T>::type b) {
  if constexpr (Fmt<T>::kFloat) {
    if (op == kSum) return a + b;
    if (op == kProd) return a * b;
    if (a != a) return a;  // NaN wins min and max
    if (b != b) return b;
    if (a == b) return (sign_of(a) == (op == kMin)) ? a : b;  // -0 for min, +0 for max
    return op == kMin ? (b < a ? b : a) : (b > a ? b : a);
  } else {
    using U = std::make_unsigned_t<T>;
    const uint64_t ua = static_cast<U>(a), ub = static_cast<U>(b);  // no promotion to int: no overflow
    switch (op) {
      case kAnd:
        return from_bits<T>(static_cast<U>(ua & ub));
      case kOr:
        return from_bits<T>(static_cast<U>(ua | ub));
      case kXor:
        return from_bits<T>(static_cast<U>(ua ^ ub));
      case kMin:
        return b < a ? b : a;
      case kMax:
        return b > a ? b : a;
      case kSum:
        return from_bits<T>(static_cast<U>(ua + ub));
      default:
        return from_bits<T>(static_cast<U>(ua * ub));
    }
  }
}

// ---- data: element i of team member `member`'s source in round `round` (a team of n). A hash of
// (round, i) picks the element's kind, the same on every member; a hash of (round, i, member) the value.
__host__ __device__ inline uint64_t lane_hash(uint64_t round, size_t i) {
  return hash64(round * 0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(i) + 0x51ed270b27a3ull));
}
__host__ __device__ inline uint64_t value_hash(uint64_t round, size_t i, int member) {
  return hash64(lane_hash(round, i) ^ (static_cast<uint64_t>(member) + 1) * 0xc2b2ae3d27d4eb4full);
}

template <class T>
__host__ __device__ inline T gen(int op, uint64_t round, size_t i, int member, int n) {
  const uint64_t r = value_hash(round, i, member);
  if constexpr (!Fmt<T>::kFloat) {
    using U = std::make_unsigned_t<T>;
    constexpr U kAll = static_cast<U>(~U{0});
    constexpr U kMax = std::is_signed_v<T> ? static_cast<U>(kAll >> 1) : kAll;
    constexpr U kMinBits = std::is_signed_v<T> ? static_cast<U>(kMax + 1) : U{0};
    U u;
    switch (r >> 60) {
      case 0:
        u = kMax;  // INT_MAX
        break;
      case 1:
        u = kMinBits;  // INT_MIN
        break;
      case 2:
        u = kAll;  // -1
        break;
      case 3:
        u = 0;
        break;
      case 4:
        u = 1;
        break;
      case 5:
        u = static_cast<U>(r % 7 - 3);  // -3 .. 3
        break;
      default:
        u = static_cast<U>(r);
        if (op == kProd) u |= 1;  // odd: a product keeps its low bits
    }
    return from_bits<T>(u);
  } else {
    using B = Fmt<T>;
    const uint64_t lane = lane_hash(round, i);
    const uint64_t sign = (r >> 1) & 1;
    const uint64_t mant = (r >> 8) & ((uint64_t{1} << B::kM) - 1);
    const uint64_t exp_all = (uint64_t{1} << (B::kW - B::kM - 1)) - 1;
    const unsigned kind = static_cast<unsigned>(lane % 32);
    uint64_t bits;
    if (kind == 0) {  // every member a signed zero
      bits = sign << (B::kW - 1);
    } else if (kind == 1 && static_cast<int>((lane >> 8) % static_cast<uint64_t>(n)) == member) {  // one NaN
      bits = (exp_all << B::kM) | (uint64_t{1} << (B::kM - 1)) | (mant & 0xf);
    } else if (kind == 2 && (op == kMin || op == kMax) && (r & 1)) {  // an infinity
      bits = (sign << (B::kW - 1)) | (exp_all << B::kM);
    } else if (kind == 3 && (op == kMin || op == kMax)) {  // every member the same value
      bits = static_cast<uint64_t>(B::kB + 1) << B::kM | ((lane >> 16) & ((uint64_t{1} << B::kM) - 1));
    } else {
      // sums: magnitudes 2^-4 .. 2^5, so that the order of additions shows in the rounding; products:
      // factors in [0.5, 2), so that a product of 8 stays inside the half range.
      const int e = op == kProd ? -static_cast<int>((r >> 2) & 1) : static_cast<int>((r >> 56) % 9) - 4;
      bits = (sign << (B::kW - 1)) | (static_cast<uint64_t>(B::kB + e) << B::kM) | mant;
    }
    return from_bits<T>(static_cast<unsigned long long>(bits));
  }
}

// The expected element e of a result: source element `first + e` of every member, in team order.
template <class T>
__host__ __device__ inline T expect(int op, uint64_t round, size_t i, int n) {
  typename Acc<T>::type acc = Acc<T>::in(gen<T>(op, round, i, 0, n));
  for (int j = 1; j < n; ++j) acc = combine<T>(op, acc, Acc<T>::in(gen<T>(op, round, i, j, n)));
  return Acc<T>::out(acc);
}

template <class T>
__host__ __device__ inline bool same_result(T got, T want) {
  return is_nan(want) ? is_nan(got) : bits_of(got) == bits_of(want);
}

// ---- the API under test, per type: dev<OP, SCOPE, SCATTER> the device call at SCOPE (0 thread,
// 1 warp, 2 block), host(op, scatter, ...) the blocking host form, stream(...) the on-stream form.
#define GR_DEV_CASE(NAME, OPNAME, OPID)                                                           \
  if constexpr (OP == OPID) {                                                                     \
    if constexpr (SCATTER) {                                                                      \
      if constexpr (SCOPE == 0) return nvshmem_##NAME##OPNAME##_reducescatter(t, d, s, n);        \
      if constexpr (SCOPE == 1) return nvshmemx_##NAME##OPNAME##_reducescatter_warp(t, d, s, n);  \
      if constexpr (SCOPE == 2) return nvshmemx_##NAME##OPNAME##_reducescatter_block(t, d, s, n); \
    } else {                                                                                      \
      if constexpr (SCOPE == 0) return nvshmem_##NAME##OPNAME##_reduce(t, d, s, n);               \
      if constexpr (SCOPE == 1) return nvshmemx_##NAME##OPNAME##_reduce_warp(t, d, s, n);         \
      if constexpr (SCOPE == 2) return nvshmemx_##NAME##OPNAME##_reduce_block(t, d, s, n);        \
    }                                                                                             \
  }
#define GR_HOST_CASE(NAME, OPNAME, OPID) \
  case OPID:                             \
    return scatter ? nvshmem_##NAME##OPNAME##_reducescatter(t, d, s, n) : nvshmem_##NAME##OPNAME##_reduce(t, d, s, n);
#define GR_STREAM_CASE(NAME, OPNAME, OPID)                                             \
  case OPID:                                                                           \
    return scatter ? nvshmemx_##NAME##OPNAME##_reducescatter_on_stream(t, d, s, n, st) \
                   : nvshmemx_##NAME##OPNAME##_reduce_on_stream(t, d, s, n, st);
#define GR_HAS_CASE(NAME, OPNAME, OPID) | (1u << OPID)
#define GR_FLOAT_OPS(CASE, NAME) \
  CASE(NAME, _min, kMin) CASE(NAME, _max, kMax) CASE(NAME, _sum, kSum) CASE(NAME, _prod, kProd)
#define GR_INT_OPS(CASE, NAME) \
  CASE(NAME, _and, kAnd) CASE(NAME, _or, kOr) CASE(NAME, _xor, kXor) GR_FLOAT_OPS(CASE, NAME)

// ALL_SCOPES: every op at every scope; otherwise every op at one scope (and reducescatter at the next).
// BIG: the stream and host forms take the largest sizes too.
#define GR_FAMILY(STRUCT, NAME, TYPE, ID, OPS, ALL_SCOPES, BIG)                                              \
  struct STRUCT {                                                                                            \
    using T = TYPE;                                                                                          \
    static constexpr int id = ID;                                                                            \
    static constexpr const char* label = #NAME;                                                              \
    static constexpr bool all_scopes = ALL_SCOPES;                                                           \
    static constexpr bool big = BIG;                                                                         \
    static constexpr unsigned ops = 0u OPS(GR_HAS_CASE, NAME);                                               \
    template <int OP, int SCOPE, bool SCATTER>                                                               \
    __device__ static int dev(nvshmem_team_t t, T* d, const T* s, size_t n) {                                \
      OPS(GR_DEV_CASE, NAME)                                                                                 \
      return -1;                                                                                             \
    }                                                                                                        \
    static int host(int op, bool scatter, nvshmem_team_t t, T* d, const T* s, size_t n) {                    \
      switch (op) { OPS(GR_HOST_CASE, NAME) }                                                                \
      return -1;                                                                                             \
    }                                                                                                        \
    static int stream(int op, bool scatter, nvshmem_team_t t, T* d, const T* s, size_t n, cudaStream_t st) { \
      switch (op) { OPS(GR_STREAM_CASE, NAME) }                                                              \
      return -1;                                                                                             \
    }                                                                                                        \
  };
GR_FAMILY(F_int32, int32, int32_t, 0, GR_INT_OPS, true, true)
GR_FAMILY(F_int64, int64, int64_t, 1, GR_INT_OPS, false, false)
GR_FAMILY(F_uint8, uint8, uint8_t, 2, GR_INT_OPS, false, false)
GR_FAMILY(F_float, float, float, 3, GR_FLOAT_OPS, true, true)
GR_FAMILY(F_double, double, double, 4, GR_FLOAT_OPS, false, false)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
GR_FAMILY(F_half, half, __half, 5, GR_FLOAT_OPS, true, true)
GR_FAMILY(F_bfloat16, bfloat16, __nv_bfloat16, 6, GR_FLOAT_OPS, false, false)
#endif
#undef GR_FAMILY
#undef GR_INT_OPS
#undef GR_FLOAT_OPS
#undef GR_HAS_CASE
#undef GR_STREAM_CASE
#undef GR_HOST_CASE
#undef GR_DEV_CASE

const char* const kScopeForms[] = {"", "_warp", "_block"};

// The name of the call, for messages: form is "", "_warp", "_block" or "_on_stream".
std::string op_name(const char* label, int op, bool scatter, const char* form) {
  const bool x = form[0] != '\0';
  return std::string(x ? "nvshmemx_" : "nvshmem_") + label + "_" + kOpNames[op] +
         (scatter ? "_reducescatter" : "_reduce") + form;
}

// ---- sizes: each size of a case writes into its own region of the dest buffer (guard, dest, guard),
// so that the host checks them all after the kernel.
constexpr size_t kMaxElems = (5u << 20) / 4 + 3;  // 5 MiB of int + 3
struct SizeList {
  int count = 0;
  size_t n[10] = {};    // elements
  size_t off[10] = {};  // byte offset of the region (its front guard) in the dest buffer
  size_t total = 0;     // bytes of all regions
};
// `count` of the sizes 0, 1, 7, 33, 1000, 4099, 65539, 262144 (1 MiB of int), 1310723 (5 MiB + 3).
SizeList make_sizes(int count, size_t elem) {
  SizeList l;
  const size_t all[] = {0, 1, 7, 33, 1000, 4099, 65536 + 3, (1u << 20) / 4, kMaxElems};
  for (int k = 0; k < count; ++k) {
    l.n[l.count] = all[k];
    l.off[l.count] = l.total;
    l.total += (2 * kGuard + all[k] * elem + 255) / 256 * 256;
    ++l.count;
  }
  return l;
}
// The sizes of a call at `scope` (0 thread, 1 warp, 2 block) on team ti: thread scope stops at 4099,
// warp scope at 65539; the 5 MiB size is for the world team (the split teams take 1 MiB).
// Under the network scale (net_gpu_reduce: every member's data through the team's scratch, several
// rounds each at the small scratch that test sets) the sizes stop at 4099 elements.
int scaled_count(int count) { return gputest::net_scale() > 1 ? std::min(count, 6) : count; }
int size_count(int scope, size_t ti) { return scaled_count(scope == 0 ? 6 : scope == 1 ? 7 : ti == 0 ? 9 : 8); }
// A number per case, the same on every member: sub-test, team, type, op, scope, mode.
inline uint64_t round_of(int sub, int team, int fam, int op, int scope, int mode) {
  return (((((static_cast<uint64_t>(sub) * 4 + team) * 8 + fam) * 8 + op) * 4 + scope) * 4 + mode) * 16 + 1;
}

// ---- teams -------------------------------------------------------------------------------------

using gputest::Team;
using gputest::team_text;

struct Ctx {
  int me = 0, npes = 0;
  std::vector<Team> teams;        // [0] world, [1] and [2] split
  unsigned char* src = nullptr;   // symmetric source: kMaxElems * 8 bytes per PE
  unsigned char* dbuf = nullptr;  // symmetric dest regions
  size_t src_bytes = 0, dbuf_bytes = 0;
  unsigned char* h_src = nullptr;  // pinned host buffers
  unsigned char* h_dst = nullptr;
  unsigned char* h_peer = nullptr;
  unsigned long long* words = nullptr;  // device words of the graph kernels
  cudaStream_t st = nullptr;
  gputest::Failures* failures = nullptr;
};

void make_teams(Ctx& c) { c.teams = gputest::make_teams(c.me, c.npes); }

// ---- host-side checks ---------------------------------------------------------------------------

// The members' values of source element i, for a message.
template <class T>
std::string members_values(int op, uint64_t round, size_t i, int n) {
  std::string out;
  for (int j = 0; j < n; ++j) {
    out += (j ? ", " : "") + gputest::show<T>(bits_of(gen<T>(op, round, i, j, n)));
  }
  return out;
}

// Checks one region copied back to the host (`region`: guard, dest, guard): the dest against the
// expectation of this member's block, the guards untouched. Returns "" or what is wrong.
template <class T>
std::string check_region(const unsigned char* region, int op, bool scatter, uint64_t round, size_t ne, int me, int n) {
  char buf[512];
  for (size_t b = 0; b < kGuard; ++b) {
    if (region[b] != kPoison) {
      std::snprintf(buf, sizeof buf, "byte %zu of the guard before dest was overwritten with 0x%02x", b, region[b]);
      return buf;
    }
    if (region[kGuard + ne * sizeof(T) + b] != kPoison) {
      std::snprintf(buf, sizeof buf, "byte %zu of the guard after dest was overwritten with 0x%02x", b,
                    region[kGuard + ne * sizeof(T) + b]);
      return buf;
    }
  }
  const size_t first = scatter ? ne * static_cast<size_t>(me) : 0;
  size_t wrong = 0, bad = 0;
  for (size_t e = 0; e < ne; ++e) {
    T got;
    std::memcpy(static_cast<void*>(&got), region + kGuard + e * sizeof(T), sizeof(T));
    if (!same_result(got, expect<T>(op, round, first + e, n)) && wrong++ == 0) bad = e;
  }
  if (wrong == 0) return "";
  T got;
  std::memcpy(static_cast<void*>(&got), region + kGuard + bad * sizeof(T), sizeof(T));
  const T want = expect<T>(op, round, first + bad, n);
  return "dest[" + std::to_string(bad) + "] is " + gputest::show<T>(bits_of(got)) + ", expected " +
         gputest::show<T>(bits_of(want)) + " (the members' values: " + members_values<T>(op, round, first + bad, n) +
         "; " + std::to_string(wrong) + " wrong elements)";
}

// The dests of this member (`mine`, copied back) and of the next member (read with nvshmem_getmem)
// have the same bytes: the members of a reduce hold bit-identical results. Returns "" or the first
// difference. A reduce guarantees only this PE's dest when it returns (a small one ends with no
// barrier), so the members first meet in a barrier; the caller's barrier after it keeps the next
// member from poisoning its dest while this one reads it.
std::string same_as_next(const Ctx& c, const Team& t, const unsigned char* mine, const void* sym, size_t bytes) {
  if (t.size < 2 || bytes == 0) return "";
  if (nvshmem_barrier(t.handle) != 0) return "the host nvshmem_barrier before reading the next member's dest failed";
  const int next = t.pe((t.index + 1) % t.size);
  nvshmem_getmem(c.h_peer, sym, bytes, next);
  for (size_t b = 0; b < bytes; ++b) {
    if (mine[b] != c.h_peer[b]) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "the members' results differ: byte %zu is 0x%02x here and 0x%02x on PE %d", b,
                    mine[b], c.h_peer[b], next);
      return buf;
    }
  }
  return "";
}

// ---- device: the reductions in kernels -----------------------------------------------------------

using gputest::is_caller;
using gputest::sync_at;

// The bits of *p, loaded from memory (not from what this thread stored there).
template <class T>
__device__ inline unsigned long long load_bits(const T* p) {
  if constexpr (sizeof(T) == 1) {
    return *reinterpret_cast<const volatile uint8_t*>(p);
  } else if constexpr (sizeof(T) == 2) {
    return *reinterpret_cast<const volatile uint16_t*>(p);
  } else if constexpr (sizeof(T) == 4) {
    return *reinterpret_cast<const volatile uint32_t*>(p);
  } else {
    static_assert(sizeof(T) == 8, "elements of 1, 2, 4 or 8 bytes");
    return *reinterpret_cast<const volatile unsigned long long*>(p);
  }
}

// Poisons every region, then for each size: this member's source (or, in place, its dest), a barrier
// or team_sync, the call at SCOPE, and a check that the source did not change.
template <class F, int OP, int SCOPE, bool SCATTER>
__global__ void __launch_bounds__(kThreads) red_kernel(nvshmem_team_t team, unsigned char* dbuf, typename F::T* src,
                                                       SizeList sizes, uint64_t round, bool in_place, Failure* f) {
  using T = typename F::T;
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  if (me < 0 || n <= 0) {
    if (threadIdx.x == 0) gputest::fail(f, kCheckTeam, me, -1, 0, static_cast<unsigned long long>(n));
    return;
  }
  for (size_t b = threadIdx.x; b < sizes.total; b += blockDim.x) dbuf[b] = kPoison;
  __syncthreads();
  for (int k = 0; k < sizes.count; ++k) {
    const size_t ne = sizes.n[k];
    const size_t se = SCATTER ? ne * static_cast<size_t>(n) : ne;
    const uint64_t rk = round + k;
    T* dest = reinterpret_cast<T*>(dbuf + sizes.off[k] + kGuard);
    T* s = in_place ? dest : src;
    for (size_t i = threadIdx.x; i < se; i += blockDim.x) s[i] = gen<T>(OP, rk, i, me, n);
    __syncthreads();
    const int sync_rc = sync_at<SCOPE>(k % 2 == 0, team);
    if (sync_rc != 0) gputest::fail(f, kCheckSyncRc, -1, k, 0, static_cast<unsigned long long>(sync_rc));
    int rc = 0;
    if (is_caller<SCOPE>()) rc = F::template dev<OP, SCOPE, SCATTER>(team, dest, s, ne);
    if (rc != 0) gputest::fail(f, kCheckRc, -1, k, 0, static_cast<unsigned long long>(rc));
    __syncthreads();
    if (!in_place) {
      for (size_t i = threadIdx.x; i < se; i += blockDim.x) {
        const unsigned long long want = bits_of(gen<T>(OP, rk, i, me, n)), got = load_bits(s + i);
        if (got != want) gputest::fail(f, kCheckSource, static_cast<long long>(i), k, want, got);
      }
    }
    __syncthreads();
  }
}

template <class F, int OP, int SCOPE, bool SCATTER>
void device_case(Ctx& c, size_t ti, bool in_place) {
  using T = typename F::T;
  const Team& t = c.teams[ti];
  const SizeList sizes = make_sizes(size_count(SCOPE, ti), sizeof(T));
  const uint64_t round = round_of(kSubDevice, static_cast<int>(ti), F::id, OP, SCOPE, SCATTER ? 2 : in_place);
  const std::string what = op_name(F::label, OP, SCATTER, kScopeForms[SCOPE]) + (in_place ? " (in place)" : "") +
                           " (device) on " + team_text(t);
  MP_CHECK(sizes.total <= c.dbuf_bytes, "%s: the dest regions need %zu bytes", what.c_str(), sizes.total);
  c.failures->reset();
  red_kernel<F, OP, SCOPE, SCATTER><<<1, kThreads, 0, c.st>>>(t.handle, c.dbuf, reinterpret_cast<T*>(c.src), sizes,
                                                              round, in_place, c.failures->dev());
  CUDA_CHECK(cudaGetLastError());
  gputest::sync_or_die(c.st, kHang, [&] { return "the kernel calling " + what; });
  const Failure f = c.failures->get();
  if (f.count != 0) {
    const long long k = f.round;
    const size_t ne = k >= 0 && k < sizes.count ? sizes.n[k] : 0;
    switch (f.check) {
      case kCheckTeam:
        MP_CHECK(false, "%s: the kernel's nvshmem_team_my_pe / n_pes gave %lld / %llu", what.c_str(), f.index,
                 f.actual);
        break;
      case kCheckRc:
        MP_CHECK(false, "%s, %zu elements: returned %d", what.c_str(), ne, static_cast<int>(f.actual));
        break;
      case kCheckSyncRc:
        MP_CHECK(false, "%s, %zu elements: the barrier or team_sync before it returned %d", what.c_str(), ne,
                 static_cast<int>(f.actual));
        break;
      default:
        MP_CHECK(false, "%s, %zu elements: source[%lld] changed to %s, was %s (%llu changed)", what.c_str(), ne,
                 f.index, gputest::show<T>(f.actual).c_str(), gputest::show<T>(f.expected).c_str(), f.count);
    }
  }
  CUDA_CHECK(cudaMemcpy(c.h_dst, c.dbuf, sizes.total, cudaMemcpyDeviceToHost));
  for (int k = 0; k < sizes.count; ++k) {
    const std::string bad =
        check_region<T>(c.h_dst + sizes.off[k], OP, SCATTER, round + k, sizes.n[k], t.index, t.size);
    MP_CHECK(bad.empty(), "%s, %zu elements: %s", what.c_str(), sizes.n[k], bad.c_str());
  }
  if (!SCATTER) {
    const std::string diff = same_as_next(c, t, c.h_dst, c.dbuf, sizes.total);
    MP_CHECK(diff.empty(), "%s: %s", what.c_str(), diff.c_str());
  }
  const int rc = nvshmem_barrier(t.handle);  // no member poisons its regions while another reads them
  MP_CHECK(rc == 0, "%s: the host nvshmem_barrier after it returned %d", what.c_str(), rc);
}

// Every scope (ALL_SCOPES) or one, for reduce, in place and reducescatter.
template <class F, int OP>
void device_op(Ctx& c, size_t ti) {
  if constexpr (((F::ops >> OP) & 1u) != 0) {
    if constexpr (F::all_scopes) {
      device_case<F, OP, 0, false>(c, ti, false);
      device_case<F, OP, 1, false>(c, ti, false);
      device_case<F, OP, 2, false>(c, ti, false);
      device_case<F, OP, 0, true>(c, ti, false);
      device_case<F, OP, 1, true>(c, ti, false);
      device_case<F, OP, 2, true>(c, ti, false);
      device_case<F, OP, OP % 3, false>(c, ti, true);
    } else {
      constexpr int s = (F::id + OP) % 3;
      device_case<F, OP, s, false>(c, ti, false);
      device_case<F, OP, s, false>(c, ti, true);
      device_case<F, OP, (s + 1) % 3, true>(c, ti, false);
    }
  }
}

template <class F>
void device_family(Ctx& c) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    if (c.teams[ti].index >= 0) {
      device_op<F, kAnd>(c, ti);
      device_op<F, kOr>(c, ti);
      device_op<F, kXor>(c, ti);
      device_op<F, kMin>(c, ti);
      device_op<F, kMax>(c, ti);
      device_op<F, kSum>(c, ti);
      device_op<F, kProd>(c, ti);
    }
    gputest::sync_and_barrier();
  }
  if (c.me == 0) {
    std::printf("gpu_reduce: device %s reductions (%s), reduce, in place and reducescatter\n", F::label,
                F::all_scopes ? "every op at thread, warp and block scope" : "every op at one scope in turn");
  }
}

void run_device(Ctx& c) {
  device_family<F_int32>(c);
  device_family<F_int64>(c);
  device_family<F_uint8>(c);
  device_family<F_float>(c);
  device_family<F_double>(c);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  device_family<F_half>(c);
  device_family<F_bfloat16>(c);
#endif
}

// ---- stream and host forms -------------------------------------------------------------------------

// Every size: the source from the host (in place: into the dest), the dest and its guards poisoned, a
// barrier (on stream or from the host), the call (on stream or from the host), the dest and the source
// copied back and checked; then the next member's dest compared and a barrier before the next size.
template <class F>
void stream_case(Ctx& c, size_t ti, int op, bool scatter, bool in_place, bool host_form) {
  using T = typename F::T;
  const Team& t = c.teams[ti];
  const SizeList sizes = make_sizes(F::big ? size_count(2, ti) : scaled_count(7), sizeof(T));
  const uint64_t round =
      round_of(host_form ? kSubHost : kSubStream, static_cast<int>(ti), F::id, op, 0, scatter ? 2 : in_place);
  const std::string what = op_name(F::label, op, scatter, host_form ? "" : "_on_stream") +
                           (in_place ? " (in place)" : "") + (host_form ? " (host)" : "") + " on " + team_text(t);
  for (int k = 0; k < sizes.count; ++k) {
    const size_t ne = sizes.n[k], bytes = ne * sizeof(T);
    const size_t se = scatter ? ne * static_cast<size_t>(t.size) : ne;
    const uint64_t rk = round + k;
    T* hs = reinterpret_cast<T*>(c.h_src);
    for (size_t i = 0; i < se; ++i) hs[i] = gen<T>(op, rk, i, t.index, t.size);
    unsigned char* region = c.dbuf;
    T* dest = reinterpret_cast<T*>(region + kGuard);
    T* source = in_place ? dest : reinterpret_cast<T*>(c.src);
    int sync_rc, rc;
    if (host_form) {
      CUDA_CHECK(cudaMemset(region, kPoison, 2 * kGuard + bytes));
      CUDA_CHECK(cudaMemcpy(source, hs, se * sizeof(T), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaDeviceSynchronize());
      sync_rc = nvshmem_barrier(t.handle);
      rc = F::host(op, scatter, t.handle, dest, source, ne);
      CUDA_CHECK(cudaMemcpy(c.h_dst, region, 2 * kGuard + bytes, cudaMemcpyDeviceToHost));
      if (!in_place) CUDA_CHECK(cudaMemcpy(c.h_peer, source, se * sizeof(T), cudaMemcpyDeviceToHost));
    } else {
      CUDA_CHECK(cudaMemsetAsync(region, kPoison, 2 * kGuard + bytes, c.st));
      CUDA_CHECK(cudaMemcpyAsync(source, hs, se * sizeof(T), cudaMemcpyHostToDevice, c.st));
      sync_rc = nvshmemx_barrier_on_stream(t.handle, c.st);
      rc = F::stream(op, scatter, t.handle, dest, source, ne, c.st);
      CUDA_CHECK(cudaMemcpyAsync(c.h_dst, region, 2 * kGuard + bytes, cudaMemcpyDeviceToHost, c.st));
      if (!in_place) CUDA_CHECK(cudaMemcpyAsync(c.h_peer, source, se * sizeof(T), cudaMemcpyDeviceToHost, c.st));
      gputest::sync_or_die(c.st, kHang, [&] { return what + ", " + std::to_string(ne) + " elements"; });
    }
    MP_CHECK(sync_rc == 0, "%s: the barrier before it returned %d", what.c_str(), sync_rc);
    MP_CHECK(rc == 0, "%s, %zu elements: returned %d", what.c_str(), ne, rc);
    if (!in_place) {
      MP_CHECK(std::memcmp(c.h_peer, hs, se * sizeof(T)) == 0, "%s, %zu elements: the source changed", what.c_str(),
               ne);
    }
    const std::string bad = check_region<T>(c.h_dst, op, scatter, rk, ne, t.index, t.size);
    MP_CHECK(bad.empty(), "%s, %zu elements: %s", what.c_str(), ne, bad.c_str());
    if (!scatter) {
      const std::string diff = same_as_next(c, t, c.h_dst + kGuard, dest, bytes);
      MP_CHECK(diff.empty(), "%s, %zu elements: %s", what.c_str(), ne, diff.c_str());
    }
    const int rc2 = nvshmem_barrier(t.handle);  // no member poisons its dest while another reads it
    MP_CHECK(rc2 == 0, "%s: the host nvshmem_barrier after it returned %d", what.c_str(), rc2);
  }
}

template <class F>
void stream_family(Ctx& c, bool host_form) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    if (c.teams[ti].index >= 0) {
      for (int op = kAnd; op <= kProd; ++op) {
        if (((F::ops >> op) & 1u) == 0) continue;
        stream_case<F>(c, ti, op, false, false, host_form);
        stream_case<F>(c, ti, op, true, false, host_form);
        if ((op + static_cast<int>(ti)) % 2 == 0) stream_case<F>(c, ti, op, false, true, host_form);
      }
    }
    gputest::sync_and_barrier();
  }
  if (c.me == 0) {
    std::printf("gpu_reduce: %s %s reductions, every op, reduce and reducescatter%s\n",
                host_form ? "host" : "on-stream", F::label, F::big ? " up to 5 MiB of int" : "");
  }
}

void run_stream_or_host(Ctx& c, bool host_form) {
  stream_family<F_int32>(c, host_form);
  stream_family<F_int64>(c, host_form);
  stream_family<F_uint8>(c, host_form);
  stream_family<F_float>(c, host_form);
  stream_family<F_double>(c, host_form);
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  stream_family<F_half>(c, host_form);
  stream_family<F_bfloat16>(c, host_form);
#endif
}

// ---- graph ---------------------------------------------------------------------------------------

// An int32 sum reduce of kGraphR elements, a double sum reducescatter of kGraphS per member, and an
// int64 max reduce of kGraphI elements in place; the data of replay r is made from round kGraphBase + r.
constexpr size_t kGraphR = 4099, kGraphS = 1000, kGraphI = 777;
constexpr uint64_t kGraphBase = uint64_t{1} << 40;

struct GraphBufs {
  int32_t* src_r;
  int32_t* dst_r;
  double* src_s;
  double* dst_s;
  int64_t* dst_i;  // in place
};

__host__ __device__ inline uint64_t graph_round(int kind, unsigned long long replay, size_t ti) {
  return kGraphBase + ((replay * 4 + ti) * 4 + kind) * 16;
}

// words: [0] the replay counter, [1] mismatches seen by graph_check, [2] its checksum of the results.
__global__ void graph_step(GraphBufs g, nvshmem_team_t team, size_t ti, unsigned long long* words) {
  __shared__ unsigned long long c;
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  if (threadIdx.x == 0) c = ++words[0];
  __syncthreads();
  for (size_t i = threadIdx.x; i < kGraphR; i += blockDim.x) {
    g.src_r[i] = gen<int32_t>(kSum, graph_round(0, c, ti), i, me, n);
    g.dst_r[i] = 0x5a5a5a5a;
  }
  for (size_t i = threadIdx.x; i < n * kGraphS; i += blockDim.x)
    g.src_s[i] = gen<double>(kSum, graph_round(1, c, ti), i, me, n);
  for (size_t i = threadIdx.x; i < kGraphS; i += blockDim.x) g.dst_s[i] = -1.0;
  for (size_t i = threadIdx.x; i < kGraphI; i += blockDim.x)
    g.dst_i[i] = gen<int64_t>(kMax, graph_round(2, c, ti), i, me, n);
}

__global__ void graph_check(GraphBufs g, nvshmem_team_t team, size_t ti, unsigned long long* words) {
  const int me = nvshmem_team_my_pe(team), n = nvshmem_team_n_pes(team);
  const unsigned long long c = words[0];
  unsigned long long bad = 0, sum = 0;
  for (size_t i = threadIdx.x; i < kGraphR; i += blockDim.x) {
    const int32_t v = g.dst_r[i];
    bad += !same_result(v, expect<int32_t>(kSum, graph_round(0, c, ti), i, n));
    sum += bits_of(v);
  }
  for (size_t i = threadIdx.x; i < kGraphS; i += blockDim.x) {
    const double v = g.dst_s[i];
    bad += !same_result(v, expect<double>(kSum, graph_round(1, c, ti), me * kGraphS + i, n));
    sum += bits_of(v);
  }
  for (size_t i = threadIdx.x; i < kGraphI; i += blockDim.x) {
    const int64_t v = g.dst_i[i];
    bad += !same_result(v, expect<int64_t>(kMax, graph_round(2, c, ti), i, n));
    sum += bits_of(v);
  }
  atomicAdd(&words[1], bad);
  atomicAdd(&words[2], sum);
}

void graph_team(Ctx& c, size_t ti) {
  const Team& t = c.teams[ti];
  const int me = t.index, n = t.size;
  GraphBufs g;
  g.src_r = reinterpret_cast<int32_t*>(c.src);
  g.src_s = reinterpret_cast<double*>(c.src + 64 * 1024);
  g.dst_r = reinterpret_cast<int32_t*>(c.dbuf);
  g.dst_s = reinterpret_cast<double*>(c.dbuf + 64 * 1024);
  g.dst_i = reinterpret_cast<int64_t*>(c.dbuf + 128 * 1024);
  CUDA_CHECK(cudaMemsetAsync(c.words, 0, 3 * sizeof(unsigned long long), c.st));
  CUDA_CHECK(cudaStreamSynchronize(c.st));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(c.st, cudaStreamCaptureModeGlobal));
  graph_step<<<1, 256, 0, c.st>>>(g, t.handle, ti, c.words);
  int rc[5];
  rc[0] = nvshmemx_barrier_on_stream(t.handle, c.st);  // every member's data is made, its last check done
  rc[1] = nvshmemx_int32_sum_reduce_on_stream(t.handle, g.dst_r, g.src_r, kGraphR, c.st);
  rc[2] = nvshmemx_double_sum_reducescatter_on_stream(t.handle, g.dst_s, g.src_s, kGraphS, c.st);
  rc[3] = nvshmemx_int64_max_reduce_on_stream(t.handle, g.dst_i, g.dst_i, kGraphI, c.st);
  graph_check<<<1, 256, 0, c.st>>>(g, t.handle, ti, c.words);
  rc[4] = nvshmemx_team_sync_on_stream(t.handle, c.st);
  CUDA_CHECK(cudaStreamEndCapture(c.st, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const char* const captured[] = {"nvshmemx_barrier_on_stream", "nvshmemx_int32_sum_reduce_on_stream",
                                  "nvshmemx_double_sum_reducescatter_on_stream",
                                  "nvshmemx_int64_max_reduce_on_stream (in place)", "nvshmemx_team_sync_on_stream"};
  for (int k = 0; k < 5; ++k) {
    MP_CHECK(rc[k] == 0, "%s on %s returned %d while captured into a graph", captured[k], team_text(t).c_str(), rc[k]);
  }
  std::vector<int32_t> r(kGraphR);
  std::vector<double> s(kGraphS);
  std::vector<int64_t> in(kGraphI);
  unsigned long long checksum = 0;
  const int replays = gputest::scaled(kReplays, 3);
  for (int rep = 1; rep <= replays; ++rep) {
    CUDA_CHECK(cudaGraphLaunch(exec, c.st));
    const std::string what =
        "the graph of nvshmemx_barrier_on_stream, nvshmemx_int32_sum_reduce_on_stream, "
        "nvshmemx_double_sum_reducescatter_on_stream, nvshmemx_int64_max_reduce_on_stream (in place) and "
        "nvshmemx_team_sync_on_stream on " +
        team_text(t) + ", replay " + std::to_string(rep);
    gputest::sync_or_die(c.st, kHang, [&] { return what; });
    unsigned long long words[3];
    CUDA_CHECK(cudaMemcpy(words, c.words, sizeof words, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r.data(), g.dst_r, kGraphR * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(s.data(), g.dst_s, kGraphS * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(in.data(), g.dst_i, kGraphI * sizeof(int64_t), cudaMemcpyDeviceToHost));
    MP_CHECK(words[0] == static_cast<unsigned long long>(rep), "%s: the graph's counter is %llu", what.c_str(),
             words[0]);
    const unsigned long long c0 = static_cast<unsigned long long>(rep);
    for (size_t i = 0; i < kGraphR; ++i) {
      const int32_t want = expect<int32_t>(kSum, graph_round(0, c0, ti), i, n);
      MP_CHECK(r[i] == want, "%s: int32 sum dest[%zu] is %d, expected %d (members: %s)", what.c_str(), i, r[i], want,
               members_values<int32_t>(kSum, graph_round(0, c0, ti), i, n).c_str());
      checksum += bits_of(r[i]);
    }
    for (size_t i = 0; i < kGraphS; ++i) {
      const double want = expect<double>(kSum, graph_round(1, c0, ti), me * kGraphS + i, n);
      MP_CHECK(same_result(s[i], want), "%s: double sum reducescatter dest[%zu] is %s, expected %s (members: %s)",
               what.c_str(), i, gputest::show<double>(bits_of(s[i])).c_str(),
               gputest::show<double>(bits_of(want)).c_str(),
               members_values<double>(kSum, graph_round(1, c0, ti), me * kGraphS + i, n).c_str());
      checksum += bits_of(s[i]);
    }
    for (size_t i = 0; i < kGraphI; ++i) {
      const int64_t want = expect<int64_t>(kMax, graph_round(2, c0, ti), i, n);
      MP_CHECK(in[i] == want, "%s: int64 max (in place) dest[%zu] is %lld, expected %lld", what.c_str(), i,
               static_cast<long long>(in[i]), static_cast<long long>(want));
      checksum += bits_of(in[i]);
    }
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
        "gpu_reduce: CUDA graph of on-stream reductions (int32 sum, double sum reducescatter, int64 max in "
        "place), %d replays on %s and on %s\n",
        gputest::scaled(kReplays, 3), c.teams[0].name.c_str(), c.teams[2].name.c_str());
  }
}

// ---- maxloc --------------------------------------------------------------------------------------

// Member j's element i: .x from {-2, -1, 1, 2, 3} (ties are common; every member the same .x in one
// lane of 8), .y an index from 0 to 5 (equal .x and .y happen too; then either member's pair is it).
__host__ __device__ inline double2 maxloc_value(uint64_t round, size_t i, int member) {
  const uint64_t lane = lane_hash(round, i), r = value_hash(round, i, member);
  const double xs[5] = {-2, -1, 1, 2, 3};
  double2 v;
  v.x = lane % 8 == 0 ? xs[(lane >> 8) % 5] : xs[r % 5];
  v.y = static_cast<double>((r >> 8) % 6);
  return v;
}

__global__ void __launch_bounds__(kThreads)
    maxloc_kernel(nvshmem_team_t team, unsigned char* dbuf, double2* src, SizeList sizes, uint64_t round, Failure* f) {
  const int me = nvshmem_team_my_pe(team);
  for (size_t b = threadIdx.x; b < sizes.total; b += blockDim.x) dbuf[b] = kPoison;
  __syncthreads();
  for (int k = 0; k < sizes.count; ++k) {
    const size_t ne = sizes.n[k];
    double2* dest = reinterpret_cast<double2*>(dbuf + sizes.off[k] + kGuard);
    for (size_t i = threadIdx.x; i < ne; i += blockDim.x) src[i] = maxloc_value(round + k, i, me);
    __syncthreads();
    const int sync_rc = sync_at<2>(k % 2 == 0, team);
    if (sync_rc != 0) gputest::fail(f, kCheckSyncRc, -1, k, 0, static_cast<unsigned long long>(sync_rc));
    const int rc = nvshmemx_double2_maxloc_reduce_block(team, dest, src, ne);
    if (rc != 0) gputest::fail(f, kCheckRc, -1, k, 0, static_cast<unsigned long long>(rc));
    __syncthreads();
  }
}

void run_maxloc(Ctx& c) {
  for (size_t ti = 0; ti < c.teams.size(); ++ti) {
    const Team& t = c.teams[ti];
    if (t.index >= 0) {
      const SizeList sizes = make_sizes(scaled_count(8), sizeof(double2));  // up to 262144 elements
      const uint64_t round = round_of(kSubMaxloc, static_cast<int>(ti), 0, 0, 2, 0);
      const std::string what = "nvshmemx_double2_maxloc_reduce_block on " + team_text(t);
      c.failures->reset();
      maxloc_kernel<<<1, kThreads, 0, c.st>>>(t.handle, c.dbuf, reinterpret_cast<double2*>(c.src), sizes, round,
                                              c.failures->dev());
      CUDA_CHECK(cudaGetLastError());
      gputest::sync_or_die(c.st, kHang, [&] { return "the kernel calling " + what; });
      const Failure f = c.failures->get();
      MP_CHECK(f.count == 0, "%s, %zu elements: %s returned %d", what.c_str(),
               f.round >= 0 && f.round < sizes.count ? sizes.n[f.round] : 0,
               f.check == kCheckRc ? "the call" : "the block barrier before it", static_cast<int>(f.actual));
      CUDA_CHECK(cudaMemcpy(c.h_dst, c.dbuf, sizes.total, cudaMemcpyDeviceToHost));
      for (int k = 0; k < sizes.count; ++k) {
        const unsigned char* region = c.h_dst + sizes.off[k];
        const size_t ne = sizes.n[k];
        for (size_t b = 0; b < kGuard; ++b) {
          MP_CHECK(region[b] == kPoison && region[kGuard + ne * sizeof(double2) + b] == kPoison,
                   "%s, %zu elements: byte %zu of a guard around dest was overwritten", what.c_str(), ne, b);
        }
        for (size_t e = 0; e < ne; ++e) {
          double2 best = maxloc_value(round + k, e, 0);
          for (int j = 1; j < t.size; ++j) {
            const double2 v = maxloc_value(round + k, e, j);
            if (v.x > best.x || (v.x == best.x && v.y < best.y)) best = v;
          }
          double2 got;
          std::memcpy(&got, region + kGuard + e * sizeof(double2), sizeof got);
          if (std::memcmp(&got, &best, sizeof got) != 0) {
            std::string members;
            for (int j = 0; j < t.size; ++j) {
              const double2 v = maxloc_value(round + k, e, j);
              members += (j ? ", " : "") + std::string("(") + std::to_string(v.x) + ", " + std::to_string(v.y) + ")";
            }
            MP_CHECK(false, "%s, %zu elements: dest[%zu] is (%g, %g), expected (%g, %g) (the members' pairs: %s)",
                     what.c_str(), ne, e, got.x, got.y, best.x, best.y, members.c_str());
          }
        }
      }
      const std::string diff = same_as_next(c, t, c.h_dst, c.dbuf, sizes.total);
      MP_CHECK(diff.empty(), "%s: %s", what.c_str(), diff.c_str());
      MP_CHECK(nvshmem_barrier(t.handle) == 0, "%s: the host barrier after it failed", what.c_str());
    }
    gputest::sync_and_barrier();
  }
  if (c.me == 0) std::printf("gpu_reduce: nvshmemx_double2_maxloc_reduce_block on %zu teams\n", c.teams.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> picked(argv + 1, argv + argc);
  if (picked.empty()) picked.push_back("all");
  const char* const subs[] = {"all", "device", "stream", "host", "graph", "maxloc"};
  for (const std::string& p : picked) {
    if (std::find(std::begin(subs), std::end(subs), p) == std::end(subs)) {
      std::fprintf(stderr, "usage: gpu_reduce [all|device|stream|host|graph|maxloc]... (not \"%s\")\n", p.c_str());
      return 2;
    }
  }
  auto runs = [&](const char* sub) {
    return std::find(picked.begin(), picked.end(), "all") != picked.end() ||
           std::find(picked.begin(), picked.end(), sub) != picked.end();
  };
  std::string what;
  for (const std::string& p : picked) what += (what.empty() ? "" : " ") + p;
  gputest::init_and_select_gpu();
  Ctx c;
  c.me = nvshmem_my_pe();
  c.npes = nvshmem_n_pes();
  MP_CHECK(c.npes >= 2, "run with at least 2 PEs");
  c.src_bytes = static_cast<size_t>(c.npes) * kMaxElems * sizeof(double) + 4096;
  c.dbuf_bytes = make_sizes(9, sizeof(double2)).total;  // the largest element, every size
  c.src = static_cast<unsigned char*>(nvshmem_malloc(c.src_bytes));
  c.dbuf = static_cast<unsigned char*>(nvshmem_malloc(c.dbuf_bytes));
  MP_CHECK(c.src && c.dbuf, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMallocHost(&c.h_src, c.src_bytes));
  CUDA_CHECK(cudaMallocHost(&c.h_dst, c.dbuf_bytes));
  CUDA_CHECK(cudaMallocHost(&c.h_peer, std::max(c.dbuf_bytes, c.src_bytes)));
  CUDA_CHECK(cudaMalloc(&c.words, 8 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.st, cudaStreamNonBlocking));
  make_teams(c);
  gputest::sync_and_barrier();
  {
    gputest::Failures failures;
    c.failures = &failures;
    if (runs("device")) run_device(c);
    if (runs("stream")) run_stream_or_host(c, false);
    if (runs("host")) run_stream_or_host(c, true);
    if (runs("graph")) run_graph(c);
    if (runs("maxloc")) run_maxloc(c);
    gputest::sync_and_barrier();
  }
  gputest::destroy_teams(c.teams);
  CUDA_CHECK(cudaStreamDestroy(c.st));
  CUDA_CHECK(cudaFree(c.words));
  CUDA_CHECK(cudaFreeHost(c.h_src));
  CUDA_CHECK(cudaFreeHost(c.h_dst));
  CUDA_CHECK(cudaFreeHost(c.h_peer));
  nvshmem_free(c.dbuf);
  nvshmem_free(c.src);
  if (c.me == 0)
    std::printf("gpu_reduce %s: passed on %d PEs%s\n", what.c_str(), c.npes, gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
