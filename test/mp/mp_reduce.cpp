// Host reductions on teams: nvshmem_<T>_<op>_reduce (every member's dest[e] = op over the members'
// source[e]) and nvshmem_<T>_<op>_reducescatter (member k's dest[e] = op over the members'
// source[k * nreduce + e]), with their nvshmemx_*_on_stream forms, for every operation and type of
// NVSHMEM's reduction families: and/or/xor over the bitwise types, min/max over the standard types,
// sum/prod over the arithmetic types, half and bfloat16 included where cuda_fp16.h exists.
//
// gshmem documents the result exactly (docs/collectives.md), so every element is compared bit for bit
// with an expectation computed here, independently of the library, from the members' data:
//   - integers: and/or/xor bitwise; min/max in the type; sum and prod wrap modulo 2^bits (computed
//     here in the unsigned type, so INT_MAX + 1 gives INT_MIN);
//   - float, double: combined in the type, in team order: ((s0 op s1) op s2) ..., s_i the value of
//     team member i (not world PE i: a team numbered in reverse tells the two apart);
//   - half, bfloat16: widened to float, combined in float in team order, rounded to the 16-bit type
//     once at the end (cuda_fp16.h's __float2half_rn / __float2bfloat16_rn);
//   - min/max: NaN if any member's value is NaN; min(-0, +0) = -0 and max(-0, +0) = +0 in any order.
// Where the expectation is NaN the result must be a NaN (of any payload); every other result must have
// the expected bits. And the members of a reduce must hold bit-identical results, NaNs included: each
// member compares its dest with the next member's (read with nvshmem_getmem), so all are equal.
// The bytes after each dest must stay untouched, and the source must not change (unless in place).
//
// Teams: NVSHMEM_TEAM_WORLD, strided splits (start 1 stride 2, start 2 stride 3), the x and y teams
// of a 2-D split, every PE numbered in reverse (a unique-ID team), and one PE alone. Sizes 0, 1, 37,
// 1001 and several MiB; in place (dest == source) for reduce; hundreds of calls back to back on
// alternating teams. Each call's data comes from seeds of (call number, element, PE), so stale data
// from an earlier call is caught. Some elements are lanes of a kind on every member: signed zeros on
// every member, a NaN on one member, the same value everywhere; the others mix random values with
// the extremes (INT_MAX, INT_MIN, all bits set, 0, 1, small values) that make sums and products wrap.
//
// The host reads and writes the symmetric buffers directly: run it on the CPU backend.
// Every PE walks through every call in the same order (a PE outside the call's team only counts it),
// so that the call numbers and the destination areas agree between PEs.
//
// argv[1] picks a part: values, types, teams, stream, big, loop; none runs them all.
#include <nvshmemx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>

#include "gen/type_lists.h"
#include "mp_team_util.h"
#include "mp_test.h"
#include "reduce_fns.h"

