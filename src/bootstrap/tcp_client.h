#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "bootstrap/bootstrap.h"

namespace gshmem {

struct Config;

// How a PE joins a job's TCP root.
struct TcpJoin {
  TcpJoin() = default;
  TcpJoin(std::string root_, const uint8_t* secret_, int rank_, int size_, std::string owner)
      : root(std::move(root_)), secret(secret_), rank(rank_), size(size_), root_owner(std::move(owner)) {}
  std::string root;                 // "host:port" of the hub
  const uint8_t* secret = nullptr;  // 16 bytes
  int rank = -1;
  int size = -1;
  bool supervised = false;  // a launcher (gshmrun) ends every PE when one aborts
  std::string root_owner;   // who serves the root, for messages ("gshmrun", "PE 0's process")
};

// Joins the job whose hub listens at `join.root`, proving the secret. Steps wait up to
// GSHMEM_BOOTSTRAP_TIMEOUT; a root that stops answering counts as lost after GSHMEM_PEER_TIMEOUT.
Status connect_tcp_bootstrap(const Config& config, const TcpJoin& join, std::unique_ptr<Bootstrap>* out);

}  // namespace gshmem
