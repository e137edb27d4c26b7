#include "team/predefined.h"

#include <algorithm>

#include "gshmem/constants.h"

namespace gshmem {

std::vector<std::vector<int>> predefined_teams(int me, const std::vector<uint64_t>& host_of_pe, bool disable_p2p) {
  const int n = static_cast<int>(host_of_pe.size());
  std::vector<std::vector<int>> teams(GSHMEM_TEAM_SAME_MYPE_NODE + 1);
  auto on_host = [&](uint64_t host) {
    std::vector<int> pes;
    for (int q = 0; q < n; ++q) {
      if (host_of_pe[static_cast<size_t>(q)] == host) pes.push_back(q);
    }
    return pes;
  };
  for (int pe = 0; pe < n; ++pe) teams[GSHMEM_TEAM_WORLD].push_back(pe);
  const std::vector<int> node = on_host(host_of_pe[static_cast<size_t>(me)]);
  teams[GSHMEM_TEAM_NODE] = node;
  // The PEs whose heaps this PE maps: the node, unless peer mapping is disabled.
  teams[GSHMEM_TEAM_SHARED] = disable_p2p ? std::vector<int>{me} : node;
  // One PE per node: those with the same index in their node as this PE, nodes in the order of their
  // lowest PE.
  const size_t my_index = static_cast<size_t>(std::find(node.begin(), node.end(), me) - node.begin());
  std::vector<uint64_t> seen;
  for (int pe = 0; pe < n; ++pe) {
    const uint64_t host = host_of_pe[static_cast<size_t>(pe)];
    if (std::find(seen.begin(), seen.end(), host) != seen.end()) continue;
    seen.push_back(host);
    const std::vector<int> on = on_host(host);
    if (my_index < on.size()) teams[GSHMEM_TEAM_SAME_MYPE_NODE].push_back(on[my_index]);
  }
  return teams;
}

}  // namespace gshmem