namespace {

using mp::describe;
using mp::index_of;
using mp::Members;
using mp::strided;

int g_me = -1, g_npes = 0;

enum Op { kAnd, kOr, kXor, kMin, kMax, kSum, kProd };
const char* const kOpNames[] = {"and", "or", "xor", "min", "max", "sum", "prod"};

// ---- the element types: how the host combines them (Acc), and how they are shown.
template <class T>
struct Host {
  using Acc = T;
  static Acc in(T v) { return v; }
  static T out(Acc a) { return a; }
  static T make(double d) { return static_cast<T>(d); }
  static constexpr int kMant = std::numeric_limits<T>::digits;  // significant bits of the floating types
};
template <class T>
constexpr bool kIs16 = false;
#if defined(GSHMEMI_HAVE_CUDA_FP16)
template <>
struct Host<__half> {
  using Acc = float;
  static float in(__half v) { return __half2float(v); }
  static __half out(float a) { return __float2half_rn(a); }
  static __half make(double d) { return __float2half_rn(static_cast<float>(d)); }
  static constexpr int kMant = 11;
};
template <>
struct Host<__nv_bfloat16> {
  using Acc = float;
  static float in(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __nv_bfloat16 out(float a) { return __float2bfloat16_rn(a); }
  static __nv_bfloat16 make(double d) { return __float2bfloat16_rn(static_cast<float>(d)); }
  static constexpr int kMant = 8;
};
template <>
constexpr bool kIs16<__half> = true;
template <>
constexpr bool kIs16<__nv_bfloat16> = true;
#endif
template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || kIs16<T>;

template <class T>
unsigned long long bits_of(const T& v) {
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T, class U>
T from_bits(U u) {
  static_assert(sizeof(T) == sizeof(U), "same size");
  T v;
  std::memcpy(static_cast<void*>(&v), &u, sizeof v);
  return v;
}

template <class T>
bool is_nan(const T& v) {
  if constexpr (kIsFloat<T>) {
    return std::isnan(Host<T>::in(v));
  } else {
    return false;
  }
}

template <class T>
std::string show(const T& v) {
  char buf[96];
  const unsigned long long b = bits_of(v);
  if constexpr (kIs16<T>) {
    std::snprintf(buf, sizeof buf, "%g (0x%04llx)", static_cast<double>(Host<T>::in(v)), b);
  } else if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(buf, sizeof buf, "%.17g (0x%llx)", static_cast<double>(v), b);
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(buf, sizeof buf, "%lld (0x%llx)", static_cast<long long>(v), b);
  } else {
    std::snprintf(buf, sizeof buf, "%llu (0x%llx)", static_cast<unsigned long long>(v), b);
  }
  return buf;
}

// ---- the expectation: one combination step, in the accumulator type.
template <class T>
T int_combine(Op op, T a, T b) {
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
    case kProd:
      return from_bits<T>(static_cast<U>(ua * ub));
  }
  std::abort();
}

template <class F>
F float_combine(Op op, F a, F b) {
  switch (op) {
    case kSum:
      return a + b;
    case kProd:
      return a * b;
    case kMin:
    case kMax:
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      if (a == b) return (std::signbit(a) == (op == kMin)) ? a : b;  // -0 for min, +0 for max
      return op == kMin ? (b < a ? b : a) : (b > a ? b : a);
    default:
      std::abort();
  }
}

template <class T>
typename Host<T>::Acc combine(Op op, typename Host<T>::Acc a, typename Host<T>::Acc b) {
  if constexpr (kIsFloat<T>) {
    return float_combine(op, a, b);
  } else {
    return int_combine<T>(op, a, b);
  }
}

// ---- the data. A hash of (call, element) picks the element's lane kind (the same on every member);
// a hash of (call, element, world PE) the member's value.
uint64_t hash_of(uint64_t a, uint64_t b, uint64_t c = 0) {
  uint64_t s =
      a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full ^ c * 0x165667b19e3779f9ull;
  mp::mix(s);
  return mp::mix(s);
}

template <class T>
T int_value(Op op, uint64_t r) {
  using U = std::make_unsigned_t<T>;
  U u;
  switch (r >> 60) {
    case 0:
      u = static_cast<U>(std::numeric_limits<T>::max());
      break;
    case 1:
      u = static_cast<U>(std::numeric_limits<T>::min());
      break;
    case 2:
      u = static_cast<U>(~U{0});  // -1 in the signed types
      break;
    case 3:
      u = 0;
      break;
    case 4:
      u = 1;
      break;
    case 5:
    case 6:
      u = static_cast<U>(r % 7 - 3);  // -3 .. 3
      break;
    default:
      u = static_cast<U>(r);
      if (op == kProd) u |= 1;  // odd: a product keeps its low bits instead of turning 0 at once
  }
  return from_bits<T>(u);
}

// Floating values: sums mix magnitudes (2^-6 .. 2^6) so that the order of the additions shows in the
// rounding; products take factors in [0.5, 2) (a product of 8 stays inside the half range); both with
// the type's full precision, so that the values are exact in T.
template <class T>
T float_value(Op op, uint64_t lane, uint64_t r, int member, int n) {
  using H = Host<T>;
  constexpr int mant = H::kMant;
  const unsigned kind = static_cast<unsigned>(lane % 32);
  if (kind == 0) return H::make((r & 1) ? -0.0 : 0.0);  // every member a signed zero
  if (kind == 1 && static_cast<int>((lane >> 8) % static_cast<uint64_t>(n)) == member) {
    return H::make(std::numeric_limits<double>::quiet_NaN());  // one member's NaN
  }
  if (kind == 2 && (op == kMin || op == kMax)) {  // every member the same value, or an infinity
    if (r & 1) return H::make((r & 2) ? -INFINITY : INFINITY);
    r = lane;
  }
  const double sign = (r & 4) ? -1.0 : 1.0;
  const uint64_t m = (r >> 8) & ((uint64_t{1} << (mant - 1)) - 1);         // mant - 1 fraction bits
  const double frac = 1.0 + std::ldexp(static_cast<double>(m), 1 - mant);  // [1, 2), exact in T
  const int exp = op == kProd ? -static_cast<int>((r >> 3) & 1) : static_cast<int>((r >> 56) % 13) - 6;
  return H::make(sign * std::ldexp(frac, exp));
}

// Element i of the source of team member `member` (world PE `pe`) of a team of n, in call `call`.
template <class T>
T value_of(Op op, uint64_t call, size_t i, int member, int pe, int n) {
  const uint64_t r = hash_of(call, i, static_cast<uint64_t>(pe) + 1);
  if constexpr (kIsFloat<T>) {
    return float_value<T>(op, hash_of(call, i), r, member, n);
  } else {
    return int_value<T>(op, r);
  }
}

// ---- the teams: the same list on every PE; `team` is NVSHMEM_TEAM_INVALID where this PE is no member.
struct Slot {
  std::string name;
  nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
  Members m;     // this PE's team in this slot (each PE has its own in the 2-D slots)
  int idx = -1;  // this PE's number in it, or -1
  int n() const { return static_cast<int>(m.size()); }
};
std::vector<Slot> g_slots;
std::vector<nvshmem_team_t> g_created;  // in the order made

void add_slot(const std::string& name, nvshmem_team_t team, const Members& m) {
  Slot s;
  s.name = name;
  s.team = team;
  s.m = m;
  s.idx = index_of(m, g_me);
  MP_CHECK((s.idx >= 0) == (team != NVSHMEM_TEAM_INVALID), "team %s: PE %d has team %d but index %d", name.c_str(),
           g_me, team, s.idx);
  if (team != NVSHMEM_TEAM_WORLD) g_created.push_back(team);
  if (s.idx >= 0) {
    MP_CHECK(nvshmem_team_my_pe(team) == s.idx && nvshmem_team_n_pes(team) == s.n(),
             "team %s %s: team_my_pe %d (expected %d), team_n_pes %d (expected %d)", name.c_str(), describe(m).c_str(),
             nvshmem_team_my_pe(team), s.idx, nvshmem_team_n_pes(team), s.n());
  }
  g_slots.push_back(s);
}

nvshmem_team_t split(int start, int stride, int size, const char* what) {
  nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
  const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t);
  MP_CHECK(rc == 0, "%s: nvshmem_team_split_strided(WORLD, %d, %d, %d) returned %d", what, start, stride, size, rc);
  return t;
}

