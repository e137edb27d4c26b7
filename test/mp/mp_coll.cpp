// Host collectives on teams: nvshmem_barrier and nvshmem_team_sync (a put before them is visible after
// them), broadcast (the root's source lands in every member's dest, the root's too), fcollect (block k
// of dest from member k) and alltoall (member i's source block j lands in member j's dest block i),
// in every RMA type and the byte (mem) forms, on NVSHMEM_TEAM_WORLD and on split teams: start > 0 with
// stride > 1, the x and y teams of a 2-D split, a split of a split, a unique-ID team numbered in
// reverse, one PE alone. Sizes 0, 1, odd, and several MiB; every root; hundreds of calls back to back
// on alternating teams. Each call's data comes from seeds of (PE, call number), so stale data from an
// earlier call is caught, and the bytes after each destination must stay untouched.
//
// The host reads and writes the symmetric buffers directly: run it on the CPU backend.
// Every PE walks through every call in the same order (a PE outside the call's team only counts it),
// so the call numbers and the destination areas agree between PEs.
//
// argv[1] picks a part: barrier, bcast, fcollect, alltoall, types, big, loop; none runs them all.
#include <nvshmemx.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>

#include "gen/type_lists.h"
#include "mp_team_util.h"
#include "mp_test.h"

namespace {

using mp::describe;
using mp::index_of;
using mp::Members;
using mp::strided;

int g_me = -1, g_npes = 0;

// ---- the collectives of one type, through one signature.
struct TypeOps {
  const char* name;  // "int", ..., or "mem" for the byte forms
  size_t size;
  int (*bcast)(nvshmem_team_t, void*, const void*, size_t, int);
  int (*fcollect)(nvshmem_team_t, void*, const void*, size_t);
  int (*alltoall)(nvshmem_team_t, void*, const void*, size_t);
};

#define MP_COLL_TYPE(NAME, T)                                                                         \
  TypeOps{#NAME, sizeof(T),                                                                           \
          [](nvshmem_team_t t, void* d, const void* s, size_t n, int r) {                             \
            return nvshmem_##NAME##_broadcast(t, static_cast<T*>(d), static_cast<const T*>(s), n, r); \
          },                                                                                          \
          [](nvshmem_team_t t, void* d, const void* s, size_t n) {                                    \
            return nvshmem_##NAME##_fcollect(t, static_cast<T*>(d), static_cast<const T*>(s), n);     \
          },                                                                                          \
          [](nvshmem_team_t t, void* d, const void* s, size_t n) {                                    \
            return nvshmem_##NAME##_alltoall(t, static_cast<T*>(d), static_cast<const T*>(s), n);     \
          }},
const TypeOps kTypes[] = {GSHMEMT_TYPES_RMA(MP_COLL_TYPE)};
#undef MP_COLL_TYPE
const TypeOps kMem = {"mem", 1, nvshmem_broadcastmem, nvshmem_fcollectmem, nvshmem_alltoallmem};

const TypeOps& type_named(const char* name) {
  for (const TypeOps& t : kTypes) {
    if (std::strcmp(t.name, name) == 0) return t;
  }
  return kMem;
}

std::string api(const TypeOps& t, const char* coll) {
  if (t.size == 1 && std::strcmp(t.name, "mem") == 0) return std::string("nvshmem_") + coll + "mem";
  return std::string("nvshmem_") + t.name + "_" + coll;
}

// ---- the teams: the same list on every PE; `team` is NVSHMEM_TEAM_INVALID where this PE is no member.
struct Slot {
  std::string name;
  nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
  Members m;      // this PE's team in this slot (for the 2-D slots, each PE has its own), or the team it is not in
  int idx = -1;   // this PE's number in it, or -1
  int max_n = 1;  // the largest team of this slot over all PEs
  int n() const { return static_cast<int>(m.size()); }
};
std::vector<Slot> g_slots;
std::vector<nvshmem_team_t> g_created;  // in the order made: children after their parents

void add_slot(const std::string& name, nvshmem_team_t team, const Members& m, int max_n) {
  Slot s;
  s.name = name;
  s.team = team;
  s.m = m;
  s.idx = index_of(m, g_me);
  s.max_n = max_n;
  MP_CHECK((s.idx >= 0) == (team != NVSHMEM_TEAM_INVALID), "team %s: PE %d has team %d but index %d", name.c_str(),
           g_me, team, s.idx);
  if (team != NVSHMEM_TEAM_WORLD) g_created.push_back(team);
  if (s.idx >= 0) {
    MP_CHECK(nvshmem_team_my_pe(team) == s.idx && nvshmem_team_n_pes(team) == s.n(),
             "team %s %s: team_my_pe %d (expected %d), team_n_pes %d (expected %d)", name.c_str(), describe(m).c_str(),
             nvshmem_team_my_pe(team), s.idx, nvshmem_team_n_pes(team), s.n());
    for (int i = 0; i < s.n(); ++i) {
      MP_CHECK(nvshmem_team_translate_pe(team, i, NVSHMEM_TEAM_WORLD) == m[i], "team %s: member %d is not PE %d",
               name.c_str(), i, m[i]);
    }
  }
  g_slots.push_back(s);
}

nvshmem_team_t split(nvshmem_team_t parent, bool member, int start, int stride, int size, const char* what) {
  nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
  if (!member) return t;
  const int rc = nvshmem_team_split_strided(parent, start, stride, size, nullptr, 0, &t);
  MP_CHECK(rc == 0, "%s: nvshmem_team_split_strided(team %d, %d, %d, %d) returned %d", what, parent, start, stride,
           size, rc);
  return t;
}

void make_teams() {
  const Members world = mp::world_members(g_npes);
  const int n = g_npes;
  add_slot("WORLD", NVSHMEM_TEAM_WORLD, world, n);
  if (n >= 2) {  // PEs 1, 3, 5, ...
    const int size = n / 2;
    nvshmem_team_t t = split(NVSHMEM_TEAM_WORLD, true, 1, 2, size, "start 1 stride 2");
    add_slot("start 1 stride 2", t, strided(world, 1, 2, size), size);
  }
  if (n >= 3) {  // PEs 2, 5, 8, ...
    const int size = (n - 3) / 3 + 1;
    nvshmem_team_t t = split(NVSHMEM_TEAM_WORLD, true, 2, 3, size, "start 2 stride 3");
    add_slot("start 2 stride 3", t, strided(world, 2, 3, size), size);
  }
  {  // 2-D, xrange 3: rows {0,1,2}, {3,4,5}, ... and columns {0,3,6,...}, {1,4,...}, {2,5,...}
    const int xr = std::min(3, n);
    nvshmem_team_t xt = NVSHMEM_TEAM_INVALID, yt = NVSHMEM_TEAM_INVALID;
    const int rc = nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 3, nullptr, 0, &xt, nullptr, 0, &yt);
    MP_CHECK(rc == 0, "nvshmem_team_split_2d(WORLD, 3) returned %d", rc);
    Members xm, ym;
    for (int i = (g_me / xr) * xr; i < std::min((g_me / xr + 1) * xr, n); ++i) xm.push_back(i);
    for (int i = g_me % xr; i < n; i += xr) ym.push_back(i);
    add_slot("2-D x (xrange 3)", xt, xm, xr);
    add_slot("2-D y (xrange 3)", yt, ym, (n + xr - 1) / xr);
  }
  if (n >= 2) {  // PEs 1..n-1, and its members 1, 3, 5, ... (PEs 2, 4, 6, ...)
    const Members a = strided(world, 1, 1, n - 1);
    nvshmem_team_t ta = split(NVSHMEM_TEAM_WORLD, true, 1, 1, n - 1, "PEs 1..n-1");
    add_slot("PEs 1..n-1", ta, a, n - 1);
    if (n >= 3) {
      const int size = (n - 1 - 1 - 1) / 2 + 1;
      nvshmem_team_t tn = split(ta, index_of(a, g_me) >= 0, 1, 2, size, "nested");
      add_slot("nested: members 1, 3, ... of PEs 1..n-1", tn, strided(a, 1, 2, size), size);
    }
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
    add_slot("reversed (unique ID)", t, Members(world.rbegin(), world.rend()), n);
    nvshmem_barrier_all();
    nvshmem_free(box);
  }
  {  // the last PE alone
    nvshmem_team_t t = split(NVSHMEM_TEAM_WORLD, true, n - 1, 1, 1, "last PE alone");
    add_slot("last PE alone", t, Members{n - 1}, 1);
  }
}

