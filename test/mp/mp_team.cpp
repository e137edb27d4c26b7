// Teams from the host: nvshmem_team_split_strided (start, stride and size in the parent's numbering),
// splits of splits, nvshmem_team_split_2d, the configuration a team keeps, nvshmemx_team_init with a
// unique ID on PEs in any order, and many teams: 1024 alive at once, 10,000 made and destroyed in turn.
// Every team is checked against a model, the list of its world PEs in its own numbering: team_my_pe,
// team_n_pes and translate_pe in every direction, -1 where this PE is no member, and that a barrier
// on it completes the puts of its members.
//
// argv[1] picks a part: basic, nested, split2d, uid, many, churn; none runs them all.
#include <nvshmemx.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>

#include "mp_team_util.h"
#include "mp_test.h"

namespace {

using mp::describe;
using mp::index_of;
using mp::Members;
using mp::strided;

int g_me = -1, g_npes = 0;

// The PEs that split_strided(parent, start, stride, size) selects, in their new numbering.
nvshmem_team_config_t config_with_contexts(int n) {
  nvshmem_team_config_t c = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  c.num_contexts = n;
  return c;
}

// translate_pe(a, i, b) for every i of a (and just outside it), against the models.
void check_translate(const char* what, nvshmem_team_t a, const Members& ma, nvshmem_team_t b, const Members& mb) {
  const bool in_a = index_of(ma, g_me) >= 0, in_b = index_of(mb, g_me) >= 0;
  const int na = static_cast<int>(ma.size());
  for (int i = -1; i <= na; ++i) {
    int want = -1;
    if (in_a && in_b && i >= 0 && i < na) want = index_of(mb, ma[i]);
    const int got = nvshmem_team_translate_pe(a, i, b);
    MP_CHECK(got == want, "%s: translate_pe(team %d %s, %d, team %d %s) = %d, expected %d", what, a,
             describe(ma).c_str(), i, b, describe(mb).c_str(), got, want);
  }
}

// The queries on `team`, the handle this PE got for a team whose members are `m` (this PE among them
// or not).
void check_team(const char* what, nvshmem_team_t team, const Members& m) {
  const int idx = index_of(m, g_me);
  const int n = static_cast<int>(m.size());
  if (idx < 0) {
    MP_CHECK(team == NVSHMEM_TEAM_INVALID, "%s: PE %d is not in %s but got team %d, not NVSHMEM_TEAM_INVALID", what,
             g_me, describe(m).c_str(), team);
  } else {
    MP_CHECK(team != NVSHMEM_TEAM_INVALID, "%s: PE %d is member %d of %s but got NVSHMEM_TEAM_INVALID", what, g_me, idx,
             describe(m).c_str());
  }
  const int my = nvshmem_team_my_pe(team), np = nvshmem_team_n_pes(team);
  MP_CHECK(my == idx, "%s: team_my_pe(team %d %s) = %d, expected %d", what, team, describe(m).c_str(), my, idx);
  MP_CHECK(np == (idx < 0 ? -1 : n), "%s: team_n_pes(team %d %s) = %d, expected %d", what, team, describe(m).c_str(),
           np, idx < 0 ? -1 : n);
  const Members world = mp::world_members(g_npes);
  check_translate(what, team, m, NVSHMEM_TEAM_WORLD, world);
  check_translate(what, NVSHMEM_TEAM_WORLD, world, team, m);
  check_translate(what, team, m, team, m);
  // Nothing translates through NVSHMEM_TEAM_INVALID.
  MP_CHECK(nvshmem_team_translate_pe(team, 0, NVSHMEM_TEAM_INVALID) == -1, "%s: translate_pe to NVSHMEM_TEAM_INVALID",
           what);
  MP_CHECK(nvshmem_team_translate_pe(NVSHMEM_TEAM_INVALID, 0, team) == -1, "%s: translate_pe from NVSHMEM_TEAM_INVALID",
           what);
}

// Each member puts a word into every member's slot for it, then a barrier on the team (or a quiet
// and a team sync): afterwards every member holds its members' words and nothing from others. Every
// PE calls this in the same order (a non-member only counts the round), so that each round has slots
// of its own and no round can disturb a PE still checking an earlier one.
class Exchange {
 public:
  void init() {
    slots_ = static_cast<uint64_t*>(nvshmem_calloc(static_cast<size_t>(kRounds) * g_npes, sizeof(uint64_t)));
    MP_CHECK(slots_, "nvshmem_calloc of the exchange slots failed");
  }
  void done() { nvshmem_free(slots_); }

