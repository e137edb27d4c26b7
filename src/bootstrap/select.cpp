// Chooses the bootstrap from the environment.
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/tcp_client.h"
#include "util/config.h"
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {

Status create_bootstrap(const Config& config, std::unique_ptr<Bootstrap>* out) {
  const bool under_gshmrun = !config.run_root.empty();
  if (config.bootstrap != "auto") {
    GSHMEM_ERROR(
        "NVSHMEM_BOOTSTRAP=%s is not supported by this version of gshmem yet; unset it to start PEs with gshmrun "
        "(gshmrun -n N program), or run a single PE without a launcher",
        config.bootstrap.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  if (!under_gshmrun) {
    GSHMEM_INFO(kBootstrap, "bootstrap: single PE (no launcher environment found)");
    *out = make_single_bootstrap();
    return GSHMEM_SUCCESS;
  }
  std::vector<uint8_t> secret;
  if (!from_hex(config.run_secret, &secret) || secret.size() != 16) {
    GSHMEM_ERROR("GSHMEM_RUN_SECRET is missing or malformed (expected 32 hex digits); start PEs with gshmrun");
    return GSHMEM_ERROR_CONFIG;
  }
  if (config.run_size < 1 || config.run_rank < 0 || config.run_rank >= config.run_size) {
    GSHMEM_ERROR(
        "GSHMEM_RUN_RANK=%lld / GSHMEM_RUN_SIZE=%lld are not a valid rank and job size; start PEs with gshmrun",
        static_cast<long long>(config.run_rank), static_cast<long long>(config.run_size));
    return GSHMEM_ERROR_CONFIG;
  }
  GSHMEM_INFO(kBootstrap, "bootstrap: tcp through gshmrun at %s (GSHMEM_RUN_ROOT is set), rank %lld of %lld",
              config.run_root.c_str(), static_cast<long long>(config.run_rank),
              static_cast<long long>(config.run_size));
  return connect_tcp_bootstrap(config.run_root, secret.data(), static_cast<int>(config.run_rank),
                               static_cast<int>(config.run_size), config.bootstrap_timeout, out);
}

}  // namespace gshmem