// Children before their parents; every PE in the same order (NVSHMEM_TEAM_INVALID is ignored).
void destroy_teams() {
  for (size_t i = g_created.size(); i-- > 0;) nvshmem_team_destroy(g_created[i]);
  g_slots.clear();
  g_created.clear();
}

// ---- buffers. Destinations come from a ring: each call takes the next area; when the ring is full,
// every PE refills it with kFill and all meet in a barrier, so that no call writes into an area that a
// PE still checks. Sources are written anew for each call (a collective that returned leaves the local
// source free to reuse).
constexpr unsigned char kFill = 0xA5;
constexpr size_t kGuard = 64;

mp::DestRing g_ring;
char* g_src = nullptr;
size_t g_src_cap = 0;
uint64_t g_call = 0;  // collectives so far, counted on every PE
long g_done = 0;      // collectives this PE took part in and checked
size_t g_bytes = 0;   // bytes checked

// What a failed check names: the call, the team, this PE's place in it, the size and the root.
std::string where(const Slot& s, const std::string& fn, size_t nelems, int root) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf, "%s on team \"%s\" (id %d, PEs %s, this PE is member %d of %d), %zu elements%s%s, call %llu",
      fn.c_str(), s.name.c_str(), s.team, describe(s.m).c_str(), s.idx, s.n(), nelems, root >= 0 ? ", root " : "",
      root >= 0 ? std::to_string(root).c_str() : "", static_cast<unsigned long long>(g_call));
  return buf;
}

