// Native device API: PE and team queries, version information.
#pragma once

#if defined(__CUDACC__)
#include "gshmem/constants.h"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {

// This PE's number in one of the predefined teams, or -1 (the team is not predefined, or this PE
// is not in it).
__device__ __forceinline__ int team_my_pe(int team) {
  const auto& st = gshmem::detail::state();
  switch (team) {
    case GSHMEM_TEAM_WORLD:
      return st.mype;
    case GSHMEM_TEAM_SHARED:
      return st.shared_mype;
    case GSHMEM_TEAM_NODE:
      return st.node_mype;
    case GSHMEM_TEAM_SAME_MYPE_NODE:
      return st.same_mype_node_mype;
    default:
      return -1;
  }
}
__device__ __forceinline__ int team_n_pes(int team) {
  const auto& st = gshmem::detail::state();
  switch (team) {
    case GSHMEM_TEAM_WORLD:
      return st.npes;
    case GSHMEM_TEAM_SHARED:
      return st.shared_npes;
    case GSHMEM_TEAM_NODE:
      return st.node_npes;
    case GSHMEM_TEAM_SAME_MYPE_NODE:
      return st.same_mype_node_npes;
    default:
      return -1;
  }
}

__device__ __forceinline__ void info_get_version(int* major, int* minor) {
  *major = GSHMEM_OPENSHMEM_MAJOR;
  *minor = GSHMEM_OPENSHMEM_MINOR;
}
__device__ __forceinline__ void info_get_name(char* name) {
  const char* s = GSHMEM_VENDOR_STRING;
  int i = 0;
  for (; s[i] != '\0' && i < GSHMEM_MAX_NAME_LEN - 1; ++i) name[i] = s[i];
  name[i] = '\0';
}
__device__ __forceinline__ void vendor_get_version_info(int* major, int* minor, int* patch) {
  *major = GSHMEM_NVSHMEM_API_MAJOR;
  *minor = GSHMEM_NVSHMEM_API_MINOR;
  *patch = GSHMEM_NVSHMEM_API_PATCH;
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