  void run(const char* what, nvshmem_team_t team, const Members& m) {
    if (round_ == kRounds) {
      std::memset(slots_, 0, static_cast<size_t>(kRounds) * g_npes * sizeof(uint64_t));
      nvshmem_barrier_all();
      round_ = 0;
    }
    const int r = round_++;
    ++total_;
    if (index_of(m, g_me) < 0) return;
    uint64_t* row = slots_ + static_cast<size_t>(r) * g_npes;
    for (int pe : m) nvshmem_uint64_p(row + g_me, word(g_me), pe);
    int rc;
    const bool use_sync = total_ % 2 == 0;
    if (use_sync) {
      nvshmem_quiet();
      rc = nvshmem_team_sync(team);
    } else {
      rc = nvshmem_barrier(team);
    }
    MP_CHECK(rc == 0, "%s: nvshmem_%s(team %d) returned %d", what, use_sync ? "team_sync" : "barrier", team, rc);
    for (int pe = 0; pe < g_npes; ++pe) {
      const uint64_t want = index_of(m, pe) >= 0 ? word(pe) : 0;
      MP_CHECK(row[pe] == want, "%s: after nvshmem_%s(team %d %s) the word from PE %d is %llx, expected %llx", what,
               use_sync ? "team_sync" : "barrier", team, describe(m).c_str(), pe,
               static_cast<unsigned long long>(row[pe]), static_cast<unsigned long long>(want));
    }
  }