unsigned expected_byte(uint64_t seed, size_t i) {
  std::vector<unsigned char> want(i + 1);
  mp::fill(want.data(), i + 1, seed);  // a prefix of the same stream
  return want[i];
}

// The bytes of a destination: `blocks` blocks of `block` bytes, block k from seed(k); then kGuard
// untouched bytes.
template <class SeedOf>
void check_dest(const char* dest, size_t blocks, size_t block, SeedOf seed, const Slot& s, const std::string& fn,
                size_t nelems, int root, size_t elem) {
  for (size_t k = 0; k < blocks; ++k) {
    const long bad = mp::first_mismatch(dest + k * block, block, seed(k));
    MP_CHECK(bad < 0, "%s: block %zu (from member %zu, PE %d), byte %ld (element %zu) is 0x%02x, expected 0x%02x",
             where(s, fn, nelems, root).c_str(), k, root >= 0 ? static_cast<size_t>(root) : k,
             root >= 0 ? s.m[root] : s.m[k], bad, static_cast<size_t>(bad) / elem,
             static_cast<unsigned char>(dest[k * block + bad]), expected_byte(seed(k), static_cast<size_t>(bad)));
  }
  const char* guard = dest + blocks * block;
  for (size_t i = 0; i < kGuard; ++i) {
    MP_CHECK(static_cast<unsigned char>(guard[i]) == kFill,
             "%s: wrote past the end of dest (%zu bytes): byte %zu after it is 0x%02x",
             where(s, fn, nelems, root).c_str(), blocks * block, i, static_cast<unsigned char>(guard[i]));
  }
  g_bytes += blocks * block;
}

