// Launchers reached through a bootstrap plugin (include/gshmem/plugin/bootstrap_v1.h): MPI, PMIx,
// or one the user names with NVSHMEM_BOOTSTRAP=plugin.
#include <dlfcn.h>

#include <string>

#include "bootstrap/launcher.h"
#include "gshmem/plugin/bootstrap_v1.h"
#include "util/log.h"
#include "util/plugin_loader.h"

namespace gshmem {
namespace {

class PluginLauncher final : public Launcher {
 public:
  PluginLauncher(void* handle, const gshmem_bootstrap_plugin_v1_t& p) : handle_(handle), p_(p) {}
  std::string name() const override { return p_.name ? p_.name : "plugin"; }
  int rank() const override { return p_.rank; }
  int size() const override { return p_.size; }
  Status broadcast_root(void* buf, size_t bytes, double timeout_s) override {
    char why[512] = "";
    if (p_.broadcast_root(&p_, buf, bytes, timeout_s, why, sizeof why) == 0) return GSHMEM_SUCCESS;
    GSHMEM_ERROR("%s bootstrap: %s", name().c_str(), why[0] ? why : "the broadcast failed");
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  void abort_job(int code, const std::string& why) override { p_.abort_job(&p_, code, why.c_str()); }
  Status finalize() override {
    // The plugin library stays loaded: the launcher's library may have exit handlers in it.
    return p_.finalize(&p_) == 0 ? GSHMEM_SUCCESS : GSHMEM_ERROR_BOOTSTRAP;
  }

 private:
  void* handle_;
  gshmem_bootstrap_plugin_v1_t p_;
};

}  // namespace

Status make_plugin_launcher(const std::string& path, void* arg, const std::string& what,
                            std::unique_ptr<Launcher>* out) {
  std::string errors;
  void* handle = open_plugin_library(path, &errors);
  if (!handle) {
    GSHMEM_ERROR("%s: cannot load the bootstrap plugin %s: %s", what.c_str(), path.c_str(), errors.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  auto init = reinterpret_cast<gshmem_bootstrap_plugin_init_fn>(dlsym(handle, GSHMEM_BOOTSTRAP_PLUGIN_INIT_SYMBOL));
  if (!init) {
    GSHMEM_ERROR("%s: %s is not a gshmem bootstrap plugin (it has no %s)", what.c_str(), path.c_str(),
                 GSHMEM_BOOTSTRAP_PLUGIN_INIT_SYMBOL);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  gshmem_bootstrap_plugin_v1_t p{};
  char why[512] = "";
  if (init(arg, &p, GSHMEM_BOOTSTRAP_PLUGIN_ABI, why, sizeof why) != 0) {
    GSHMEM_ERROR("%s: the bootstrap plugin %s could not start: %s", what.c_str(), path.c_str(),
                 why[0] ? why : "no reason given");
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  if (p.abi_version != GSHMEM_BOOTSTRAP_PLUGIN_ABI || !p.broadcast_root || !p.abort_job || !p.finalize || p.size < 1 ||
      p.rank < 0 || p.rank >= p.size) {
    GSHMEM_ERROR("%s: the bootstrap plugin %s speaks ABI %u (gshmem speaks %d) or gave rank %d of %d", what.c_str(),
                 path.c_str(), p.abi_version, GSHMEM_BOOTSTRAP_PLUGIN_ABI, p.rank, p.size);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  *out = std::make_unique<PluginLauncher>(handle, p);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
