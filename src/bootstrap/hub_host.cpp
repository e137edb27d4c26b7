#include "bootstrap/hub_host.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "util/config.h"
#include "util/log.h"
#include "util/netif.h"

namespace gshmem {

HubHost::~HubHost() {
  if (hub_) hub_->stop();
  if (thread_.joinable()) thread_.join();
}

Status HubHost::start(const Config& config, int size) {
  const int family = config.bootstrap_uid_sock_family == "AF_INET6" ? AF_INET6 : AF_INET;
  NetInterface nif;
  GSHMEM_CHECK(pick_interface(config.bootstrap_uid_sock_ifname, family, &nif));
  Fd fd;
  int port = 0;
  GSHMEM_CHECK(tcp_listen(family == AF_INET6 ? "::" : "", 0, &fd, &port));
  options_.size = size;
  options_.timeout_s = config.bootstrap_timeout;
  GSHMEM_CHECK(random_bytes(options_.secret, sizeof options_.secret));
  address_ = format_address(nif, port);
  hub_ = std::make_unique<TcpHub>(std::move(fd), options_, nullptr);
  thread_ = std::thread([this] { hub_->run(); });
  GSHMEM_INFO(kBootstrap, "bootstrap root listening at %s (interface %s)", address_.c_str(), nif.name.c_str());
  return GSHMEM_SUCCESS;
}

void HubHost::finish(double timeout_s) {
  if (!hub_) return;
  Deadline d = deadline_after(timeout_s);
  Deadline warn = deadline_after(std::min(5.0, timeout_s / 2));
  bool warned = false;
  while (!hub_->none_active() && ms_until(d) > 0) {
    if (!warned && ms_until(warn) <= 0) {
      warned = true;
      std::string pes;
      for (int r : hub_->active_pes()) pes += (pes.empty() ? "" : ", ") + std::to_string(r);
      GSHMEM_WARN(kBootstrap,
                  "this process serves the job's bootstrap root and waits for PEs %s, still in their session, to "
                  "call nvshmem_finalize before it ends (at most %g s, GSHMEM_BOOTSTRAP_TIMEOUT)",
                  pes.c_str(), timeout_s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  hub_->stop();
  if (thread_.joinable()) thread_.join();
}

void HubHost::wait_abort_told(double timeout_s) {
  if (!hub_) return;
  Deadline d = deadline_after(timeout_s);
  while (!hub_->abort_told() && ms_until(d) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void HubHost::wait_settled(int rank, double timeout_s) {
  if (!hub_) return;
  Deadline d = deadline_after(timeout_s);
  while (!hub_->settled(rank) && ms_until(d) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace gshmem