void check_rc(int rc, const Slot& s, const std::string& fn, size_t nelems, int root) {
  MP_CHECK(rc == 0, "%s returned %d", where(s, fn, nelems, root).c_str(), rc);
}

// Every PE calls these for every call; `root_hint` modulo the team's size is the root.
void do_bcast(const Slot& s, const TypeOps& t, size_t nelems, int root_hint) {
  const uint64_t call = ++g_call;
  const size_t bytes = nelems * t.size;
  MP_CHECK(bytes <= g_src_cap, "broadcast of %zu bytes is larger than the source buffer", bytes);
  char* dest = g_ring.next(bytes);
  if (s.idx < 0) return;
  const int root = root_hint % s.n();
  mp::fill(g_src, bytes, mp::seed_of(g_me, call, 1));
  const std::string fn = api(t, "broadcast");
  check_rc(t.bcast(s.team, dest, g_src, nelems, root), s, fn, nelems, root);
  const int root_pe = s.m[root];
  check_dest(
      dest, 1, bytes, [&](size_t) { return mp::seed_of(root_pe, call, 1); }, s, fn, nelems, root, t.size);
  ++g_done;
}

void do_fcollect(const Slot& s, const TypeOps& t, size_t nelems) {
  const uint64_t call = ++g_call;
  const size_t bytes = nelems * t.size;
  char* dest = g_ring.next(bytes * g_npes);
  if (s.idx < 0) return;
  mp::fill(g_src, bytes, mp::seed_of(g_me, call, 2));
  const std::string fn = api(t, "fcollect");
  check_rc(t.fcollect(s.team, dest, g_src, nelems), s, fn, nelems, -1);
  check_dest(
      dest, s.n(), bytes, [&](size_t k) { return mp::seed_of(s.m[k], call, 2); }, s, fn, nelems, -1, t.size);
  ++g_done;
}

void do_alltoall(const Slot& s, const TypeOps& t, size_t nelems) {
  const uint64_t call = ++g_call;
  const size_t bytes = nelems * t.size;
  MP_CHECK(bytes * g_npes <= g_src_cap, "alltoall of %zu bytes per PE is larger than the source buffer", bytes);
  char* dest = g_ring.next(bytes * g_npes);
  if (s.idx < 0) return;
  for (int j = 0; j < s.n(); ++j) mp::fill(g_src + j * bytes, bytes, mp::seed_of(g_me, call, 3, j + 1));
  const std::string fn = api(t, "alltoall");
  check_rc(t.alltoall(s.team, dest, g_src, nelems), s, fn, nelems, -1);
  const int me_idx = s.idx;
  check_dest(
      dest, s.n(), bytes, [&](size_t i) { return mp::seed_of(s.m[i], call, 3, me_idx + 1); }, s, fn, nelems, -1,
      t.size);
  ++g_done;
}

const size_t kSizes[] = {0, 1, 2, 13, 1001, 4099};

