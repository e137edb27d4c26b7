#include "util/netif.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "util/log.h"

namespace gshmem {

std::vector<NetInterface> list_interfaces(int family) {
  std::vector<NetInterface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
    int f = i->ifa_addr->sa_family;
    if (f != AF_INET && f != AF_INET6) continue;
    if (family != AF_UNSPEC && f != family) continue;
    char buf[INET6_ADDRSTRLEN] = "";
    if (f == AF_INET) {
      inet_ntop(f, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    } else {
      auto* a6 = reinterpret_cast<sockaddr_in6*>(i->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)) continue;  // needs a scope id to be reachable
      inet_ntop(f, &a6->sin6_addr, buf, sizeof buf);
    }
    out.push_back({i->ifa_name, buf, f, (i->ifa_flags & IFF_LOOPBACK) != 0});
  }
  freeifaddrs(list);
  return out;
}

Status pick_interface(const std::string& ifname, int family, NetInterface* out) {
  std::vector<NetInterface> all = list_interfaces(family);
  if (!ifname.empty()) {
    for (const NetInterface& n : all) {
      if (n.name.compare(0, ifname.size(), ifname) == 0) {
        *out = n;
        return GSHMEM_SUCCESS;
      }
    }
    std::string names;
    for (const NetInterface& n : all) names += (names.empty() ? "" : ", ") + n.name + " (" + n.address + ")";
    GSHMEM_ERROR(
        "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=%s matches no interface that is up with an %s address; there are: %s",
        ifname.c_str(), family == AF_INET6 ? "IPv6" : "IPv4", names.empty() ? "none" : names.c_str());
    return GSHMEM_ERROR_CONFIG;
  }
  for (const NetInterface& n : all) {
    if (!n.loopback) {
      *out = n;
      return GSHMEM_SUCCESS;
    }
  }
  for (const NetInterface& n : all) {
    *out = n;
    return GSHMEM_SUCCESS;
  }
  GSHMEM_ERROR("no network interface is up with an %s address", family == AF_INET6 ? "IPv6" : "IPv4");
  return GSHMEM_ERROR_BOOTSTRAP;
}

std::string format_address(const NetInterface& nif, int port) {
  return (nif.family == AF_INET6 ? "[" + nif.address + "]" : nif.address) + ":" + std::to_string(port);
}

}  // namespace gshmem