 private:
  uint64_t word(int pe) const { return (static_cast<uint64_t>(total_) << 20) | (static_cast<uint64_t>(pe) + 1); }
  static constexpr int kRounds = 256;
  uint64_t* slots_ = nullptr;
  int round_ = 0;
  uint64_t total_ = 0;
};

Exchange g_exchange;

// Broadcasts of a few words on `team` from every root, checked on every member. Every PE calls it (a
// non-member with NVSHMEM_TEAM_INVALID), so that the call count in the data's seeds agrees.
uint64_t* g_bcast = nullptr;  // symmetric: [0, 64) destination, [64, 128) source
uint64_t g_bcast_calls = 0;

void check_broadcast(const char* what, nvshmem_team_t team, const Members& m, size_t nelems = 5) {
  const int idx = index_of(m, g_me);
  const uint64_t call = ++g_bcast_calls;
  for (size_t root = 0; root < m.size(); ++root) {
    if (idx >= 0) {
      for (size_t i = 0; i < 64; ++i) g_bcast[i] = 0xdeadbeefull;
      mp::fill(g_bcast + 64, nelems * sizeof(uint64_t), mp::seed_of(g_me, call, root + 1, 77));
      int rc = nvshmem_barrier(team);  // every destination is ready before the root sends
      MP_CHECK(rc == 0, "%s: nvshmem_barrier(team %d) returned %d", what, team, rc);
      rc = nvshmem_uint64_broadcast(team, g_bcast, g_bcast + 64, nelems, static_cast<int>(root));
      MP_CHECK(rc == 0, "%s: nvshmem_uint64_broadcast(team %d, %zu elements, root %zu) returned %d", what, team, nelems,
               root, rc);
      const long bad = mp::first_mismatch(g_bcast, nelems * sizeof(uint64_t), mp::seed_of(m[root], call, root + 1, 77));
      MP_CHECK(bad < 0, "%s: broadcast on team %d %s from root %zu (PE %d): byte %ld differs", what, team,
               describe(m).c_str(), root, m[root], bad);
      MP_CHECK(g_bcast[nelems] == 0xdeadbeefull, "%s: broadcast on team %d wrote past its %zu elements", what, team,
               nelems);
      rc = nvshmem_barrier(team);  // every member has checked before the next one
      MP_CHECK(rc == 0, "%s: nvshmem_barrier(team %d) returned %d", what, team, rc);
    }
  }
}

// A team made by split_strided on `parent` (members pm, this PE among them), checked, used, kept.
nvshmem_team_t split(const char* what, nvshmem_team_t parent, const Members& pm, int start, int stride, int size,
                     Members* out, const nvshmem_team_config_t* cfg = nullptr, long mask = 0) {
  nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
  const int rc = nvshmem_team_split_strided(parent, start, stride, size, cfg, mask, &t);
  MP_CHECK(rc == 0, "%s: nvshmem_team_split_strided(team %d, %d, %d, %d) returned %d", what, parent, start, stride,
           size, rc);
  *out = strided(pm, start, stride, size);
  MP_CHECK(t != NVSHMEM_TEAM_WORLD && t != NVSHMEM_TEAM_SHARED, "%s: the new team got the id %d of a predefined team",
           what, t);
  check_team(what, t, *out);
  return t;
}

// The (start, stride, size) of a valid split of a team of n PEs, varying with i.
void params(int i, int n, int* start, int* stride, int* size) {
  *stride = 1 + i % (n + 1);  // n + 1 > n - 1: a stride past the team, with size 1
  *start = (i / 3) % n;
  const int max_size = (n - 1 - *start) / *stride + 1;
  *size = 1 + (i / 5) % max_size;
}

// --- basic: split_strided of WORLD with every start, stride and size class; get_config; destroy.
void test_basic() {
  const Members world = mp::world_members(g_npes);
  check_team("WORLD", NVSHMEM_TEAM_WORLD, world);
  MP_CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == g_me && nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) == g_npes,
           "team_my_pe/team_n_pes of NVSHMEM_TEAM_WORLD");
  MP_CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID) == -1, "team_my_pe(NVSHMEM_TEAM_INVALID) = %d",
           nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID));
  MP_CHECK(nvshmem_team_n_pes(NVSHMEM_TEAM_INVALID) == -1, "team_n_pes(NVSHMEM_TEAM_INVALID) = %d",
           nvshmem_team_n_pes(NVSHMEM_TEAM_INVALID));
  MP_CHECK(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, g_npes, NVSHMEM_TEAM_WORLD) == -1 &&
               nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, -1, NVSHMEM_TEAM_WORLD) == -1,
           "translate_pe of a PE outside WORLD");
  g_exchange.run("WORLD", NVSHMEM_TEAM_WORLD, world);

  // Every (start, stride, size): sizes 1, 2 and the largest that fits.
  int made = 0;
  for (int stride = 1; stride <= g_npes + 1; ++stride) {
    for (int start = 0; start < g_npes && start < 4; ++start) {
      const int max_size = (g_npes - 1 - start) / stride + 1;
      int sizes[3] = {1, 2, max_size};
      for (int k = 0; k < 3; ++k) {
        const int size = sizes[k];
        if (size > max_size || (k > 0 && size == sizes[k - 1]) || (k == 2 && size == 1)) continue;
        char what[96];
        std::snprintf(what, sizeof what, "split_strided(WORLD, %d, %d, %d)", start, stride, size);
        Members m;
        nvshmem_team_t t = split(what, NVSHMEM_TEAM_WORLD, world, start, stride, size, &m);
        g_exchange.run(what, t, m);
        nvshmem_team_destroy(t);  // NVSHMEM_TEAM_INVALID on non-members: ignored
        ++made;
      }
    }
  }

  // Two teams alive together, translated into each other: the odd PEs and the PEs from 1 on.
  if (g_npes >= 2) {
    Members odd, tail;
    nvshmem_team_t t_odd = split("odd PEs", NVSHMEM_TEAM_WORLD, world, 1, 2, g_npes / 2, &odd);
    nvshmem_team_t t_tail = split("PEs 1..n-1", NVSHMEM_TEAM_WORLD, world, 1, 1, g_npes - 1, &tail);
    check_translate("odd -> tail", t_odd, odd, t_tail, tail);
    check_translate("tail -> odd", t_tail, tail, t_odd, odd);
    g_exchange.run("odd PEs", t_odd, odd);
    g_exchange.run("PEs 1..n-1", t_tail, tail);
    check_broadcast("odd PEs", t_odd, odd);
    check_broadcast("PEs 1..n-1", t_tail, tail);
    nvshmem_team_destroy(t_odd);
    nvshmem_team_destroy(t_tail);
  }

  // The configuration is kept: num_contexts as given, for a member of the team.
  for (int nctx : {0, 1, 3, 7}) {
    const nvshmem_team_config_t cfg = config_with_contexts(nctx);
    Members m;
    nvshmem_team_t t = split("split with num_contexts", NVSHMEM_TEAM_WORLD, world, 0, 1, g_npes, &m, &cfg,
                             NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS);
    nvshmem_team_config_t got = config_with_contexts(-99);
    const int rc = nvshmem_team_get_config(t, &got);
    MP_CHECK(rc == 0, "nvshmem_team_get_config(team %d) returned %d", t, rc);
    MP_CHECK(got.num_contexts == nctx, "nvshmem_team_get_config gives num_contexts %d, the team was made with %d",
             got.num_contexts, nctx);
    nvshmem_team_destroy(t);
  }
  // A config pointer with mask 0 is not read; a NULL config with mask 0 is allowed.
  {
    nvshmem_team_config_t junk;
    std::memset(&junk, 0x7f, sizeof junk);
    Members m;
    nvshmem_team_t t = split("split with mask 0", NVSHMEM_TEAM_WORLD, world, 0, 1, g_npes, &m, &junk, 0);
    g_exchange.run("split with mask 0", t, m);
    nvshmem_team_destroy(t);
  }
  // An id freed by destroy can be reused: the next team works as a new one.
  {
    Members m;
    nvshmem_team_t t = split("after destroys", NVSHMEM_TEAM_WORLD, world, g_npes - 1, 1, 1, &m);
    g_exchange.run("after destroys", t, m);
    check_broadcast("after destroys", t, m);
    nvshmem_team_destroy(t);
  }
  if (g_me == 0) std::printf("basic: %d splits of WORLD checked\n", made);
}

