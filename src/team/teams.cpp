#include "team/teams.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "gshmem/constants.h"
#include "heap/symmetric_heap.h"
#include "transport/manager.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {

namespace {

using detail::ExchangeRecord;
using detail::SyncLayout;
using detail::TeamSlot;

std::string pe_list(const std::vector<int>& v, size_t max = 12) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < max; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > max) s += log::format(", ... (%zu in all)", v.size());
  return s;
}

// A record of nvshmemx_team_init's rendezvous: member `index` of the team tells the PE that made
// the unique ID where it is. Written body first, then `tag`.
struct MailboxRecord {
  uint64_t tag;  // the unique ID's low 32 bits + 1 once written
  int32_t world_pe;
  int32_t npes;
  uint64_t sync;
  uint64_t config;  // num_contexts
};

// The unique ID of nvshmemx_team_init: the PE that made it, where its mailbox lies in that PE's
// heap (in units of 64 bytes), and a serial number.
uint64_t pack_uid(int pe, uint64_t mailbox, uint64_t serial) {
  return (static_cast<uint64_t>(pe) << 40) | ((mailbox / 64) & 0xffffffffull) << 8 | (serial & 0xff);
}
void unpack_uid(uint64_t uid, int* pe, uint64_t* mailbox) {
  *pe = static_cast<int>(uid >> 40);
  *mailbox = ((uid >> 8) & 0xffffffffull) * 64;
}

// Sets the members of `t`, and its start and stride when they are evenly spaced (kernels then compute a
// member's PE instead of reading the list).
void set_members(TeamInfo& t, const std::vector<int>& members) {
  t.members = members;
  t.start = members[0];
  t.stride = members.size() > 1 ? members[1] - members[0] : 1;
  t.strided = true;
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i] != t.start + static_cast<int>(i) * t.stride) t.strided = false;
  }
}

}  // namespace

uint32_t Teams::scratch_of(int n) const { return n > 1 ? sv_.reduce_scratch : 0; }

uint64_t Teams::area_bytes(int n) const { return SyncLayout(n).bytes + scratch_of(n); }

char* Teams::heap_base() const { return sv_.heap->base(); }

void Teams::set_predefined(const std::vector<std::vector<int>>& predefined, int my_pe) {
  predefined_ = predefined;
  teams_.assign(static_cast<size_t>(GSHMEM_TEAMS_PREDEFINED), TeamInfo{});
  for (size_t id = 0; id < predefined.size() && id < static_cast<size_t>(GSHMEM_TEAMS_PREDEFINED); ++id) {
    const std::vector<int>& m = predefined[id];
    const int me = static_cast<int>(std::find(m.begin(), m.end(), my_pe) - m.begin());
    if (me >= static_cast<int>(m.size())) continue;  // empty, or not a member (cannot happen for these teams)
    TeamInfo& t = teams_[id];
    t.id = static_cast<int>(id);
    set_members(t, m);
    t.my_index = me;
    t.predefined = true;
  }
}

Status Teams::init(const Services& services, uint64_t region, uint64_t region_bytes, int capacity) {
  sv_ = services;
  region_ = region;
  capacity_ = capacity;
  const uint64_t table = ((static_cast<uint64_t>(capacity) * sizeof(TeamSlot)) + 63) & ~63ull;
  areas_ = region + table;
  pool_ = HeapAllocator(64);
  pool_.grow(region_bytes - table);
  teams_.resize(static_cast<size_t>(capacity), TeamInfo{});
  free_ids_.clear();
  for (int id = capacity - 1; id >= GSHMEM_TEAMS_PREDEFINED; --id) free_ids_.push_back(id);
  GSHMEM_CHECK(sv_.heap->provider().zero(heap_base() + region, table));
  // The predefined teams' areas are sized for every PE and allocated in the same order everywhere, so
  // each lies at the same offset on every PE.
  for (size_t id = 0; id < predefined_.size() && id < static_cast<size_t>(GSHMEM_TEAMS_PREDEFINED); ++id) {
    if (predefined_[id].empty()) continue;
    uint64_t area = 0;
    GSHMEM_CHECK(allocate_area(sv_.n_pes, &area, "nvshmem_init"));
    TeamInfo& t = teams_[id];
    if (t.id < 0) continue;
    t.sync = area;
    t.sync_of.assign(t.members.size(), area);
    GSHMEM_CHECK(publish(t));
  }
  ready_ = true;
  return GSHMEM_SUCCESS;
}

