// Network interfaces: which address a bootstrap root publishes for other hosts to reach it.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace gshmem {

struct NetInterface {
  std::string name;
  std::string address;  // numeric, without brackets
  int family;           // AF_INET or AF_INET6
  bool loopback;
};

// The interfaces that are up and have an address of `family` (AF_INET, AF_INET6, or AF_UNSPEC for
// both), in the order the system lists them.
std::vector<NetInterface> list_interfaces(int family);

// Picks the interface a root listens on and publishes: the first whose name starts with `ifname`
// when it is not empty, else the first non-loopback one, else loopback. Fails with a message that
// lists the interfaces when `ifname` matches none.
Status pick_interface(const std::string& ifname, int family, NetInterface* out);

// "a.b.c.d:port" or "[v6]:port".
std::string format_address(const NetInterface& nif, int port);

}  // namespace gshmem
