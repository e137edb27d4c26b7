// Passes file descriptors between the PEs of one node (SCM_RIGHTS over datagram sockets in the
// abstract namespace: no files are created, and the names vanish with the processes).
//
// The socket names are visible to every user of the network namespace, so a receiver accepts a
// descriptor only if the message carries the job's token (which travelled through the
// authenticated bootstrap, never through a name) and comes from the process id of the PE it
// claims to be from.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/log.h"
#include "util/socket.h"

namespace gshmem {

class LocalFdExchange {
 public:
  // `name_key` names the sockets; `token` authenticates messages; `node_pes` are the ranks on
  // this node, in order, and `node_pids` their process ids.
  Status open(uint64_t name_key, uint64_t token, int my_pe, const std::vector<int>& node_pes,
              const std::vector<int>& node_pids, double timeout_s);
  // Sends `fd` to every other PE of the node and receives each one's descriptor for the same
  // `tag`; (*fds)[i] is node_pes[i]'s descriptor (owned by the caller), -1 at this PE's index.
  // Collective over the node's PEs. Sending and receiving interleave, so that full socket queues
  // cannot deadlock a large node.
  Status exchange(uint64_t tag, int fd, std::vector<int>* fds);
  void close();

 private:
  std::string socket_name(int pe) const;
  // Receives what is queued; descriptors for `tag` go to `fds`, later ones to early_.
  Status drain(uint64_t tag, std::vector<int>* fds, size_t* missing);

  Fd sock_;
  uint64_t name_key_ = 0;
  uint64_t token_ = 0;
  int my_pe_ = -1;
  std::vector<int> node_pes_;
  std::vector<int> node_pids_;
  double timeout_s_ = 60;
  std::map<uint64_t, std::map<int, int>> early_;  // tag -> (pe -> fd) that arrived before we asked
  log::RateLimit stray_log_;                      // datagrams from strangers
};

}  // namespace gshmem