void Teams::finalize() {
  ready_ = false;
  teams_.clear();
  free_ids_.clear();
}

size_t Teams::alive() const {
  return static_cast<size_t>(std::count_if(teams_.begin(), teams_.end(), [](const TeamInfo& t) { return t.id >= 0; }));
}

const TeamInfo* Teams::find(int id) const {
  if (id < 0 || id >= static_cast<int>(teams_.size()) || teams_[id].id < 0) return nullptr;
  return &teams_[id];
}

const TeamSlot* Teams::slot(int id) const {
  if (!ready_ || !find(id)) return nullptr;
  return reinterpret_cast<const TeamSlot*>(heap_base() + region_) + id;
}

int Teams::translate(int src_team, int src_pe, int dest_team) const {
  const TeamInfo* s = find(src_team);
  const TeamInfo* d = find(dest_team);
  if (!s || !d || src_pe < 0 || src_pe >= s->size()) return -1;
  const int world = s->members[src_pe];
  auto it = std::find(d->members.begin(), d->members.end(), world);
  return it == d->members.end() ? -1 : static_cast<int>(it - d->members.begin());
}

std::string Teams::describe(int id) const {
  if (id == GSHMEM_TEAM_INVALID) return "NVSHMEM_TEAM_INVALID";
  return log::format("team %d", id);
}