void make_teams() {
  const Members world = mp::world_members(g_npes);
  const int n = g_npes;
  add_slot("WORLD", NVSHMEM_TEAM_WORLD, world);
  if (n >= 2) {  // PEs 1, 3, 5, ...
    const int size = n / 2;
    add_slot("start 1 stride 2", split(1, 2, size, "start 1 stride 2"), strided(world, 1, 2, size));
  }
  if (n >= 3) {  // PEs 2, 5, 8, ...
    const int size = (n - 3) / 3 + 1;
    add_slot("start 2 stride 3", split(2, 3, size, "start 2 stride 3"), strided(world, 2, 3, size));
  }
  {  // 2-D, xrange 3: rows {0,1,2}, {3,4,5}, ... and columns {0,3,6,...}, {1,4,...}, {2,5,...}
    const int xr = std::min(3, n);
    nvshmem_team_t xt = NVSHMEM_TEAM_INVALID, yt = NVSHMEM_TEAM_INVALID;
    const int rc = nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 3, nullptr, 0, &xt, nullptr, 0, &yt);
    MP_CHECK(rc == 0, "nvshmem_team_split_2d(WORLD, 3) returned %d", rc);
    Members xm, ym;
    for (int i = (g_me / xr) * xr; i < std::min((g_me / xr + 1) * xr, n); ++i) xm.push_back(i);
    for (int i = g_me % xr; i < n; i += xr) ym.push_back(i);
    add_slot("2-D x (xrange 3)", xt, xm);
    add_slot("2-D y (xrange 3)", yt, ym);
  }
  {  // every PE, numbered in reverse, through a unique ID made by the last PE
    uint64_t* box = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
    MP_CHECK(box, "nvshmem_calloc failed");
    if (g_me == n - 1) {
      nvshmemx_team_uniqueid_t id = NVSHMEMX_TEAM_UNIQUEID_INITIALIZER;
      const int rc = nvshmemx_team_get_uniqueid(&id);
      MP_CHECK(rc == 0, "nvshmemx_team_get_uniqueid returned %d", rc);
      for (int pe = 0; pe < n; ++pe) nvshmem_uint64_p(box, static_cast<uint64_t>(id), pe);
    }
    nvshmem_barrier_all();
    nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    cfg.uniqueid = static_cast<nvshmemx_team_uniqueid_t>(*box);
    nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
    const int rc = nvshmemx_team_init(&t, &cfg, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, n, n - 1 - g_me);
    MP_CHECK(rc == 0, "nvshmemx_team_init(%d PEs, index %d) returned %d", n, n - 1 - g_me, rc);
    add_slot("reversed (unique ID)", t, Members(world.rbegin(), world.rend()));
    nvshmem_barrier_all();
    nvshmem_free(box);
  }
  // The last PE alone (the others get NVSHMEM_TEAM_INVALID).
  add_slot("last PE alone", split(n - 1, 1, 1, "last PE alone"), Members{n - 1});
}

const Slot& slot_named(const char* name) {
  for (const Slot& s : g_slots) {
    if (s.name == name) return s;
  }
  return g_slots[0];
}

void destroy_teams() {
  for (size_t i = g_created.size(); i-- > 0;) nvshmem_team_destroy(g_created[i]);
  g_slots.clear();
  g_created.clear();
}

// ---- buffers. Destinations come from a ring: each call takes the next area, the same on every PE.
// When the ring is full all PEs meet (every PE is done reading its peers' areas), refill it with kFill
// and meet again (no PE writes into an area another still fills). The source buffer is written anew
// for each call (a reduction that returned leaves the local source free to reuse).
constexpr unsigned char kFill = 0xA5;
constexpr size_t kGuard = 64;

mp::DestRing g_ring;
char* g_src = nullptr;
size_t g_src_cap = 0;
uint64_t g_call = 0;  // reductions so far, counted on every PE
long g_done = 0;      // reductions this PE took part in and checked
size_t g_bytes = 0;   // bytes of results checked

// ---- the API under test, per (type, op), through one signature.
enum Mode { kReduce, kInPlace, kScatter };

struct Entry;
using RunFn = void (*)(const Entry&, const Slot&, size_t, Mode, bool);

