// A bootstrap for jobs started by a launcher (MPI, PMI, PMIx) or joined through a unique ID: the
// launcher (or the ID) only carries the address and secret of a TCP root; every collective then
// goes through that root, which names the PEs a stuck step waits for, the same way under every
// launcher. Rank 0 of a launcher job serves the root in a thread.
#include "bootstrap/launcher_bootstrap.h"

#include <cstring>

#include "bootstrap/bootstrap.h"
#include "bootstrap/hub_host.h"
#include "bootstrap/launcher.h"
#include "bootstrap/tcp_client.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {

// What rank 0 broadcasts through the launcher.
struct RootInfo {
  uint32_t magic;
  char address[96];
  uint8_t secret[16];
};
constexpr uint32_t kRootMagic = 0x52485347;  // "GSHR"

class LauncherBootstrap final : public Bootstrap {
 public:
  LauncherBootstrap(std::string name, std::unique_ptr<Launcher> launcher, std::unique_ptr<HubHost> hub,
                    std::unique_ptr<Bootstrap> tcp, double timeout_s)
      : name_(std::move(name)),
        launcher_(std::move(launcher)),
        hub_(std::move(hub)),
        tcp_(std::move(tcp)),
        timeout_s_(timeout_s) {
    if (hub_) hub_->set_local_rank(tcp_->rank());
  }
  const char* name() const override { return name_.c_str(); }
  int rank() const override { return tcp_->rank(); }
  int size() const override { return tcp_->size(); }
  Status allgather(const void* in, void* out, size_t bytes) override { return tcp_->allgather(in, out, bytes); }
  Status alltoall(const void* in, void* out, size_t bytes) override { return tcp_->alltoall(in, out, bytes); }
  Status barrier() override { return tcp_->barrier(); }
  Status broadcast(void* buf, size_t bytes, int root) override { return tcp_->broadcast(buf, bytes, root); }
  void abort_job(int code, const std::string& why) override {
    // The launcher can end every process; a unique-ID job has no launcher, only its root.
    if (launcher_) {
      launcher_->abort_job(code, why);
    } else {
      tcp_->abort_job(code, why);
      // The root ends with this process: let it pass the code on first.
      if (hub_) hub_->wait_abort_told(1);
    }
  }
  void set_peer_gone_handler(PeerGoneHandler handler) override { tcp_->set_peer_gone_handler(handler); }
  Status finished_pes(std::vector<int>* ranks) override { return tcp_->finished_pes(ranks); }
  void announce_exit(int code) override {
    tcp_->announce_exit(code);
    // The root dies with this process: let it tell the others first.
    if (hub_) hub_->wait_settled(tcp_->rank(), 0.5);
  }
  Status park() override {
    Status s = tcp_->park();
    // The launcher is needed only to find the root, and to end the job (which the root can do too): it is
    // let go now, as at nvshmem_finalize without sessions (an MPI library that gshmem started ends here).
    if (launcher_) {
      Status l = launcher_->finalize();
      launcher_.reset();
      if (ok(s)) s = l;
    }
    return s;
  }
  Status rejoin() override { return tcp_->rejoin(); }
  Status finalize() override {
    Status s = tcp_->finalize();
    // The root's process waits until every PE has left the root.
    if (hub_) hub_->finish(timeout_s_);
    if (launcher_) {
      Status l = launcher_->finalize();
      if (ok(s)) s = l;
    }
    return s;
  }

 private:
  std::string name_;
  std::unique_ptr<Launcher> launcher_;
  std::unique_ptr<HubHost> hub_;
  std::unique_ptr<Bootstrap> tcp_;
  double timeout_s_;
};

}  // namespace

Status make_launcher_bootstrap(const Config& config, std::unique_ptr<Launcher> launcher,
                               std::unique_ptr<Bootstrap>* out) {
  const int rank = launcher->rank(), size = launcher->size();
  RootInfo info{};
  std::unique_ptr<HubHost> hub;
  Status root_status = GSHMEM_SUCCESS;
  if (rank == 0) {
    hub = std::make_unique<HubHost>();
    root_status = hub->start(config, size);
    if (ok(root_status)) {
      info.magic = kRootMagic;
      std::snprintf(info.address, sizeof info.address, "%s", hub->address().c_str());
      std::memcpy(info.secret, hub->secret(), sizeof info.secret);
    }
  }
  // Rank 0 takes part in the broadcast even without a root, so that the others learn it at once.
  GSHMEM_CHECK(launcher->broadcast_root(&info, sizeof info, config.bootstrap_timeout));
  GSHMEM_CHECK(root_status);
  if (info.magic != kRootMagic) {
    GSHMEM_ERROR("%s: rank 0 could not start the bootstrap root (see its messages)", launcher->name().c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  std::unique_ptr<Bootstrap> tcp;
  const TcpJoin join(info.address, info.secret, rank, size, "PE 0's process, which serves it");
  GSHMEM_CHECK(connect_tcp_bootstrap(config, join, &tcp));
  std::string name = launcher->name();
  *out = std::make_unique<LauncherBootstrap>(name, std::move(launcher), std::move(hub), std::move(tcp),
                                             config.bootstrap_timeout);
  return GSHMEM_SUCCESS;
}

Status make_root_bootstrap(const Config& config, std::unique_ptr<HubHost> hub, std::unique_ptr<Bootstrap> tcp,
                           std::unique_ptr<Bootstrap>* out) {
  *out = std::make_unique<LauncherBootstrap>("unique ID", nullptr, std::move(hub), std::move(tcp),
                                             config.bootstrap_timeout);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
