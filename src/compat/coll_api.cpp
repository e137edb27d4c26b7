// NVSHMEM's team calls that take its structs (nvshmem_team_config_t and its mask, the team unique ID):
// the translation into the native host API (gshmem/host.hpp). The other team and collective names
// forward in one line (compat/entry.h).
#include "compat/entry.h"
#include "util/log.h"

namespace gshmem {
namespace compat {

namespace {

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

}  // namespace

int team_split_strided(nvshmem_team_t parent, int start, int stride, int size, const nvshmem_team_config_t* config,
                       long mask, nvshmem_team_t* new_team) {
  const char* api = "nvshmem_team_split_strided";
  TeamConfig cfg;
  // A bad config is this PE's alone: it still takes part (with invalid arguments), so that no PE hangs.
  const bool good = read_config(config, mask, &cfg, api);
  return to_nvshmem_status(
      host::team_split_strided(parent, start, good ? stride : 0, good ? size : -1, cfg, new_team, api));
}

int team_split_2d(nvshmem_team_t parent, int xrange, const nvshmem_team_config_t* xconfig, long xmask,
                  nvshmem_team_t* xteam, const nvshmem_team_config_t* yconfig, long ymask, nvshmem_team_t* yteam) {
  const char* api = "nvshmem_team_split_2d";
  TeamConfig xc, yc;
  const bool good = read_config(xconfig, xmask, &xc, api) && read_config(yconfig, ymask, &yc, api);
  return to_nvshmem_status(host::team_split_2d(parent, good ? xrange : 0, xc, xteam, yc, yteam, api));
}

int team_get_config(nvshmem_team_t team, nvshmem_team_config_t* config) {
  TeamConfig cfg;
  const Status s = host::team_config(team, config ? &cfg : nullptr, "nvshmem_team_get_config");
  if (!ok(s)) return to_nvshmem_status(s);
  config->version = (NVSHMEM_TEAM_CONFIG_VERSION_2 << 16) + static_cast<int>(sizeof(nvshmem_team_config_t));
  config->num_contexts = cfg.num_contexts;
  config->uniqueid = cfg.uniqueid;
  return 0;
}

int team_get_uniqueid(nvshmemx_team_uniqueid_t* uniqueid) {
  return to_nvshmem_status(host::team_uniqueid(uniqueid, "nvshmemx_team_get_uniqueid"));
}

int team_init(nvshmem_team_t* team, nvshmem_team_config_t* config, long mask, int npes, int pe_idx_in_team) {
  const char* api = "nvshmemx_team_init";
  if (team) *team = NVSHMEM_TEAM_INVALID;
  TeamConfig cfg;
  if (!read_config(config, mask, &cfg, api)) return NVSHMEMX_ERROR_INVALID_VALUE;
  if (!(mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID)) {
    GSHMEM_ERROR("%s needs the unique ID: set config->uniqueid and NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID in config_mask",
                 api);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  return to_nvshmem_status(host::team_init(cfg.uniqueid, npes, pe_idx_in_team, cfg, team, api));
}

}  // namespace compat
}  // namespace gshmem