struct Entry {
  const char* type;
  Op op;
  size_t size;
  int (*reduce)(nvshmem_team_t, void*, const void*, size_t);
  int (*scatter)(nvshmem_team_t, void*, const void*, size_t);
  int (*reduce_os)(nvshmem_team_t, void*, const void*, size_t, cudaStream_t);
  int (*scatter_os)(nvshmem_team_t, void*, const void*, size_t, cudaStream_t);
  RunFn run;
};

std::string api(const Entry& en, Mode mode, bool stream) {
  return std::string(stream ? "nvshmemx_" : "nvshmem_") + en.type + "_" + kOpNames[en.op] +
         (mode == kScatter ? "_reducescatter" : "_reduce") + (stream ? "_on_stream" : "");
}

std::string where(const Slot& s, const std::string& fn, Mode mode, size_t nelems, uint64_t call) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s%s on team \"%s\" (id %d, PEs %s, this PE is member %d of %d), %zu elements, call %llu", fn.c_str(),
                mode == kInPlace ? " (in place)" : "", s.name.c_str(), s.team, describe(s.m).c_str(), s.idx, s.n(),
                nelems, static_cast<unsigned long long>(call));
  return buf;
}

// The members' values of source element i, for a message.
template <class T>
std::string members_values(Op op, uint64_t call, size_t i, const Slot& s) {
  std::string out;
  for (int j = 0; j < s.n() && j < 8; ++j) {
    out += (j ? ", " : "") + show(value_of<T>(op, call, i, j, s.m[j], s.n()));
  }
  if (s.n() > 8) out += ", ...";
  return out;
}

// One call of the (type, op) of `en` on slot `s`, checked. Every PE calls it for every call.
template <class T>
void run_case(const Entry& en, const Slot& s, size_t nelems, Mode mode, bool stream) {
  using H = Host<T>;
  const uint64_t call = ++g_call;
  const size_t bytes = nelems * sizeof(T);
  char* area = g_ring.next(bytes);
  if (s.idx < 0) return;
  const int n = s.n();
  const size_t src_elems = mode == kScatter ? nelems * static_cast<size_t>(n) : nelems;
  MP_CHECK(src_elems * sizeof(T) <= g_src_cap, "a source of %zu bytes is larger than the source buffer",
           src_elems * sizeof(T));
  T* dest = reinterpret_cast<T*>(area);
  T* src = mode == kInPlace ? dest : reinterpret_cast<T*>(g_src);
  for (size_t i = 0; i < src_elems; ++i) src[i] = value_of<T>(en.op, call, i, s.idx, g_me, n);
  const std::string fn = api(en, mode, stream);
  int rc;
  if (stream) {
    rc = mode == kScatter ? en.scatter_os(s.team, dest, src, nelems, nullptr)
                          : en.reduce_os(s.team, dest, src, nelems, nullptr);
    mp::sync_default_stream();
  } else {
    rc = mode == kScatter ? en.scatter(s.team, dest, src, nelems) : en.reduce(s.team, dest, src, nelems);
  }
  MP_CHECK(rc == 0, "%s returned %d", where(s, fn, mode, nelems, call).c_str(), rc);

  // The expectation: element e combines the members' source[first + e] in team order.
  const size_t first = mode == kScatter ? nelems * static_cast<size_t>(s.idx) : 0;
  for (size_t e = 0; e < nelems; ++e) {
    typename H::Acc acc = H::in(value_of<T>(en.op, call, first + e, 0, s.m[0], n));
    for (int j = 1; j < n; ++j) acc = combine<T>(en.op, acc, H::in(value_of<T>(en.op, call, first + e, j, s.m[j], n)));
    const T want = H::out(acc);
    const T got = dest[e];
    const bool ok = is_nan(want) ? is_nan(got) : bits_of(got) == bits_of(want);
    MP_CHECK(ok, "%s: dest[%zu] is %s, expected %s (the members' values: %s)", where(s, fn, mode, nelems, call).c_str(),
             e, show(got).c_str(), show(want).c_str(), members_values<T>(en.op, call, first + e, s).c_str());
  }
  const unsigned char* guard = reinterpret_cast<const unsigned char*>(area) + bytes;
  for (size_t i = 0; i < kGuard; ++i) {
    MP_CHECK(guard[i] == kFill, "%s: wrote past the end of dest (%zu bytes): byte %zu after it is 0x%02x",
             where(s, fn, mode, nelems, call).c_str(), bytes, i, guard[i]);
  }
  if (mode != kInPlace) {  // the source is left as it was
    for (size_t i = 0; i < src_elems; ++i) {
      const T want = value_of<T>(en.op, call, i, s.idx, g_me, n);
      MP_CHECK(bits_of(src[i]) == bits_of(want), "%s: source[%zu] changed to %s, was %s",
               where(s, fn, mode, nelems, call).c_str(), i, show(src[i]).c_str(), show(want).c_str());
    }
  }
  if (mode != kScatter && n > 1 && bytes > 0) {  // the same bits on every member, NaN payloads too
    // A reduce guarantees only this PE's dest when it returns (a small one ends with no barrier): the
    // members meet before reading each other's, and again before any of them poisons it.
    const int next = s.m[(s.idx + 1) % n];
    std::vector<unsigned char> theirs(bytes);
    MP_CHECK(nvshmem_team_sync(s.team) == 0, "team_sync before reading the next member's dest failed");
    nvshmem_getmem(theirs.data(), dest, bytes, next);
    MP_CHECK(nvshmem_team_sync(s.team) == 0, "team_sync after reading the next member's dest failed");
    if (std::memcmp(theirs.data(), dest, bytes) != 0) {
      size_t e = 0;
      while (std::memcmp(theirs.data() + e * sizeof(T), dest + e, sizeof(T)) == 0) ++e;
      T other;
      std::memcpy(static_cast<void*>(&other), theirs.data() + e * sizeof(T), sizeof(T));
      MP_CHECK(false, "%s: the members' results differ: dest[%zu] is %s here and %s on PE %d",
               where(s, fn, mode, nelems, call).c_str(), e, show(dest[e]).c_str(), show(other).c_str(), next);
    }
  }
  ++g_done;
  g_bytes += bytes;
}