// ---- barrier and team_sync: each member puts a word into a slot for it on every member, then the
// barrier (or quiet and team_sync); afterwards each member holds the words of all members of this
// round and none from a PE outside the team. Each round has its own slots.
void test_barrier() {
  const int kRoundsPerTeam = 40;
  const size_t rounds = kRoundsPerTeam * g_slots.size();
  uint64_t* rows = static_cast<uint64_t*>(nvshmem_calloc(rounds * g_npes, sizeof(uint64_t)));
  MP_CHECK(rows, "nvshmem_calloc failed");
  for (size_t r = 0; r < rounds; ++r) {
    const Slot& s = g_slots[r % g_slots.size()];
    if (s.idx < 0) continue;
    uint64_t* row = rows + r * g_npes;
    const uint64_t word = (static_cast<uint64_t>(r + 1) << 24) | static_cast<uint64_t>(g_me + 1);
    for (int pe : s.m) {
      if (r % 3 == 0) {
        nvshmem_uint64_p(row + g_me, word, pe);
      } else {
        nvshmem_uint64_put_nbi(row + g_me, &word, 1, pe);
      }
    }
    const char* fn;
    int rc;
    if (r % 4 == 3) {
      fn = "nvshmem_team_sync (after nvshmem_quiet)";
      nvshmem_quiet();
      rc = nvshmem_team_sync(s.team);
    } else {
      fn = "nvshmem_barrier";
      rc = nvshmem_barrier(s.team);
    }
    MP_CHECK(rc == 0, "%s on team \"%s\" returned %d", fn, s.name.c_str(), rc);
    for (int pe = 0; pe < g_npes; ++pe) {
      const uint64_t want =
          index_of(s.m, pe) >= 0 ? ((static_cast<uint64_t>(r + 1) << 24) | static_cast<uint64_t>(pe + 1)) : 0;
      MP_CHECK(row[pe] == want,
               "round %zu: after %s on team \"%s\" (PEs %s) the word from PE %d is %llx, expected %llx", r, fn,
               s.name.c_str(), describe(s.m).c_str(), pe, static_cast<unsigned long long>(row[pe]),
               static_cast<unsigned long long>(want));
    }
    ++g_done;
  }
  // Back to back without data: barriers and syncs on each team in turn, and WORLD's among them.
  for (int r = 0; r < 100; ++r) {
    for (const Slot& s : g_slots) {
      if (s.idx < 0) continue;
      const int rc = r % 2 ? nvshmem_team_sync(s.team) : nvshmem_barrier(s.team);
      MP_CHECK(rc == 0, "back-to-back %s %d on team \"%s\" returned %d", r % 2 ? "team_sync" : "barrier", r,
               s.name.c_str(), rc);
    }
    if (r % 10 == 0) nvshmem_barrier_all();
  }
  nvshmem_barrier_all();
  nvshmem_free(rows);
}

// ---- broadcast: the byte form and a few types, every team, every root, every size.
void test_bcast() {
  const TypeOps* types[] = {&kMem, &type_named("int"), &type_named("double"), &type_named("char"),
                            &type_named("longlong")};
  for (const TypeOps* t : types) {
    for (const Slot& s : g_slots) {
      for (size_t n : kSizes) {
        for (int root = 0; root < s.max_n; ++root) do_bcast(s, *t, n, root);
      }
    }
  }
}

void test_fcollect() {
  const TypeOps* types[] = {&kMem, &type_named("int"), &type_named("double"), &type_named("short"),
                            &type_named("uint64")};
  for (const TypeOps* t : types) {
    for (const Slot& s : g_slots) {
      for (size_t n : kSizes) do_fcollect(s, *t, n);
    }
  }
}

void test_alltoall() {
  const TypeOps* types[] = {&kMem, &type_named("int"), &type_named("double"), &type_named("uchar"),
                            &type_named("int64")};
  for (const TypeOps* t : types) {
    for (const Slot& s : g_slots) {
      for (size_t n : kSizes) do_alltoall(s, *t, n);
    }
  }
}

// ---- every RMA type: on every team, broadcast from every root (13 elements) and at sizes 0, 1 and
// 1001 from a root that moves; fcollect and alltoall at 0, 1, 13, 1001.
void test_types() {
  int k = 0;
  for (const TypeOps& t : kTypes) {
    for (const Slot& s : g_slots) {
      for (int root = 0; root < s.max_n; ++root) do_bcast(s, t, 13, root);
      for (size_t n : {0, 1, 1001}) do_bcast(s, t, n, k++);
      for (size_t n : {0, 1, 13, 1001}) do_fcollect(s, t, n);
      for (size_t n : {0, 1, 13, 1001}) do_alltoall(s, t, n);
    }
  }
}

