// Passes file descriptors between the PEs of one node (SCM_RIGHTS over datagram sockets in the
// abstract namespace: no files are created, and the names vanish with the processes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/socket.h"

namespace gshmem {

class LocalFdExchange {
 public:
  // `job_key` keeps concurrent jobs apart; `node_pes` are the ranks on this node, in order.
  Status open(uint64_t job_key, int my_pe, const std::vector<int>& node_pes, double timeout_s);
  // Sends `fd` to every other PE of the node and receives each one's descriptor for the same
  // `tag`; (*fds)[i] is node_pes[i]'s descriptor (owned by the caller), -1 at this PE's index.
  // Collective over the node's PEs.
  Status exchange(uint64_t tag, int fd, std::vector<int>* fds);
  void close();

 private:
  std::string socket_name(int pe) const;

  Fd sock_;
  uint64_t job_key_ = 0;
  int my_pe_ = -1;
  std::vector<int> node_pes_;
  double timeout_s_ = 60;
  std::map<uint64_t, std::map<int, int>> early_;  // tag -> (pe -> fd) that arrived before we asked
};

}  // namespace gshmem