#define MP_RED_ENTRY(NAME, T, OP, OPNAME) Entry{#NAME, OP, sizeof(T), GSHMEMT_REDUCE_FNS(NAME, T, OPNAME), run_case<T>},
#define MP_RED_BIT(NAME, T) \
  MP_RED_ENTRY(NAME, T, kAnd, _and) MP_RED_ENTRY(NAME, T, kOr, _or) MP_RED_ENTRY(NAME, T, kXor, _xor)
#define MP_RED_STD(NAME, T) MP_RED_ENTRY(NAME, T, kMin, _min) MP_RED_ENTRY(NAME, T, kMax, _max)
#define MP_RED_ARITH(NAME, T) MP_RED_ENTRY(NAME, T, kSum, _sum) MP_RED_ENTRY(NAME, T, kProd, _prod)
const Entry kEntries[] = {GSHMEMT_TYPES_REDUCE_BIT(MP_RED_BIT) GSHMEMT_TYPES_REDUCE_STD(MP_RED_STD)
                              GSHMEMT_TYPES_REDUCE_ARITH(MP_RED_ARITH)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
                                  GSHMEMT_TYPES_REDUCE_FP16(MP_RED_STD) GSHMEMT_TYPES_REDUCE_FP16(MP_RED_ARITH)
#endif
};
#undef MP_RED_BIT
#undef MP_RED_STD
#undef MP_RED_ARITH
#undef MP_RED_ENTRY
constexpr size_t kNumEntries = sizeof kEntries / sizeof kEntries[0];

const Entry& entry(const char* type, Op op) {
  for (const Entry& e : kEntries) {
    if (e.op == op && std::strcmp(e.type, type) == 0) return e;
  }
  MP_CHECK(false, "no reduction %s_%s in the table", type, kOpNames[op]);
  std::abort();
}

void run(const Entry& en, const Slot& s, size_t nelems, Mode mode, bool stream = false) {
  en.run(en, s, nelems, mode, stream);
}

// ---- values: the documented semantics, one rule at a time, with the expectation written out.
// Each runs one reduce on a team with chosen values (member i's source from value(i, e)) and hands the
// dest to a check. Every PE calls it (a non-member only counts the call).
template <class T>
void chosen(const Slot& s, int (*fn)(nvshmem_team_t, T*, const T*, size_t), const char* name, size_t nelems,
            T (*value)(int member, int world_pe, int n, size_t e),
            void (*check)(const Slot&, const T* dest, const char*)) {
  ++g_call;
  char* area = g_ring.next(nelems * sizeof(T));
  if (s.idx < 0) return;
  T* src = reinterpret_cast<T*>(g_src);
  T* dest = reinterpret_cast<T*>(area);
  for (size_t e = 0; e < nelems; ++e) src[e] = value(s.idx, g_me, s.n(), e);
  const int rc = fn(s.team, dest, src, nelems);
  char what[256];
  std::snprintf(what, sizeof what, "%s on team \"%s\" (PEs %s, this PE is member %d of %d)", name, s.name.c_str(),
                describe(s.m).c_str(), s.idx, s.n());
  MP_CHECK(rc == 0, "%s returned %d", what, rc);
  check(s, dest, what);
  ++g_done;
  g_bytes += nelems * sizeof(T);
}