// ---- several MiB per call: broadcasts of 3 MiB + 5 bytes, fcollect and alltoall blocks of
// kBigBlock (3 MiB + 5 up to 4 PEs, 1 MiB + 5 beyond, to keep the heap small at 8 PEs).
constexpr size_t kBigBcast = (3u << 20) + 5;
size_t big_block() { return g_npes <= 4 ? (3u << 20) + 5 : (1u << 20) + 5; }

void test_big() {
  const TypeOps& dbl = type_named("double");
  for (const Slot& s : g_slots) {
    if (s.name == "last PE alone" || s.name == "PEs 1..n-1") continue;  // covered by the others
    do_bcast(s, kMem, kBigBcast, 0);
    do_bcast(s, kMem, kBigBcast, s.max_n - 1);
    do_fcollect(s, kMem, big_block());
    do_alltoall(s, kMem, big_block());
  }
  do_bcast(g_slots[0], dbl, kBigBcast / 8, g_npes / 2);
  do_fcollect(g_slots[0], dbl, big_block() / 8);
  do_alltoall(g_slots[0], dbl, big_block() / 8);
  // A large call between small ones on the same team.
  do_bcast(g_slots[0], kMem, 1, 0);
  do_alltoall(g_slots.back(), kMem, big_block());
  do_fcollect(g_slots[0], kMem, 3);
}

// ---- hundreds of calls back to back: team, collective, type, size and root drawn from a stream that
// is the same on every PE.
void test_loop() {
  constexpr int kCalls = 2000;
  uint64_t rng = 0x10095eedull;
  const size_t ntypes = sizeof kTypes / sizeof kTypes[0];
  for (int i = 0; i < kCalls; ++i) {
    const uint64_t r = mp::mix(rng);
    const Slot& s = g_slots[r % g_slots.size()];
    const TypeOps& t = (r >> 8) % 4 == 0 ? kMem : kTypes[(r >> 12) % ntypes];
    size_t n = (r >> 20) % 1200;
    if ((r >> 30) % 8 == 0) n = 0;
    const int root = static_cast<int>((r >> 36) % 64);
    switch ((r >> 44) % 4) {
      case 0:
        do_bcast(s, t, n, root);
        break;
      case 1:
        do_fcollect(s, t, n);
        break;
      case 2:
        do_alltoall(s, t, n);
        break;
      default: {  // a barrier or sync in between
        if (s.idx >= 0) {
          const int rc = (r >> 50) % 2 ? nvshmem_barrier(s.team) : nvshmem_team_sync(s.team);
          MP_CHECK(rc == 0, "loop call %d: barrier/sync on team \"%s\" returned %d", i, s.name.c_str(), rc);
        }
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  nvshmem_init();
  g_me = nvshmem_my_pe();
  g_npes = nvshmem_n_pes();

  const size_t big = std::max(kBigBcast, big_block() * g_npes);
  g_src_cap = (big + 4095) / 4096 * 4096;
  g_src = static_cast<char*>(nvshmem_align(4096, g_src_cap));
  MP_CHECK(g_src, "nvshmem_align of %zu bytes failed", g_src_cap);
  g_ring.init(std::max<size_t>(g_src_cap + 4096, 4u << 20), kFill, kGuard);
  make_teams();

  const mp::Part parts[] = {{"barrier", test_barrier},   {"bcast", test_bcast}, {"fcollect", test_fcollect},
                            {"alltoall", test_alltoall}, {"types", test_types}, {"big", test_big},
                            {"loop", test_loop}};
  double secs = 0;
  if (!mp::run_parts("mp_coll", what, parts, &secs)) {
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
        "mp_coll %s: passed on %d PEs (%zu teams, %llu data collectives in all; PE 0 checked %ld calls, "
        "%zu bytes; %.1f s)\n",
        what.c_str(), g_npes, nteams, static_cast<unsigned long long>(g_call), g_done, g_bytes, secs);
  }
  nvshmem_finalize();
  return 0;
}
