#include "heap/fd_exchange.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "util/log.h"

namespace gshmem {

namespace {
struct Message {
  uint64_t job_key;
  uint64_t tag;
  int32_t from_pe;
  int32_t pad;
};
}  // namespace

std::string LocalFdExchange::socket_name(int pe) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "gshmem-%016llx-%d", static_cast<unsigned long long>(job_key_), pe);
  return buf;
}

Status LocalFdExchange::open(uint64_t job_key, int my_pe, const std::vector<int>& node_pes, double timeout_s) {
  job_key_ = job_key;
  my_pe_ = my_pe;
  node_pes_ = node_pes;
  timeout_s_ = timeout_s;
  return unix_dgram_bind(socket_name(my_pe), &sock_);
}

void LocalFdExchange::close() {
  for (auto& tag : early_) {
    for (auto& kv : tag.second) ::close(kv.second);
  }
  early_.clear();
  sock_.reset();
}

Status LocalFdExchange::exchange(uint64_t tag, int fd, std::vector<int>* fds) {
  fds->assign(node_pes_.size(), -1);
  Deadline deadline = deadline_after(timeout_s_);
  Message m{job_key_, tag, my_pe_, 0};
  for (int pe : node_pes_) {
    if (pe == my_pe_) continue;
    Status s = unix_send_fd(sock_.get(), socket_name(pe), &m, sizeof m, fd, deadline);
    if (!ok(s)) {
      GSHMEM_ERROR("cannot pass heap memory to PE %d on this node: %s", pe,
                   s == GSHMEM_ERROR_PEER_GONE ? "it has no descriptor socket (it exited, or runs in another network "
                                                 "namespace or container)"
                                               : "its socket stayed full");
      return s;
    }
  }
  size_t missing = node_pes_.size() - 1;
  auto take = [&](int from, int got_fd) {
    for (size_t i = 0; i < node_pes_.size(); ++i) {
      if (node_pes_[i] == from && (*fds)[i] < 0) {
        (*fds)[i] = got_fd;
        --missing;
        return true;
      }
    }
    return false;
  };
  // Descriptors for this tag that arrived during an earlier exchange.
  auto early = early_.find(tag);
  if (early != early_.end()) {
    for (auto& kv : early->second) {
      if (!take(kv.first, kv.second)) ::close(kv.second);
    }
    early_.erase(early);
  }
  while (missing > 0) {
    Message in{};
    size_t got = 0;
    int got_fd = -1;
    Status s = unix_try_recv_fd(sock_.get(), &in, sizeof in, &got, &got_fd);
    if (s == GSHMEM_ERROR_TIMEOUT) {
      if (ms_until(deadline) == 0) {
        std::string who;
        for (size_t i = 0; i < node_pes_.size(); ++i) {
          if (node_pes_[i] != my_pe_ && (*fds)[i] < 0) who += (who.empty() ? "" : ", ") + std::to_string(node_pes_[i]);
        }
        GSHMEM_ERROR("PEs %s did not send their heap memory within %g s (GSHMEM_BOOTSTRAP_TIMEOUT)", who.c_str(),
                     timeout_s_);
        for (int& f : *fds) {
          if (f >= 0) ::close(f);
          f = -1;
        }
        return GSHMEM_ERROR_TIMEOUT;
      }
      pollfd p{sock_.get(), POLLIN, 0};
      ::poll(&p, 1, std::min(ms_until(deadline), 100));
      continue;
    }
    if (!ok(s)) return s;
    if (got != sizeof in || in.job_key != job_key_ || got_fd < 0) {
      if (got_fd >= 0) ::close(got_fd);
      continue;
    }
    if (in.tag == tag) {
      if (!take(in.from_pe, got_fd)) ::close(got_fd);
    } else {
      early_[in.tag][in.from_pe] = got_fd;
    }
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