void test_values() {
  const Slot* teams[] = {&slot_named("WORLD"), &slot_named("reversed (unique ID)"), &slot_named("start 1 stride 2"),
                         &slot_named("last PE alone")};
  for (const Slot* sp : teams) {
    const Slot& s = *sp;
    // int sum wraps: INT_MAX from member 0 and 1 from the others gives INT_MIN + (n - 2); every member
    // INT_MIN gives INT_MIN (n odd) or 0 (n even).
    chosen<int>(
        s, nvshmem_int_sum_reduce, "nvshmem_int_sum_reduce", 2,
        [](int member, int, int, size_t e) { return e == 0 ? (member == 0 ? INT_MAX : 1) : INT_MIN; },
        [](const Slot& s, const int* d, const char* what) {
          const int n = s.n();
          const int want0 = n == 1 ? INT_MAX : INT_MIN + (n - 2);
          const int want1 = n % 2 ? INT_MIN : 0;
          MP_CHECK(d[0] == want0, "%s: INT_MAX + %d x 1 gave %d, expected %d (wrapped)", what, n - 1, d[0], want0);
          MP_CHECK(d[1] == want1, "%s: %d x INT_MIN gave %d, expected %d (wrapped)", what, n, d[1], want1);
        });
    // int8 prod: -128 * (-1)^(n-1) is -128 (128 wraps to -128); uint8 sum: 200 n mod 256.
    chosen<int8_t>(
        s, nvshmem_int8_prod_reduce, "nvshmem_int8_prod_reduce", 1,
        [](int member, int, int, size_t) { return static_cast<int8_t>(member == 0 ? -128 : -1); },
        [](const Slot&, const int8_t* d, const char* what) {
          MP_CHECK(d[0] == -128, "%s: -128 times -1s gave %d, expected -128", what, d[0]);
        });
    chosen<uint8_t>(
        s, nvshmem_uint8_sum_reduce, "nvshmem_uint8_sum_reduce", 1, [](int, int, int, size_t) { return uint8_t{200}; },
        [](const Slot& s, const uint8_t* d, const char* what) {
          const unsigned want = (200u * static_cast<unsigned>(s.n())) % 256u;
          MP_CHECK(d[0] == want, "%s: %d x 200 gave %u, expected %u", what, s.n(), d[0], want);
        });
    // long long prod: 2^32 on every member: 2^64 and beyond wrap to 0.
    chosen<long long>(
        s, nvshmem_longlong_prod_reduce, "nvshmem_longlong_prod_reduce", 1,
        [](int, int, int, size_t) { return 1ll << 32; },
        [](const Slot& s, const long long* d, const char* what) {
          const long long want = s.n() == 1 ? (1ll << 32) : 0;
          MP_CHECK(d[0] == want, "%s: (2^32)^%d gave %lld, expected %lld", what, s.n(), d[0], want);
        });
    // float sum in team order: the member numbered 0 gives 2^24, the others 1. In team order every
    // + 1 is a tie that rounds back to 2^24; the sum taken in world order on the reversed team would
    // add the ones first. Element 1: the world PE n-1 gives 2^24, in whichever place the team puts it.
    chosen<float>(
        s, nvshmem_float_sum_reduce, "nvshmem_float_sum_reduce", 2,
        [](int member, int pe, int, size_t e) {
          return (e == 0 ? member == 0 : pe == g_npes - 1) ? 16777216.0f : 1.0f;
        },
        [](const Slot& s, const float* d, const char* what) {
          MP_CHECK(d[0] == 16777216.0f, "%s: 2^24 + 1 + 1 ... (in team order) gave %.9g, expected 16777216", what,
                   static_cast<double>(d[0]));
          // Members before world PE n-1 add their ones exactly; then 2^24 and the rest round.
          const int at = index_of(s.m, g_npes - 1);
          float want = 0;
          for (int j = 0; j < s.n(); ++j) {
            const float v = j == at ? 16777216.0f : 1.0f;
            want = j == 0 ? v : want + v;
          }
          MP_CHECK(std::memcmp(&d[1], &want, sizeof want) == 0,
                   "%s: 2^24 from member %d and 1 from the others gave %.9g, expected %.9g (team order)", what, at,
                   static_cast<double>(d[1]), static_cast<double>(want));
        });
    chosen<double>(
        s, nvshmem_double_sum_reduce, "nvshmem_double_sum_reduce", 1,
        [](int member, int, int, size_t) { return member == 0 ? 9007199254740992.0 : 1.0; },
        [](const Slot&, const double* d, const char* what) {
          MP_CHECK(d[0] == 9007199254740992.0, "%s: 2^53 + 1 + 1 ... (in team order) gave %.17g, expected 2^53", what,
                   d[0]);
        });
    // min and max of signed zeros: -0 and +0 whatever the order (element 0: +0 first, element 1: -0
    // first); with one member the value itself.
    chosen<double>(
        s, nvshmem_double_min_reduce, "nvshmem_double_min_reduce", 2,
        [](int member, int, int, size_t e) { return ((member + static_cast<int>(e)) % 2) ? -0.0 : 0.0; },
        [](const Slot& s, const double* d, const char* what) {
          MP_CHECK(d[0] == 0 && std::signbit(d[0]) == (s.n() > 1), "%s: min of +0, -0, ... gave %s0", what,
                   std::signbit(d[0]) ? "-" : "+");
          MP_CHECK(d[1] == 0 && std::signbit(d[1]), "%s: min of -0, +0, ... gave %s0", what,
                   std::signbit(d[1]) ? "-" : "+");
        });
    chosen<float>(
        s, nvshmem_float_max_reduce, "nvshmem_float_max_reduce", 2,
        [](int member, int, int, size_t e) { return ((member + static_cast<int>(e)) % 2) ? 0.0f : -0.0f; },
        [](const Slot& s, const float* d, const char* what) {
          MP_CHECK(d[0] == 0 && std::signbit(d[0]) == (s.n() == 1), "%s: max of -0, +0, ... gave %s0", what,
                   std::signbit(d[0]) ? "-" : "+");
          MP_CHECK(d[1] == 0 && !std::signbit(d[1]), "%s: max of +0, -0, ... gave %s0", what,
                   std::signbit(d[1]) ? "-" : "+");
        });
    // NaN from one member (the last, element 0; the first, element 1) wins min and max.
    chosen<double>(
        s, nvshmem_double_max_reduce, "nvshmem_double_max_reduce", 2,
        [](int member, int, int n, size_t e) {
          return member == (e == 0 ? n - 1 : 0) ? std::numeric_limits<double>::quiet_NaN() : 1e300;
        },
        [](const Slot&, const double* d, const char* what) {
          MP_CHECK(std::isnan(d[0]) && std::isnan(d[1]), "%s: max with a NaN gave %.17g and %.17g, expected NaN", what,
                   d[0], d[1]);
        });
    chosen<float>(
        s, nvshmem_float_min_reduce, "nvshmem_float_min_reduce", 2,
        [](int member, int, int n, size_t e) {
          return member == (e == 0 ? n - 1 : 0) ? std::numeric_limits<float>::quiet_NaN() : -INFINITY;
        },
        [](const Slot&, const float* d, const char* what) {
          MP_CHECK(std::isnan(d[0]) && std::isnan(d[1]), "%s: min with a NaN gave %g and %g, expected NaN", what,
                   static_cast<double>(d[0]), static_cast<double>(d[1]));
        });
#if defined(GSHMEMI_HAVE_CUDA_FP16)
    // half and bfloat16 sums are rounded once, at the end: 2048 + (n - 1) ones in float, then to the
    // nearest half (ties to even); rounding each step would stay at 2048. bfloat16: 256 + ones.
    chosen<__half>(
        s, nvshmem_half_sum_reduce, "nvshmem_half_sum_reduce", 1,
        [](int member, int, int, size_t) { return __float2half_rn(member == 0 ? 2048.0f : 1.0f); },
        [](const Slot& s, const __half* d, const char* what) {
          const __half want = __float2half_rn(2048.0f + static_cast<float>(s.n() - 1));
          MP_CHECK(bits_of(d[0]) == bits_of(want), "%s: 2048 + %d ones gave %s, expected %s (rounded once)", what,
                   s.n() - 1, show(d[0]).c_str(), show(want).c_str());
        });
    chosen<__nv_bfloat16>(
        s, nvshmem_bfloat16_sum_reduce, "nvshmem_bfloat16_sum_reduce", 1,
        [](int member, int, int, size_t) { return __float2bfloat16_rn(member == 0 ? 256.0f : 1.0f); },
        [](const Slot& s, const __nv_bfloat16* d, const char* what) {
          const __nv_bfloat16 want = __float2bfloat16_rn(256.0f + static_cast<float>(s.n() - 1));
          MP_CHECK(bits_of(d[0]) == bits_of(want), "%s: 256 + %d ones gave %s, expected %s (rounded once)", what,
                   s.n() - 1, show(d[0]).c_str(), show(want).c_str());
        });
    // half min of signed zeros and a NaN.
    chosen<__half>(
        s, nvshmem_half_min_reduce, "nvshmem_half_min_reduce", 2,
        [](int member, int, int n, size_t e) {
          if (e == 1) return __float2half_rn(member == n - 1 ? NAN : 3.0f);
          return __float2half_rn(member % 2 ? -0.0f : 0.0f);
        },
        [](const Slot& s, const __half* d, const char* what) {
          const unsigned long long zero = bits_of(d[0]);
          MP_CHECK(zero == (s.n() > 1 ? 0x8000u : 0u), "%s: min of +0, -0, ... gave %s", what, show(d[0]).c_str());
          MP_CHECK(is_nan(d[1]), "%s: min with a NaN gave %s", what, show(d[1]).c_str());
        });
    chosen<__nv_bfloat16>(
        s, nvshmem_bfloat16_max_reduce, "nvshmem_bfloat16_max_reduce", 2,
        [](int member, int, int, size_t e) {
          if (e == 1) return __float2bfloat16_rn(member == 0 ? NAN : 3.0f);
          return __float2bfloat16_rn(member % 2 ? 0.0f : -0.0f);
        },
        [](const Slot& s, const __nv_bfloat16* d, const char* what) {
          const unsigned long long zero = bits_of(d[0]);
          MP_CHECK(zero == (s.n() > 1 ? 0u : 0x8000u), "%s: max of -0, +0, ... gave %s", what, show(d[0]).c_str());
          MP_CHECK(is_nan(d[1]), "%s: max with a NaN gave %s", what, show(d[1]).c_str());
        });
#endif
  }
}

