// NVSHMEM's team and collective API on the host: argument translation into the native team registry
// (team/teams.h) and the collectives (coll/collectives.h).
#include "compat/entry.h"
#include "core/runtime.h"
#include "util/log.h"

namespace gshmem {
namespace compat {

namespace {

// The registry, after binding the GPU if that is still to come (every team call is collective).
Teams& teams(const char* api) {
  if (rt().init_state() == kNotInitialized) rt().not_ready(api);
  if (!ok(rt().ensure_bound(api))) log::fatal("%s failed (see the messages above)", api);
  return rt().teams();
}

// The fields of `config` that `mask` selects; false (with a message) for a mask without a config.
bool read_config(const nvshmem_team_config_t* config, long mask, TeamConfig* out, const char* api) {
  *out = TeamConfig{};
  if (mask == 0) return true;
  if (!config) {
    GSHMEM_ERROR("%s: config_mask is 0x%lx but the config is NULL", api, mask);
    return false;
  }
  if (mask & NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS) out->num_contexts = config->num_contexts;
  if (mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID) out->uniqueid = config->uniqueid;
  return true;
}

int run(detail::CollOp op, nvshmem_team_t team, void* dest, const void* src, size_t bytes, int root, const char* api,
        bool on_stream, cudaStream_t stream, CollCall c = CollCall{}) {
  c.op = op;
  c.team = team;
  c.dest = dest;
  c.src = src;
  c.bytes = bytes;
  c.root = root;
  return to_nvshmem_status(rt().collective(c, on_stream, stream, api));
}

}  // namespace

int team_my_pe(nvshmem_team_t team) {
  const TeamInfo* t = rt().init_state() != kNotInitialized ? rt().teams().find(team) : nullptr;
  return t ? t->my_index : -1;
}
int team_n_pes(nvshmem_team_t team) {
  const TeamInfo* t = rt().init_state() != kNotInitialized ? rt().teams().find(team) : nullptr;
  return t ? t->size() : -1;
}

int team_split_strided(nvshmem_team_t parent, int start, int stride, int size, const nvshmem_team_config_t* config,
                       long mask, nvshmem_team_t* new_team) {
  const char* api = "nvshmem_team_split_strided";
  Teams& t = teams(api);
  TeamConfig cfg;
  int out = GSHMEM_TEAM_INVALID;
  // A bad config is this PE's alone: it still takes part (with invalid arguments), so that no PE hangs.
  const bool good = read_config(config, mask, &cfg, api);
  Status s = t.split_strided(parent, start, good ? stride : 0, good ? size : -1, cfg, &out, api);
  if (new_team) *new_team = out;
  return to_nvshmem_status(s);
}

int team_split_2d(nvshmem_team_t parent, int xrange, const nvshmem_team_config_t* xconfig, long xmask,
                  nvshmem_team_t* xteam, const nvshmem_team_config_t* yconfig, long ymask, nvshmem_team_t* yteam) {
  const char* api = "nvshmem_team_split_2d";
  Teams& t = teams(api);
  TeamConfig xc, yc;
  const bool good = read_config(xconfig, xmask, &xc, api) && read_config(yconfig, ymask, &yc, api);
  int x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
  Status s = t.split_2d(parent, good ? xrange : 0, xc, &x, yc, &y, api);
  if (xteam) *xteam = x;
  if (yteam) *yteam = y;
  return to_nvshmem_status(s);
}

int team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  if (rt().init_state() == kNotInitialized) return -1;
  return rt().teams().translate(src_team, src_pe, dest_team);
}

int team_get_config(nvshmem_team_t team, nvshmem_team_config_t* config) {
  const TeamInfo* t = rt().init_state() == kInitialized ? rt().teams().find(team) : nullptr;
  if (!t || !config) {
    GSHMEM_ERROR("nvshmem_team_get_config: %s", !config ? "the config is NULL" : "the team is not a valid team");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  config->version = (NVSHMEM_TEAM_CONFIG_VERSION_2 << 16) + static_cast<int>(sizeof(nvshmem_team_config_t));
  config->num_contexts = t->config.num_contexts;
  config->uniqueid = t->config.uniqueid;
  return 0;
}

void team_destroy(nvshmem_team_t team) {
  if (team == NVSHMEM_TEAM_INVALID) return;
  teams("nvshmem_team_destroy").destroy(team, "nvshmem_team_destroy");
}

int team_get_uniqueid(nvshmemx_team_uniqueid_t* uniqueid) {
  const char* api = "nvshmemx_team_get_uniqueid";
  if (!uniqueid) {
    GSHMEM_ERROR("%s: the pointer for the ID is NULL", api);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  uint64_t id = 0;
  Status s = teams(api).make_uniqueid(&id, api);
  *uniqueid = id;
  return to_nvshmem_status(s);
}

int team_init(nvshmem_team_t* team, nvshmem_team_config_t* config, long mask, int npes, int pe_idx_in_team) {
  const char* api = "nvshmemx_team_init";
  Teams& t = teams(api);
  if (team) *team = NVSHMEM_TEAM_INVALID;
  TeamConfig cfg;
  if (!read_config(config, mask, &cfg, api)) return NVSHMEMX_ERROR_INVALID_VALUE;
  if (!(mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID)) {
    GSHMEM_ERROR("%s needs the unique ID: set config->uniqueid and NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID in config_mask",
                 api);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  int out = GSHMEM_TEAM_INVALID;
  Status s = t.init_from_uniqueid(cfg.uniqueid, npes, pe_idx_in_team, cfg, &out, api);
  if (team) *team = out;
  return to_nvshmem_status(s);
}

int barrier(nvshmem_team_t team, const char* api) {
  return run(detail::CollOp::kBarrier, team, nullptr, nullptr, 0, 0, api, false, nullptr);
}
int barrier(nvshmem_team_t team, const char* api, cudaStream_t stream) {
  return run(detail::CollOp::kBarrier, team, nullptr, nullptr, 0, 0, api, true, stream);
}
int team_sync(nvshmem_team_t team, const char* api) {
  return run(detail::CollOp::kSync, team, nullptr, nullptr, 0, 0, api, false, nullptr);
}
int team_sync(nvshmem_team_t team, const char* api, cudaStream_t stream) {
  return run(detail::CollOp::kSync, team, nullptr, nullptr, 0, 0, api, true, stream);
}
int broadcast(nvshmem_team_t team, void* dest, const void* source, size_t bytes, int root, const char* api) {
  return run(detail::CollOp::kBroadcast, team, dest, source, bytes, root, api, false, nullptr);
}
int broadcast(nvshmem_team_t team, void* dest, const void* source, size_t bytes, int root, const char* api,
              cudaStream_t stream) {
  return run(detail::CollOp::kBroadcast, team, dest, source, bytes, root, api, true, stream);
}
int fcollect(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api) {
  return run(detail::CollOp::kFcollect, team, dest, source, bytes, 0, api, false, nullptr);
}
int fcollect(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api, cudaStream_t stream) {
  return run(detail::CollOp::kFcollect, team, dest, source, bytes, 0, api, true, stream);
}
int alltoall(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api) {
  return run(detail::CollOp::kAlltoall, team, dest, source, bytes, 0, api, false, nullptr);
}
int alltoall(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api, cudaStream_t stream) {
  return run(detail::CollOp::kAlltoall, team, dest, source, bytes, 0, api, true, stream);
}

namespace {
int run_reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, detail::ReduceType type,
               detail::ReduceOp op, bool scatter, const char* api, bool on_stream, cudaStream_t stream) {
  CollCall c;
  c.dtype = type;
  c.redop = op;
  return run(scatter ? detail::CollOp::kReducescatter : detail::CollOp::kReduce, team, dest, source,
             elem_bytes(nreduce, detail::reduce_type_size(type), api), 0, api, on_stream, stream, c);
}
}  // namespace

int reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, detail::ReduceType type,
           detail::ReduceOp op, bool scatter, const char* api) {
  return run_reduce(team, dest, source, nreduce, type, op, scatter, api, false, nullptr);
}
int reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, detail::ReduceType type,
           detail::ReduceOp op, bool scatter, const char* api, cudaStream_t stream) {
  return run_reduce(team, dest, source, nreduce, type, op, scatter, api, true, stream);
}

}  // namespace compat
}  // namespace gshmem
