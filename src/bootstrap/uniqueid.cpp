#include "bootstrap/uniqueid.h"

#include <cstring>
#include <mutex>

#include "bootstrap/hub_host.h"
#include "bootstrap/launcher_bootstrap.h"
#include "bootstrap/tcp_client.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {

struct UidBlob {
  uint32_t magic;
  uint16_t version;
  uint16_t reserved;
  char address[80];
  uint8_t secret[16];
};
constexpr uint32_t kUidMagic = 0x49555347;  // "GSUI"
constexpr uint16_t kUidVersion = 1;

std::mutex g_mu;
std::unique_ptr<HubHost> g_root;  // the root this process serves, until its PE joins
UidBlob g_blob{};

}  // namespace

Status make_unique_id(const Config& config, void* internal, size_t len) {
  static_assert(sizeof(UidBlob) <= 124, "the blob fits in nvshmemx_uniqueid_t");
  if (len < sizeof(UidBlob)) return GSHMEM_ERROR_INVALID_VALUE;
  if (!config.bootstrap_uid_session_id.empty()) {
    GSHMEM_ERROR(
        "NVSHMEM_BOOTSTRAP_UID_SESSION_ID is not supported by this version of gshmem: unset it and hand "
        "the ID from nvshmemx_get_uniqueid to every process");
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_root) {
    auto root = std::make_unique<HubHost>();
    GSHMEM_CHECK(root->start(config, 0));
    g_blob = UidBlob{};
    g_blob.magic = kUidMagic;
    g_blob.version = kUidVersion;
    std::snprintf(g_blob.address, sizeof g_blob.address, "%s", root->address().c_str());
    std::memcpy(g_blob.secret, root->secret(), sizeof g_blob.secret);
    g_root = std::move(root);
  }
  std::memset(internal, 0, len);
  std::memcpy(internal, &g_blob, sizeof g_blob);
  return GSHMEM_SUCCESS;
}

Status join_unique_id(const Config& config, const void* internal, size_t len, int rank, int size,
                      std::unique_ptr<Bootstrap>* out) {
  UidBlob blob;
  std::memcpy(&blob, internal, sizeof blob);
  if (len < sizeof blob || blob.magic != kUidMagic || blob.version != kUidVersion) {
    GSHMEM_ERROR(
        "nvshmemx_init_attr: the unique ID was not made by gshmem's nvshmemx_get_uniqueid (or was not "
        "copied whole: all %zu bytes must reach every process)",
        len);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (size < 1 || rank < 0 || rank >= size) {
    GSHMEM_ERROR("nvshmemx_init_attr: rank %d of %d PEs is not valid (nvshmemx_set_attr_uniqueid_args)", rank, size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  blob.address[sizeof blob.address - 1] = '\0';
  std::unique_ptr<Bootstrap> tcp;
  const TcpJoin join(blob.address, blob.secret, rank, size,
                     "the process that called nvshmemx_get_uniqueid, which serves it");
  Status s = connect_tcp_bootstrap(config, join, &tcp);
  if (!ok(s)) {
    GSHMEM_ERROR(
        "PE %d could not join the job of its unique ID (root %s): the process that called "
        "nvshmemx_get_uniqueid has ended, is unreachable from here, or the ID belongs to another job",
        rank, blob.address);
    return s;
  }
  std::unique_ptr<HubHost> root;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_root && g_root->address() == blob.address) root = std::move(g_root);
  }
  return make_root_bootstrap(config, std::move(root), std::move(tcp), out);
}

}  // namespace gshmem