// ---- types: every (type, op) on WORLD: reduce and reducescatter at 1, 37 and 1001 elements, 0 for
// every fourth, in place at 1001, and one on-stream call at 37 (reduce and reducescatter in turn).
void test_types() {
  const Slot& w = g_slots[0];
  for (size_t k = 0; k < kNumEntries; ++k) {
    const Entry& en = kEntries[k];
    for (size_t n : {1, 37, 1001}) run(en, w, n, kReduce);
    for (size_t n : {1, 37, 1001}) run(en, w, n, kScatter);
    if (k % 4 == 0) {
      run(en, w, 0, kReduce);
      run(en, w, 0, kScatter);
    }
    run(en, w, 1001, kInPlace);
    run(en, w, 37, k % 2 ? kScatter : kReduce, true);
  }
  if (g_me == 0) std::printf("  types: %zu reductions (type, op), each reduce and reducescatter\n", kNumEntries);
}

// ---- teams: on every team but WORLD, every (type, op): reduce at 37 elements (from the host or on
// stream, in turn), in place at 1, reducescatter at 37 (host or stream), and at 0 on the team of one PE.
void test_teams() {
  for (size_t si = 1; si < g_slots.size(); ++si) {
    const Slot& s = g_slots[si];
    for (size_t k = 0; k < kNumEntries; ++k) {
      const Entry& en = kEntries[k];
      run(en, s, 37, kReduce, (k + si) % 2 == 1);
      run(en, s, 1, kInPlace);
      run(en, s, 37, kScatter, (k + si) % 3 == 1);
      if (s.name == "last PE alone") run(en, s, 0, k % 2 ? kScatter : kReduce);
    }
  }
}

