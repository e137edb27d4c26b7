// The members of the predefined teams, from where every PE runs.
#pragma once

#include <cstdint>
#include <vector>

namespace gshmem {

// The world PEs of each predefined team of PE `me`, in team order, indexed by team id
// (GSHMEM_TEAM_WORLD, _SHARED, _NODE, _SAME_MYPE_NODE): `host_of_pe` names each PE's host (equal values:
// the same host). Without peer mapping (`disable_p2p`) the shared team is this PE alone.
std::vector<std::vector<int>> predefined_teams(int me, const std::vector<uint64_t>& host_of_pe, bool disable_p2p);

}  // namespace gshmem