// --- nested: split of a split of a split, each numbered in its parent's numbering.
void test_nested() {
  const Members world = mp::world_members(g_npes);
  // Level 1: PEs 1..n-1 (or all, with one PE).
  const int s1 = g_npes >= 2 ? 1 : 0;
  Members m1;
  nvshmem_team_t t1 = split("nested level 1", NVSHMEM_TEAM_WORLD, world, s1, 1, g_npes - s1, &m1);
  // Level 2: members 1, 3, 5, ... of level 1 (its member 0 alone when it has one).
  Members m2;
  nvshmem_team_t t2 = NVSHMEM_TEAM_INVALID;
  const int n1 = static_cast<int>(m1.size());
  const int s2 = n1 >= 2 ? 1 : 0, st2 = 2, z2 = (n1 - 1 - s2) / st2 + 1;
  if (index_of(m1, g_me) >= 0) {
    t2 = split("nested level 2", t1, m1, s2, st2, z2, &m2);
  } else {
    m2 = strided(m1, s2, st2, z2);
    // A split of NVSHMEM_TEAM_INVALID makes no team.
    nvshmem_team_t none = static_cast<nvshmem_team_t>(-12345);
    (void)nvshmem_team_split_strided(t1, s2, st2, z2, nullptr, 0, &none);
    MP_CHECK(none == NVSHMEM_TEAM_INVALID, "a split of NVSHMEM_TEAM_INVALID gave team %d", none);
    check_team("nested level 2", t2, m2);
  }
  // Level 3: the last member of level 2, then all of level 2 from its member 1 on with stride 1.
  Members m3a, m3b;
  nvshmem_team_t t3a = NVSHMEM_TEAM_INVALID, t3b = NVSHMEM_TEAM_INVALID;
  const int n2 = static_cast<int>(m2.size());
  const int s3 = n2 >= 2 ? 1 : 0;
  if (index_of(m2, g_me) >= 0) {
    t3a = split("nested level 3a", t2, m2, n2 - 1, 1, 1, &m3a);
    t3b = split("nested level 3b", t2, m2, s3, 1, n2 - s3, &m3b);
  } else {
    m3a = strided(m2, n2 - 1, 1, 1);
    m3b = strided(m2, s3, 1, n2 - s3);
    check_team("nested level 3a", t3a, m3a);
    check_team("nested level 3b", t3b, m3b);
  }
  // Every pair translates into every other.
  const nvshmem_team_t teams[] = {NVSHMEM_TEAM_WORLD, t1, t2, t3a, t3b};
  const Members* models[] = {&world, &m1, &m2, &m3a, &m3b};
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) check_translate("nested", teams[a], *models[a], teams[b], *models[b]);
  }
  for (int a = 0; a < 5; ++a) g_exchange.run("nested", teams[a], *models[a]);
  check_broadcast("nested level 2", t2, m2);
  check_broadcast("nested level 3b", t3b, m3b);
  // The configuration of a nested team.
  if (index_of(m1, g_me) >= 0) {
    const nvshmem_team_config_t cfg = config_with_contexts(5);
    Members m;
    nvshmem_team_t t = split("nested with config", t1, m1, 0, 1, n1, &m, &cfg, NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS);
    nvshmem_team_config_t got = config_with_contexts(-1);
    MP_CHECK(nvshmem_team_get_config(t, &got) == 0 && got.num_contexts == 5,
             "nested with config: num_contexts %d, expected 5", got.num_contexts);
    nvshmem_team_destroy(t);
  }
  // Children first, then the parents (each only by its members).
  if (t3b != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(t3b);
  if (t3a != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(t3a);
  if (t2 != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(t2);
  if (t1 != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(t1);
  nvshmem_barrier_all();
  // Deep nesting: each level is the upper half of the one before, down to one PE; destroyed from the
  // bottom. Every PE walks every level (as a non-member once it falls out).
  std::vector<nvshmem_team_t> chain;
  nvshmem_team_t parent = NVSHMEM_TEAM_WORLD;
  Members pm = world;
  for (int level = 1; pm.size() > 1 || level == 1; ++level) {
    const int n = static_cast<int>(pm.size());
    const int start = n / 2, size = n - n / 2;
    char what[64];
    std::snprintf(what, sizeof what, "deep nesting, level %d", level);
    Members m = strided(pm, start, 1, size);
    nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
    if (index_of(pm, g_me) >= 0) t = split(what, parent, pm, start, 1, size, &m);
    check_team(what, t, m);
    g_exchange.run(what, t, m);
    chain.push_back(t);
    parent = t;
    pm = m;
  }
  for (size_t i = chain.size(); i-- > 0;) nvshmem_team_destroy(chain[i]);  // INVALID is ignored
  nvshmem_barrier_all();
}

// --- split_2d: x teams are runs of xrange parent PEs (the last may be shorter), y teams the PEs of the
// same x index; xrange beyond the parent's size makes one x team.
void check_2d(const char* what, nvshmem_team_t parent, const Members& pm, int xrange) {
  const int n = static_cast<int>(pm.size());
  const int xr = std::min(xrange, n);
  const int p = index_of(pm, g_me);
  if (p < 0) {  // not in the parent: count the exchanges its members make
    g_exchange.run(what, NVSHMEM_TEAM_INVALID, Members{});
    g_exchange.run(what, NVSHMEM_TEAM_INVALID, Members{});
    return;
  }
  Members xm, ym;
  for (int i = (p / xr) * xr; i < std::min((p / xr + 1) * xr, n); ++i) xm.push_back(pm[i]);
  for (int i = p % xr; i < n; i += xr) ym.push_back(pm[i]);
  const nvshmem_team_config_t xcfg = config_with_contexts(2), ycfg = config_with_contexts(3);
  nvshmem_team_t xt = static_cast<nvshmem_team_t>(-12345), yt = static_cast<nvshmem_team_t>(-12345);
  const int rc = nvshmem_team_split_2d(parent, xrange, &xcfg, NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &xt, &ycfg,
                                       NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &yt);
  char wx[128], wy[128];
  std::snprintf(wx, sizeof wx, "%s, xrange %d: x team", what, xrange);
  std::snprintf(wy, sizeof wy, "%s, xrange %d: y team", what, xrange);
  MP_CHECK(rc == 0, "%s: nvshmem_team_split_2d(team %d, %d) returned %d", wx, parent, xrange, rc);
  check_team(wx, xt, xm);
  check_team(wy, yt, ym);
  check_translate(wx, xt, xm, yt, ym);
  check_translate(wy, yt, ym, xt, xm);
  nvshmem_team_config_t got = config_with_contexts(-1);
  MP_CHECK(nvshmem_team_get_config(xt, &got) == 0 && got.num_contexts == 2, "%s: num_contexts %d, expected 2", wx,
           got.num_contexts);
  got = config_with_contexts(-1);
  MP_CHECK(nvshmem_team_get_config(yt, &got) == 0 && got.num_contexts == 3, "%s: num_contexts %d, expected 3", wy,
           got.num_contexts);
  // All x teams at once, then all y teams at once.
  g_exchange.run(wx, xt, xm);
  g_exchange.run(wy, yt, ym);
  int rc2 = nvshmem_barrier(xt);
  MP_CHECK(rc2 == 0, "%s: nvshmem_barrier returned %d", wx, rc2);
  rc2 = nvshmem_team_sync(yt);
  MP_CHECK(rc2 == 0, "%s: nvshmem_team_sync returned %d", wy, rc2);
  nvshmem_team_destroy(xt);
  nvshmem_team_destroy(yt);
}

void test_split2d() {
  const Members world = mp::world_members(g_npes);
  const int xranges[] = {1, 2, 3, g_npes, g_npes + 1, 2 * g_npes + 5};
  for (int xr : xranges) check_2d("split_2d(WORLD)", NVSHMEM_TEAM_WORLD, world, xr);
  // On a split team: PEs 1..n-1 (all, with one PE), and on its odd members.
  const int s = g_npes >= 2 ? 1 : 0;
  Members m1;
  nvshmem_team_t t1 = split("split_2d parent", NVSHMEM_TEAM_WORLD, world, s, 1, g_npes - s, &m1);
  for (int xr : {1, 2, 3, 100}) check_2d("split_2d(PEs 1..n-1)", t1, m1, xr);
  // 2-D of a 2-D team: the x teams of xrange 2, each split again with xrange 1.
  nvshmem_team_t xt = NVSHMEM_TEAM_INVALID, yt = NVSHMEM_TEAM_INVALID;
  Members xm;
  const int p = index_of(m1, g_me), n1 = static_cast<int>(m1.size());
  if (p >= 0) {
    for (int i = (p / 2) * 2; i < std::min((p / 2 + 1) * 2, n1); ++i) xm.push_back(m1[i]);
    const int rc = nvshmem_team_split_2d(t1, 2, nullptr, 0, &xt, nullptr, 0, &yt);
    MP_CHECK(rc == 0, "split_2d(PEs 1..n-1, 2) returned %d", rc);
    check_team("x team of PEs 1..n-1", xt, xm);
  }
  check_2d("split_2d(x team)", xt, xm, 1);
  nvshmem_team_destroy(yt);
  nvshmem_team_destroy(xt);
  nvshmem_team_destroy(t1);
  nvshmem_barrier_all();
}

// --- uid: teams of any order through nvshmemx_team_init.
uint64_t* g_uid_box = nullptr;  // symmetric: the unique IDs handed out

// PE `giver` makes `count` IDs and writes them into every PE's box (once every PE has read the last ones).
void hand_out_ids(int giver, int count) {
  nvshmem_barrier_all();
  if (g_me == giver) {
    for (int k = 0; k < count; ++k) {
      nvshmemx_team_uniqueid_t id = NVSHMEMX_TEAM_UNIQUEID_INITIALIZER;
      const int rc = nvshmemx_team_get_uniqueid(&id);
      MP_CHECK(rc == 0, "nvshmemx_team_get_uniqueid returned %d", rc);
      for (int pe = 0; pe < g_npes; ++pe) nvshmem_uint64_p(g_uid_box + k, static_cast<uint64_t>(id), pe);
    }
  }
  nvshmem_barrier_all();
}

nvshmem_team_t init_from_id(const char* what, int slot, const Members& order) {
  const int idx = index_of(order, g_me);
  if (idx < 0) return NVSHMEM_TEAM_INVALID;
  nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  cfg.uniqueid = static_cast<nvshmemx_team_uniqueid_t>(nvshmem_uint64_g(g_uid_box + slot, g_me));
  nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
  const int rc = nvshmemx_team_init(&t, &cfg, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, static_cast<int>(order.size()), idx);
  MP_CHECK(rc == 0, "%s: nvshmemx_team_init(%zu PEs, index %d) returned %d", what, order.size(), idx, rc);
  return t;
}

void use_uid_team(const char* what, nvshmem_team_t t, const Members& order) {
  check_team(what, t, order);
  g_exchange.run(what, t, order);
  g_exchange.run(what, t, order);
  if (t != NVSHMEM_TEAM_INVALID) {
    const int rc = nvshmem_team_sync(t);
    MP_CHECK(rc == 0, "%s: nvshmem_team_sync returned %d", what, rc);
  }
  check_broadcast(what, t, order, 7);
}

Members shuffled(Members m, uint64_t seed) {
  for (size_t i = m.size(); i > 1; --i) std::swap(m[i - 1], m[mp::mix(seed) % i]);
  return m;
}

void test_uid() {
  const Members world = mp::world_members(g_npes);
  // Reversed: team index npes-1-pe; the ID comes from the last PE.
  {
    Members order(world.rbegin(), world.rend());
    hand_out_ids(g_npes - 1, 1);
    nvshmem_team_t t = init_from_id("uid reversed", 0, order);
    use_uid_team("uid reversed", t, order);
    // A split of a uid team is numbered in the uid team's numbering.
    if (t != NVSHMEM_TEAM_INVALID && g_npes >= 2) {
      Members m;
      nvshmem_team_t s = split("split of uid reversed", t, order, 1, 2, g_npes / 2, &m);
      g_exchange.run("split of uid reversed", s, m);
      nvshmem_team_destroy(s);
    } else {
      g_exchange.run("split of uid reversed", NVSHMEM_TEAM_INVALID, Members{});
    }
    nvshmem_team_destroy(t);
  }
  // Shuffled, without one PE (with 3 or more), the ID from the PE left out.
  {
    Members order = shuffled(world, 0x7ea7);
    if (g_npes >= 3) order.erase(std::find(order.begin(), order.end(), 1));
    hand_out_ids(g_npes >= 3 ? 1 : 0, 1);
    nvshmem_team_t t = init_from_id("uid shuffled subset", 0, order);
    use_uid_team("uid shuffled subset", t, order);
    check_translate("uid shuffled subset -> WORLD", t, order, NVSHMEM_TEAM_WORLD, world);
    nvshmem_team_destroy(t);
  }
  // Two teams made at the same time from two IDs: the even PEs and the odd PEs, each reversed and
  // rotated. Every PE is in one of them.
  {
    Members even, odd;
    for (int pe = g_npes - 1; pe >= 0; --pe) (pe % 2 ? odd : even).push_back(pe);
    if (even.size() > 1) std::rotate(even.begin(), even.begin() + 1, even.end());
    hand_out_ids(0, 2);
    const bool is_even = g_me % 2 == 0;
    const Members& mine = is_even ? even : odd;
    nvshmem_team_t t = init_from_id(is_even ? "uid even PEs" : "uid odd PEs", is_even ? 0 : 1, mine);
    check_team(is_even ? "uid even PEs" : "uid odd PEs", t, mine);
    g_exchange.run("uid even/odd", t, mine);
    const int rc = nvshmem_barrier(t);
    MP_CHECK(rc == 0, "uid even/odd: nvshmem_barrier returned %d", rc);
    nvshmem_team_destroy(t);
    nvshmem_barrier_all();
  }
  // One PE alone, the last; the ID made by PE 0.
  {
    const Members order{g_npes - 1};
    hand_out_ids(0, 1);
    nvshmem_team_t t = init_from_id("uid single PE", 0, order);
    use_uid_team("uid single PE", t, order);
    nvshmem_team_destroy(t);
  }
  // Several IDs differ from each other.
  if (g_me == 0) {
    nvshmemx_team_uniqueid_t a = 0, b = 0;
    MP_CHECK(nvshmemx_team_get_uniqueid(&a) == 0 && nvshmemx_team_get_uniqueid(&b) == 0, "get_uniqueid");
    MP_CHECK(a != b, "two calls of nvshmemx_team_get_uniqueid gave the same ID %llx",
             static_cast<unsigned long long>(a));
  }
  nvshmem_barrier_all();
}

double g_split_us = 0;  // time spent in split_strided
long g_splits = 0;

nvshmem_team_t timed_split(int start, int stride, int size, const nvshmem_team_config_t* cfg, long mask) {
  nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, start, stride, size, cfg, mask, &t);
  g_split_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  ++g_splits;
  MP_CHECK(rc == 0, "split_strided(WORLD, %d, %d, %d) #%ld returned %d", start, stride, size, g_splits, rc);
  return t;
}

// --- many: 1024 teams alive at once, used, destroyed in a shuffled order.
void test_many() {
  constexpr int kTeams = 1024;
  const Members world = mp::world_members(g_npes);
  std::vector<nvshmem_team_t> teams(kTeams);
  std::vector<Members> models(kTeams);
  for (int i = 0; i < kTeams; ++i) {
    int start, stride, size;
    params(i, g_npes, &start, &stride, &size);
    const nvshmem_team_config_t cfg = config_with_contexts(i % 5);
    teams[i] = timed_split(start, stride, size, &cfg, i % 2 ? NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS : 0);
    models[i] = strided(world, start, stride, size);
  }
  for (int i = 0; i < kTeams; ++i) {
    char what[64];
    std::snprintf(what, sizeof what, "team %d of %d alive", i, kTeams);
    const int idx = index_of(models[i], g_me);
    MP_CHECK(nvshmem_team_my_pe(teams[i]) == idx, "%s: team_my_pe = %d, expected %d", what,
             nvshmem_team_my_pe(teams[i]), idx);
    if (i % 97 == 0 || i == kTeams - 1) check_team(what, teams[i], models[i]);
    // The ids of live teams differ.
    if (idx >= 0) {
      for (int j = 0; j < i; ++j) {
        MP_CHECK(teams[j] != teams[i] || index_of(models[j], g_me) < 0, "%s: the same id %d as live team %d", what,
                 teams[i], j);
      }
    }
    if (idx >= 0 && i % 2) {
      nvshmem_team_config_t got = config_with_contexts(-1);
      MP_CHECK(nvshmem_team_get_config(teams[i], &got) == 0 && got.num_contexts == i % 5,
               "%s: num_contexts %d, expected %d", what, got.num_contexts, i % 5);
    }
  }
  for (int i : {0, 1, kTeams / 2, kTeams - 2, kTeams - 1}) {
    char what[64];
    std::snprintf(what, sizeof what, "team %d of %d alive", i, kTeams);
    g_exchange.run(what, teams[i], models[i]);
    check_broadcast(what, teams[i], models[i], 3);
  }
  std::vector<int> order(kTeams);
  std::iota(order.begin(), order.end(), 0);
  uint64_t s = 0x5eed;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[mp::mix(s) % i]);
  for (int i : order) nvshmem_team_destroy(teams[i]);
  nvshmem_barrier_all();
  // And again: the ids came back.
  for (int i = 0; i < kTeams; ++i) {
    int start, stride, size;
    params(i + 7, g_npes, &start, &stride, &size);
    teams[i] = timed_split(start, stride, size, nullptr, 0);
    models[i] = strided(world, start, stride, size);
  }
  check_team("team 1023 of the second 1024", teams[kTeams - 1], models[kTeams - 1]);
  g_exchange.run("team 1023 of the second 1024", teams[kTeams - 1], models[kTeams - 1]);
  for (int i = kTeams; i-- > 0;) nvshmem_team_destroy(teams[i]);
  nvshmem_barrier_all();
}

// --- churn: 10,000 teams made and destroyed one after the other, no collective in between.
void test_churn() {
  constexpr int kTeams = 10000;
  const Members world = mp::world_members(g_npes);
  for (int i = 0; i < kTeams; ++i) {
    int start, stride, size;
    params(i, g_npes, &start, &stride, &size);
    nvshmem_team_t t = timed_split(start, stride, size, nullptr, 0);
    if (i % 1000 == 999) {
      char what[64];
      std::snprintf(what, sizeof what, "churn team %d", i);
      const Members m = strided(world, start, stride, size);
      check_team(what, t, m);
      g_exchange.run(what, t, m);
    } else {
      const int want = index_of(strided(world, start, stride, size), g_me);
      MP_CHECK(nvshmem_team_my_pe(t) == want, "churn team %d (%d, %d, %d): team_my_pe = %d, expected %d", i, start,
               stride, size, nvshmem_team_my_pe(t), want);
    }
    nvshmem_team_destroy(t);
  }
  nvshmem_barrier_all();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  nvshmem_init();
  g_me = nvshmem_my_pe();
  g_npes = nvshmem_n_pes();
  g_exchange.init();
  g_bcast = static_cast<uint64_t*>(nvshmem_malloc(128 * sizeof(uint64_t)));
  g_uid_box = static_cast<uint64_t*>(nvshmem_calloc(4, sizeof(uint64_t)));
  MP_CHECK(g_bcast && g_uid_box, "nvshmem_malloc failed");
  const struct {
    const char* name;
    void (*run)();
  } parts[] = {{"basic", test_basic}, {"nested", test_nested}, {"split2d", test_split2d},
               {"uid", test_uid},     {"many", test_many},     {"churn", test_churn}};
  bool known = what == "all";
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& part : parts) {
    if (what != "all" && what != part.name) continue;
    known = true;
    part.run();
  }
  if (!known) {
    if (g_me == 0) std::fprintf(stderr, "usage: mp_team [basic|nested|split2d|uid|many|churn]\n");
    nvshmem_finalize();
    return 2;
  }
  nvshmem_barrier_all();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (g_me == 0 && g_splits > 0) {
    std::printf("team creation: %.1f us per split_strided at %d PEs (%ld splits of WORLD)\n", g_split_us / g_splits,
                g_npes, g_splits);
  }
  nvshmem_free(g_uid_box);
  nvshmem_free(g_bcast);
  g_exchange.done();
  if (g_me == 0) std::printf("mp_team %s: passed on %d PEs (%.1f s)\n", what.c_str(), g_npes, s);
  nvshmem_finalize();
  return 0;
}
