#include "heap/fd_exchange.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "util/log.h"

namespace gshmem {

namespace {
struct Message {
  uint64_t token;
  uint64_t tag;
  int32_t from_pe;
  int32_t pad;
};
// A peer is at most one exchange ahead; anything further is not kept.
constexpr uint64_t kMaxTagsAhead = 2;
}  // namespace

std::string LocalFdExchange::socket_name(int pe) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "gshmem-%016llx-%d", static_cast<unsigned long long>(name_key_), pe);
  return buf;
}

Status LocalFdExchange::open(uint64_t name_key, uint64_t token, int my_pe, const std::vector<int>& node_pes,
                             const std::vector<int>& node_pids, double timeout_s) {
  name_key_ = name_key;
  token_ = token;
  my_pe_ = my_pe;
  node_pes_ = node_pes;
  node_pids_ = node_pids;
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

Status LocalFdExchange::drain(uint64_t tag, std::vector<int>* fds, size_t* missing) {
  while (true) {
    Message in{};
    size_t got = 0;
    int fd = -1, pid = -1;
    Status s = unix_try_recv_fd(sock_.get(), &in, sizeof in, &got, &fd, &pid);
    if (s == GSHMEM_ERROR_TIMEOUT) return GSHMEM_SUCCESS;
    GSHMEM_CHECK(s);
    size_t idx = std::find(node_pes_.begin(), node_pes_.end(), in.from_pe) - node_pes_.begin();
    const bool genuine = got == sizeof in && fd >= 0 && in.token == token_ && idx < node_pes_.size() &&
                         in.from_pe != my_pe_ && node_pids_[idx] == pid;
    if (!genuine) {
      if (fd >= 0) ::close(fd);
      uint64_t left_out = 0;
      if (stray_log_.allow(&left_out)) {
        GSHMEM_WARN(kMem, "ignored a heap descriptor that does not come from a PE of this job (process %d)%s", pid,
                    left_out ? log::format(" (and %llu more since the last such message)",
                                           static_cast<unsigned long long>(left_out))
                                   .c_str()
                             : "");
      }
      continue;
    }
    if (in.tag == tag && (*fds)[idx] < 0) {
      (*fds)[idx] = fd;
      --*missing;
    } else if (in.tag > tag && in.tag <= tag + kMaxTagsAhead && !early_[in.tag].count(in.from_pe)) {
      early_[in.tag][in.from_pe] = fd;
    } else {
      ::close(fd);
    }
  }
}

Status LocalFdExchange::exchange(uint64_t tag, int fd, std::vector<int>* fds) {
  fds->assign(node_pes_.size(), -1);
  Deadline deadline = deadline_after(timeout_s_);
  size_t missing = node_pes_.size() - 1;
  // Descriptors for this tag that arrived during an earlier exchange.
  auto early = early_.find(tag);
  if (early != early_.end()) {
    for (auto& kv : early->second) {
      size_t idx = std::find(node_pes_.begin(), node_pes_.end(), kv.first) - node_pes_.begin();
      (*fds)[idx] = kv.second;
      --missing;
    }
    early_.erase(early);
  }
  std::set<int> unsent;
  for (int pe : node_pes_) {
    if (pe != my_pe_) unsent.insert(pe);
  }
  const Message m{token_, tag, my_pe_, 0};
  auto fail = [&](Status s) {
    for (int& f : *fds) {
      if (f >= 0) ::close(f);
      f = -1;
    }
    return s;
  };
  while (!unsent.empty() || missing > 0) {
    for (auto it = unsent.begin(); it != unsent.end();) {
      Status s = unix_try_send_fd(sock_.get(), socket_name(*it), &m, sizeof m, fd);
      if (ok(s)) {
        it = unsent.erase(it);
      } else if (s == GSHMEM_ERROR_TIMEOUT) {
        ++it;
      } else {
        return fail(s);
      }
    }
    Status s = drain(tag, fds, &missing);
    if (!ok(s)) return fail(s);
    if (unsent.empty() && missing == 0) break;
    if (ms_until(deadline) == 0) {
      std::string silent, unreachable;
      for (size_t i = 0; i < node_pes_.size(); ++i) {
        if (node_pes_[i] != my_pe_ && (*fds)[i] < 0)
          silent += (silent.empty() ? "" : ", ") + std::to_string(node_pes_[i]);
      }
      for (int pe : unsent) unreachable += (unreachable.empty() ? "" : ", ") + std::to_string(pe);
      GSHMEM_ERROR(
          "the heap exchange between the PEs of this node did not complete within %g s "
          "(GSHMEM_BOOTSTRAP_TIMEOUT): %s%s%s%s",
          timeout_s_, silent.empty() ? "" : ("PEs " + silent + " sent nothing").c_str(),
          (!silent.empty() && !unreachable.empty()) ? "; " : "",
          unreachable.empty() ? "" : ("PEs " + unreachable + " could not be reached").c_str(),
          unreachable.empty() ? "" : " (they exited, or run in another network namespace or container)");
      return fail(GSHMEM_ERROR_TIMEOUT);
    }
    pollfd p{sock_.get(), POLLIN, 0};
    ::poll(&p, 1, std::min(ms_until(deadline), 2));
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