Status Teams::allocate_area(int n, uint64_t* offset, const char* api) {
  const uint64_t bytes = area_bytes(n);
  const uint32_t scratch = scratch_of(n);
  uint64_t off = 0;
  if (!pool_.allocate(bytes, 64, &off)) {
    const std::string of_it =
        scratch ? log::format(", %s of it the scratch of reductions across the network (NVSHMEM_REDUCE_SCRATCH_SIZE)",
                              format_size(scratch).c_str())
                : std::string();
    GSHMEM_ERROR(
        "%s: no room for the synchronisation space of a team of %d PEs (%s%s): the teams alive on PE %d use %s of "
        "the %s that GSHMEM_TEAM_SPACE sets aside; destroy teams that are no longer used, or raise "
        "GSHMEM_TEAM_SPACE%s",
        api, n, format_size(bytes).c_str(), of_it.c_str(), sv_.my_pe, format_size(pool_.used()).c_str(),
        format_size(pool_.capacity()).c_str(), scratch ? " or lower NVSHMEM_REDUCE_SCRATCH_SIZE" : "");
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  *offset = areas_ + off;
  // The scratch needs no zeroes: every reduction writes a slot before it is read.
  return sv_.heap->provider().zero(heap_base() + *offset, bytes - scratch);
}

void Teams::free_area(uint64_t offset) { pool_.free(offset - areas_); }

Status Teams::allocate_id(int* id, const char* api) {
  if (free_ids_.empty()) {
    GSHMEM_ERROR(
        "%s: all %d team ids are in use on PE %d (%zu teams alive): destroy teams that are no longer used, or "
        "raise NVSHMEM_MAX_TEAMS",
        api, capacity_, sv_.my_pe, alive());
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  *id = free_ids_.back();
  free_ids_.pop_back();
  return GSHMEM_SUCCESS;
}

Status Teams::publish(TeamInfo& t) {
  const int n = t.size();
  const SyncLayout lay(n);
  char* area = heap_base() + t.sync;
  GSHMEM_CHECK(sv_.transports->memory().copy(area + lay.sync_of, t.sync_of.data(), 8 * static_cast<size_t>(n),
                                             Completion::kBlocking, nullptr));
  TeamSlot s{};
  s.size = n;
  s.my_index = t.my_index;
  s.start = t.start;
  s.stride = t.stride;
  s.sync = t.sync;
  s.ll_period = sv_.ll_period;
  s.ll_max_bytes = sv_.ll_max_bytes;
  s.scratch_bytes = scratch_of(n);
  s.sync_of = reinterpret_cast<const uint64_t*>(area + lay.sync_of);
  if (!t.strided) {
    std::vector<int32_t> m(t.members.begin(), t.members.end());
    GSHMEM_CHECK(sv_.transports->memory().copy(area + lay.members, m.data(), 4 * static_cast<size_t>(n),
                                               Completion::kBlocking, nullptr));
    s.members = reinterpret_cast<const int32_t*>(area + lay.members);
  }
  auto* table = reinterpret_cast<TeamSlot*>(heap_base() + region_);
  return sv_.transports->memory().copy(table + t.id, &s, sizeof s, Completion::kBlocking, nullptr);
}

Status Teams::build(const std::vector<int>& members, int my_index, uint64_t sync, std::vector<uint64_t> sync_of,
                    const TeamConfig& config, int* out) {
  int id = 0;
  GSHMEM_CHECK(allocate_id(&id, "nvshmem_team_split"));
  TeamInfo& t = teams_[id];
  t = TeamInfo{};
  t.id = id;
  set_members(t, members);
  t.my_index = my_index;
  t.sync = sync;
  t.sync_of = std::move(sync_of);
  t.config = config;
  Status s = publish(t);
  if (!ok(s)) {
    t.id = -1;
    free_ids_.push_back(id);
    return s;
  }
  *out = id;
  return GSHMEM_SUCCESS;
}

TeamInfo* Teams::parent_of(int id, const char* api) {
  TeamInfo* t = ready_ && id >= 0 && id < static_cast<int>(teams_.size()) && teams_[id].id >= 0 ? &teams_[id] : nullptr;
  if (!t) GSHMEM_ERROR("%s: the parent team %d is not a valid team (never made, or destroyed)", api, id);
  return t;
}

Status Teams::agree(const TeamInfo& parent, const std::vector<ExchangeRecord>& all, const char* what, const char* api,
                    const std::function<std::string(const ExchangeRecord&)>& args) const {
  const int n = parent.size();
  for (int i = 1; i < n; ++i) {
    if (all[i].a == all[0].a && all[i].b == all[0].b && all[i].c == all[0].c) continue;
    std::string detail;
    for (int k = 0; k < n && k < 8; ++k) {
      detail += log::format("%sPE %d: %s", k ? "; " : "", parent.members[k], args(all[k]).c_str());
    }
    GSHMEM_ERROR("%s is collective over %s and its PEs must pass the same %s, but %s%s", api,
                 describe(parent.id).c_str(), what, detail.c_str(), n > 8 ? "; ..." : "");
    return GSHMEM_ERROR_SYMMETRY;
  }
  return GSHMEM_SUCCESS;
}

bool Teams::reaches(int pe) const { return sv_.transports->path(pe).kind() != PathKind::kUnreachable; }

Status Teams::write_to(int pe, uint64_t offset, const void* src, size_t bytes) {
  PeerPath& path = sv_.transports->path(pe);
  GSHMEM_CHECK(path.put(offset, src, bytes, Completion::kBlocking, nullptr));
  // Complete at the member, not only sent: it reads the record after the barrier that follows.
  return path.caps().needs_progress ? sv_.transports->quiet() : GSHMEM_SUCCESS;
}

Status Teams::read_from(int pe, uint64_t offset, void* dst, size_t bytes) {
  return sv_.transports->path(pe).read(dst, offset, bytes);
}

// Every member of `parent` writes `mine` into slot my_index of every member's exchange buffer, then
// the parent's barrier; then each reads what all wrote here.
Status Teams::exchange(TeamInfo& parent, const ExchangeRecord& mine, std::vector<ExchangeRecord>* all,
                       const char* api) {
  const int n = parent.size();
  const SyncLayout lay(n);
  const uint64_t buffer = lay.exchange + (parent.splits % 2) * static_cast<uint64_t>(n) * sizeof(ExchangeRecord);
  parent.splits += 1;
  for (int k = 0; k < n; ++k) {
    const int i = (parent.my_index + k) % n;
    if (!reaches(parent.members[i])) {
      GSHMEM_ERROR("%s: PE %d of %s is not reachable from PE %d", api, parent.members[i], describe(parent.id).c_str(),
                   sv_.my_pe);
      return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    const uint64_t slot = parent.sync_of[i] + buffer + static_cast<uint64_t>(parent.my_index) * sizeof mine;
    GSHMEM_CHECK(write_to(parent.members[i], slot, &mine, sizeof mine));
  }
  GSHMEM_CHECK(sv_.barrier(parent.id, api));
  all->resize(static_cast<size_t>(n));
  return sv_.transports->memory().read_words(all->data(), heap_base() + parent.sync + buffer, sizeof mine * n, 8);
}

Status Teams::same_arguments(int team, int32_t a, int32_t b, uint64_t n, const char* what, const char* api,
                             const std::function<std::string(int32_t, int32_t, uint64_t)>& args) {
  TeamInfo* t = parent_of(team, api);
  if (!t) return GSHMEM_ERROR_INVALID_VALUE;
  ExchangeRecord mine{};
  mine.serial = static_cast<int32_t>(t->splits + 1);
  mine.a = a;
  mine.b = b;
  mine.c = static_cast<int32_t>(n ^ (n >> 32));
  mine.sync1 = n;
  std::vector<ExchangeRecord> all;
  GSHMEM_CHECK(exchange(*t, mine, &all, api));
  return agree(*t, all, what, api, [&](const ExchangeRecord& r) { return args(r.a, r.b, r.sync1); });
}

Status Teams::split_strided(int parent_id, int start, int stride, int size, const TeamConfig& config, int* out,
                            const char* api) {
  *out = GSHMEM_TEAM_INVALID;
  // OpenSHMEM: a split of NVSHMEM_TEAM_INVALID (a PE outside the parent, in a nested split) makes nothing.
  if (parent_id == GSHMEM_TEAM_INVALID) return GSHMEM_SUCCESS;
  TeamInfo* p = parent_of(parent_id, api);
  if (!p) return GSHMEM_ERROR_INVALID_VALUE;
  TeamInfo& parent = *p;
  const int n = parent.size();
  const bool valid =
      size > 0 && start >= 0 && start < n &&
      (size == 1 || (stride > 0 && static_cast<int64_t>(start) + static_cast<int64_t>(size - 1) * stride < n));
  int my_new = -1;
  if (valid) {
    const int d = parent.my_index - start;
    if (d >= 0 && (size == 1 ? d == 0 : d % stride == 0) && (size == 1 ? 0 : d / stride) < size) {
      my_new = size == 1 ? 0 : d / stride;
    }
  }
  uint64_t area = detail::kNoArea;
  if (my_new >= 0) GSHMEM_CHECK(allocate_area(size, &area, api));
  ExchangeRecord mine{};
  mine.serial = static_cast<int32_t>(parent.splits + 1);
  mine.a = start;
  mine.b = stride;
  mine.c = size;
  mine.sync1 = area;
  mine.sync2 = detail::kNoArea;
  std::vector<ExchangeRecord> all;
  Status s = exchange(parent, mine, &all, api);
  if (ok(s)) {
    s = agree(parent, all, "start, stride and size", api,
              [](const ExchangeRecord& r) { return log::format("start %d, stride %d, size %d", r.a, r.b, r.c); });
  }
  if (ok(s) && !valid) {
    GSHMEM_ERROR(
        "%s: start %d, stride %d, size %d do not describe PEs of %s, which has %d PEs (numbered 0 to %d): the size "
        "must be at least 1, the stride at least 1 when the size is more than 1, and start + (size - 1) * stride "
        "must be below %d",
        api, start, stride, size, describe(parent_id).c_str(), n, n - 1, n);
    s = GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!ok(s)) {
    if (area != detail::kNoArea) free_area(area);
    return s;
  }
  if (my_new < 0) return GSHMEM_SUCCESS;
  std::vector<int> members;
  std::vector<uint64_t> sync_of;
  for (int k = 0; k < size; ++k) {
    const int p = start + k * (size == 1 ? 0 : stride);
    members.push_back(parent.members[p]);
    sync_of.push_back(all[p].sync1);
  }
  s = build(members, my_new, area, std::move(sync_of), config, out);
  if (!ok(s)) free_area(area);
  return s;
}

Status Teams::split_2d(int parent_id, int xrange, const TeamConfig& xconfig, int* xout, const TeamConfig& yconfig,
                       int* yout, const char* api) {
  *xout = *yout = GSHMEM_TEAM_INVALID;
  if (parent_id == GSHMEM_TEAM_INVALID) return GSHMEM_SUCCESS;  // as split_strided
  TeamInfo* p = parent_of(parent_id, api);
  if (!p) return GSHMEM_ERROR_INVALID_VALUE;
  TeamInfo& parent = *p;
  const int n = parent.size();
  const bool valid = xrange > 0;
  // Rows of xrange PEs (the last may be shorter): x team = this PE's row, y team = its column.
  const int x = valid ? std::min(xrange, n) : 1;
  const int row = parent.my_index / x, col = parent.my_index % x;
  const int rows = (n + x - 1) / x;
  const int xsize = std::min(x, n - row * x);
  const int ysize = rows - (col < n - (rows - 1) * x ? 0 : 1);
  uint64_t xa = detail::kNoArea, ya = detail::kNoArea;
  if (valid) {
    GSHMEM_CHECK(allocate_area(xsize, &xa, api));
    Status s = allocate_area(ysize, &ya, api);
    if (!ok(s)) {
      free_area(xa);
      return s;
    }
  }
  ExchangeRecord mine{};
  mine.serial = static_cast<int32_t>(parent.splits + 1);
  mine.a = xrange;
  mine.sync1 = xa;
  mine.sync2 = ya;
  std::vector<ExchangeRecord> all;
  Status s = exchange(parent, mine, &all, api);
  if (ok(s)) {
    s = agree(parent, all, "xrange", api, [](const ExchangeRecord& r) { return log::format("xrange %d", r.a); });
  }
  if (ok(s) && !valid) {
    GSHMEM_ERROR("%s: xrange %d must be at least 1", api, xrange);
    s = GSHMEM_ERROR_INVALID_VALUE;
  }
  auto undo = [&] {
    if (xa != detail::kNoArea) free_area(xa);
    if (ya != detail::kNoArea) free_area(ya);
  };
  if (!ok(s)) {
    undo();
    return s;
  }
  std::vector<int> xm, ym;
  std::vector<uint64_t> xs, ys;
  for (int k = 0; k < xsize; ++k) {
    xm.push_back(parent.members[row * x + k]);
    xs.push_back(all[row * x + k].sync1);
  }
  for (int k = 0; k < ysize; ++k) {
    ym.push_back(parent.members[k * x + col]);
    ys.push_back(all[k * x + col].sync2);
  }
  s = build(xm, col, xa, std::move(xs), xconfig, xout);
  if (ok(s)) {
    s = build(ym, row, ya, std::move(ys), yconfig, yout);
    if (!ok(s)) {
      teams_[*xout].id = -1;
      free_ids_.push_back(*xout);
      *xout = GSHMEM_TEAM_INVALID;
    }
  }
  if (!ok(s)) undo();
  return s;
}

Status Teams::make_uniqueid(uint64_t* out, const char* api) {
  if (!ready_) {
    GSHMEM_ERROR("%s was called before the library was initialised", api);
    return GSHMEM_ERROR_STATE;
  }
  // The mailbox: a record per possible member, in this PE's team region.
  uint64_t off = 0;
  const uint64_t bytes = sizeof(MailboxRecord) * static_cast<uint64_t>(sv_.n_pes);
  if (!pool_.allocate(bytes, 64, &off)) {
    GSHMEM_ERROR("%s: no room for a team rendezvous of %s in GSHMEM_TEAM_SPACE on PE %d; raise it", api,
                 format_size(bytes).c_str(), sv_.my_pe);
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  GSHMEM_CHECK(sv_.heap->provider().zero(heap_base() + areas_ + off, bytes));
  *out = pack_uid(sv_.my_pe, off, ++uid_serial_);
  return GSHMEM_SUCCESS;
}

Status Teams::init_from_uniqueid(uint64_t uid, int npes, int index, const TeamConfig& config, int* out,
                                 const char* api) {
  *out = GSHMEM_TEAM_INVALID;
  int owner = 0;
  uint64_t mailbox = 0;
  unpack_uid(uid, &owner, &mailbox);
  if (!ready_ || owner < 0 || owner >= sv_.n_pes || npes < 1 || npes > sv_.n_pes || index < 0 || index >= npes) {
    GSHMEM_ERROR(
        "%s: npes %d and pe_idx_in_team %d must satisfy 1 <= npes <= %d (the PEs of the job) and 0 <= pe_idx_in_team "
        "< npes, and the unique ID (0x%llx) must come from nvshmemx_team_get_uniqueid of this job",
        api, npes, index, sv_.n_pes, static_cast<unsigned long long>(uid));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!reaches(owner)) {
    GSHMEM_ERROR("%s: PE %d, which made the unique ID, is not reachable from PE %d", api, owner, sv_.my_pe);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  uint64_t area = 0;
  GSHMEM_CHECK(allocate_area(npes, &area, api));
  const uint64_t box = areas_ + mailbox;
  MailboxRecord mine{};
  const uint64_t tag = (uid & 0xffffffffull) + 1;
  mine.world_pe = sv_.my_pe;
  mine.npes = npes;
  mine.sync = area;
  mine.config = static_cast<uint64_t>(config.num_contexts);
  const uint64_t slot = box + sizeof(MailboxRecord) * static_cast<uint64_t>(index);
  // Body first, then the tag that says it is there.
  GSHMEM_CHECK(write_to(owner, slot + 8, reinterpret_cast<char*>(&mine) + 8, sizeof mine - 8));
  GSHMEM_CHECK(sv_.transports->quiet());
  GSHMEM_CHECK(write_to(owner, slot, &tag, 8));
  std::vector<MailboxRecord> all(static_cast<size_t>(npes));
  const auto began = std::chrono::steady_clock::now();
  double warned = 0;
  for (int polls = 0;; ++polls) {
    GSHMEM_CHECK(read_from(owner, box, all.data(), sizeof(MailboxRecord) * npes));
    std::vector<int> missing;
    for (int k = 0; k < npes; ++k) {
      if (all[k].tag != tag) missing.push_back(k);
    }
    if (missing.empty()) break;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (waited - warned >= 10) {
      warned = waited;
      GSHMEM_WARN(kColl,
                  "%s: PE %d has waited %.0f s for the team members with indices %s to call it with the same "
                  "unique ID",
                  api, sv_.my_pe, waited, pe_list(missing).c_str());
    }
    std::this_thread::sleep_for(std::chrono::microseconds(polls < 100 ? 20 : 1000));
  }
  // Once every tag is seen, read the bodies again (after the acquire of the read above).
  GSHMEM_CHECK(read_from(owner, box, all.data(), sizeof(MailboxRecord) * npes));
  std::vector<int> members;
  std::vector<uint64_t> sync_of;
  Status s = GSHMEM_SUCCESS;
  for (int k = 0; k < npes; ++k) {
    if (all[k].npes != npes) {
      GSHMEM_ERROR(
          "%s: the PEs of one unique ID must pass the same npes, but member %d (PE %d) passed %d and member "
          "%d (PE %d) passed %d",
          api, index, sv_.my_pe, npes, k, all[k].world_pe, all[k].npes);
      s = GSHMEM_ERROR_SYMMETRY;
      break;
    }
    members.push_back(all[k].world_pe);
    sync_of.push_back(all[k].sync);
  }
  if (ok(s)) s = build(members, index, area, std::move(sync_of), config, out);
  if (!ok(s)) {
    free_area(area);
    return s;
  }
  // Every member has read the mailbox before the team's first barrier ends: then its maker frees it.
  s = sv_.barrier(*out, api);
  if (ok(s) && owner == sv_.my_pe) pool_.free(mailbox);
  return s;
}

Status Teams::destroy(int id, const char* api) {
  const TeamInfo* t = find(id);
  if (!t) {
    GSHMEM_ERROR("%s: %s is not a valid team (never made, or destroyed already)", api, describe(id).c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (t->predefined) {
    GSHMEM_ERROR("%s: %s is predefined and cannot be destroyed", api, describe(id).c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  // No member may still be in a collective of the team, or write into its area, when it is reused.
  GSHMEM_CHECK(sv_.barrier(id, api));
  TeamSlot empty{};
  auto* table = reinterpret_cast<TeamSlot*>(heap_base() + region_);
  GSHMEM_CHECK(sv_.transports->memory().copy(table + id, &empty, sizeof empty, Completion::kBlocking, nullptr));
  free_area(t->sync);
  teams_[id] = TeamInfo{};
  free_ids_.push_back(id);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
