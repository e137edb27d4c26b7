// The native host API (include/gshmem/host.hpp): teams and the collectives on them.
#include "core/runtime.h"
#include "gshmem/host.hpp"
#include "util/log.h"

namespace gshmem {
namespace host {

namespace {

Runtime& rt() { return Runtime::instance(); }

const char* name(const char* api, const char* native) { return api ? api : native; }

// The registry, after binding the GPU if that is still to come (every team call that changes it is
// collective).
Teams& teams(const char* api) {
  if (rt().init_state() == kNotInitialized) rt().not_ready(api);
  if (!ok(rt().ensure_bound(api))) log::fatal("%s failed (see the messages above)", api);
  return rt().teams();
}

// A team this PE knows (the predefined ones from init on), or nullptr.
const TeamInfo* known(int team) { return rt().init_state() != kNotInitialized ? rt().teams().find(team) : nullptr; }

Status run(CollCall c, int team, void* dest, const void* src, size_t bytes, int root, Mode mode, const char* api) {
  c.team = team;
  c.dest = dest;
  c.src = src;
  c.bytes = bytes;
  c.root = root;
  const bool on_stream = mode.completion == Completion::kStream;
  if (!on_stream && mode.completion != Completion::kBlocking) {
    GSHMEM_ERROR("%s: a collective is blocking or in order on a stream, not non-blocking", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return rt().collective(c, on_stream, mode.stream, api);
}

Status run(detail::CollOp op, int team, void* dest, const void* src, size_t bytes, int root, Mode mode,
           const char* api) {
  CollCall c;
  c.op = op;
  return run(c, team, dest, src, bytes, root, mode, api);
}

Status run_reduce(bool scatter, int team, ReduceType type, ReduceOp op, void* dest, const void* src, size_t n,
                  Mode mode, const char* api) {
  CollCall c;
  c.op = scatter ? detail::CollOp::kReducescatter : detail::CollOp::kReduce;
  c.dtype = type;
  c.redop = op;
  return run(c, team, dest, src, elem_bytes(n, detail::reduce_type_size(type), api), 0, mode, api);
}

}  // namespace

// ---- Teams ----

int team_my_pe(int team) {
  const TeamInfo* t = known(team);
  return t ? t->my_index : -1;
}

int team_n_pes(int team) {
  const TeamInfo* t = known(team);
  return t ? t->size() : -1;
}

int team_translate_pe(int src, int pe, int dest) {
  return rt().init_state() != kNotInitialized ? rt().teams().translate(src, pe, dest) : -1;
}

Status team_split_strided(int parent, int start, int stride, int size, const TeamConfig& config, int* out,
                          const char* api) {
  api = name(api, "gshmem::host::team_split_strided");
  int id = GSHMEM_TEAM_INVALID;
  const Status s = teams(api).split_strided(parent, start, stride, size, config, &id, api);
  if (out) *out = id;
  return s;
}

Status team_split_2d(int parent, int xrange, const TeamConfig& xconfig, int* xteam, const TeamConfig& yconfig,
                     int* yteam, const char* api) {
  api = name(api, "gshmem::host::team_split_2d");
  int x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
  const Status s = teams(api).split_2d(parent, xrange, xconfig, &x, yconfig, &y, api);
  if (xteam) *xteam = x;
  if (yteam) *yteam = y;
  return s;
}

Status team_config(int team, TeamConfig* out, const char* api) {
  const TeamInfo* t = known(team);
  if (!t || !out) {
    GSHMEM_ERROR("%s: %s", name(api, "gshmem::host::team_config"),
                 !out ? "the config is NULL" : "the team is not a valid team");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  *out = t->config;
  return GSHMEM_SUCCESS;
}

Status team_destroy(int team, const char* api) {
  api = name(api, "gshmem::host::team_destroy");
  return teams(api).destroy(team, api);
}

Status team_uniqueid(uint64_t* id, const char* api) {
  api = name(api, "gshmem::host::team_uniqueid");
  if (!id) {
    GSHMEM_ERROR("%s: the pointer for the ID is NULL", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return teams(api).make_uniqueid(id, api);
}

Status team_init(uint64_t id, int npes, int index, const TeamConfig& config, int* out, const char* api) {
  api = name(api, "gshmem::host::team_init");
  int team = GSHMEM_TEAM_INVALID;
  const Status s = teams(api).init_from_uniqueid(id, npes, index, config, &team, api);
  if (out) *out = team;
  return s;
}

// ---- Collectives ----

Status barrier(int team, Mode mode, const char* api) {
  return run(detail::CollOp::kBarrier, team, nullptr, nullptr, 0, 0, mode, name(api, "gshmem::host::barrier"));
}

Status team_sync(int team, Mode mode, const char* api) {
  return run(detail::CollOp::kSync, team, nullptr, nullptr, 0, 0, mode, name(api, "gshmem::host::team_sync"));
}

Status broadcastmem(int team, void* dest, const void* src, size_t bytes, int root, Mode mode, const char* api) {
  return run(detail::CollOp::kBroadcast, team, dest, src, bytes, root, mode, name(api, "gshmem::host::broadcastmem"));
}

Status fcollectmem(int team, void* dest, const void* src, size_t bytes, Mode mode, const char* api) {
  return run(detail::CollOp::kFcollect, team, dest, src, bytes, 0, mode, name(api, "gshmem::host::fcollectmem"));
}

Status alltoallmem(int team, void* dest, const void* src, size_t bytes, Mode mode, const char* api) {
  return run(detail::CollOp::kAlltoall, team, dest, src, bytes, 0, mode, name(api, "gshmem::host::alltoallmem"));
}

Status reduce(int team, ReduceType type, ReduceOp op, void* dest, const void* src, size_t n, Mode mode,
              const char* api) {
  return run_reduce(false, team, type, op, dest, src, n, mode, name(api, "gshmem::host::reduce"));
}

Status reducescatter(int team, ReduceType type, ReduceOp op, void* dest, const void* src, size_t n, Mode mode,
                     const char* api) {
  return run_reduce(true, team, type, op, dest, src, n, mode, name(api, "gshmem::host::reducescatter"));
}

}  // namespace host
}  // namespace gshmem