// ---- stream: every op of int, double, uint8 and int64 on stream, on WORLD and a split team, sizes 1,
// 37, 1001 (reduce, in place, reducescatter).
void test_stream() {
  const Slot* teams[] = {&g_slots[0], &g_slots[std::min<size_t>(1, g_slots.size() - 1)]};
  for (const char* type : {"int", "double", "uint8", "int64", "half"}) {
    for (const Entry& en : kEntries) {
      if (std::strcmp(en.type, type) != 0) continue;
      for (const Slot* s : teams) {
        for (size_t n : {1, 37, 1001}) {
          run(en, *s, n, kReduce, true);
          run(en, *s, n, kInPlace, true);
          run(en, *s, n, kScatter, true);
        }
      }
    }
  }
}

// ---- big: several MiB per call. 3 MiB of int (sum, host and on stream, and in place), double sum,
// and uint8 max of 3 MiB + 1 (no multiple of anything); reducescatter blocks of 3 MiB of int up to 4
// PEs (1 MiB + 5 ints beyond, to keep the heap small at 8 PEs); then small calls after them.
constexpr size_t kBig = (3u << 20) / 4;  // ints
size_t big_block() { return g_npes <= 4 ? kBig : (1u << 18) + 5; }

void test_big() {
  const Slot& w = g_slots[0];
  run(entry("int", kSum), w, kBig, kReduce);
  run(entry("int", kSum), w, kBig, kInPlace);
  run(entry("int", kSum), w, kBig, kReduce, true);
  run(entry("int", kSum), w, big_block(), kScatter);
  run(entry("int32", kXor), slot_named("2-D y (xrange 3)"), kBig, kReduce);
  run(entry("double", kSum), w, kBig / 2, kReduce);
  run(entry("uint8", kMax), w, 4 * kBig + 1, kReduce);
  if (g_slots.size() > 1) run(entry("int", kProd), g_slots[1], big_block(), kScatter, true);
  run(entry("int", kSum), w, 1, kReduce);
  run(entry("int", kSum), g_slots.back(), 3, kScatter);
}

// ---- loop: hundreds of calls back to back: team, (type, op), form and size drawn from a stream that
// is the same on every PE.
void test_loop() {
  constexpr int kCalls = 2000;
  uint64_t rng = 0x4ed0c3ull;
  for (int i = 0; i < kCalls; ++i) {
    const uint64_t r = mp::mix(rng);
    const Slot& s = g_slots[r % g_slots.size()];
    const Entry& en = kEntries[(r >> 8) % kNumEntries];
    size_t n = (r >> 20) % 300;
    if ((r >> 30) % 8 == 0) n = 0;
    const Mode mode = static_cast<Mode>((r >> 36) % 3);
    run(en, s, n, mode, (r >> 40) % 4 == 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  nvshmem_init();
  g_me = nvshmem_my_pe();
  g_npes = nvshmem_n_pes();

  g_src_cap = std::max(4 * kBig + 4096, big_block() * 4 * static_cast<size_t>(g_npes));
  g_src_cap = (g_src_cap + 4095) / 4096 * 4096;
  g_src = static_cast<char*>(nvshmem_align(4096, g_src_cap));
  MP_CHECK(g_src, "nvshmem_align of %zu bytes failed", g_src_cap);
  g_ring.init(std::max<size_t>(8u << 20, 4 * kBig + 8192), kFill, kGuard);
  make_teams();

  const mp::Part parts[] = {{"values", test_values}, {"types", test_types}, {"teams", test_teams},
                            {"stream", test_stream}, {"big", test_big},     {"loop", test_loop}};
  double secs = 0;
  if (!mp::run_parts("mp_reduce", what, parts, &secs)) {
    nvshmem_finalize();
    return 2;
  }
  const size_t nteams = g_slots.size();
  destroy_teams();
  nvshmem_barrier_all();
  g_ring.done();
  nvshmem_free(g_src);
  if (g_me == 0) {
    std::printf(
        "mp_reduce %s: passed on %d PEs (%zu teams, %zu (type, op) pairs, %llu reductions in all; PE 0 checked "
        "%ld calls, %zu bytes of results; %.1f s)\n",
        what.c_str(), g_npes, nteams, kNumEntries, static_cast<unsigned long long>(g_call), g_done, g_bytes, secs);
  }
  nvshmem_finalize();
  return 0;
}
