// Native device API: version information (the team queries are in team.cuh).
#pragma once

#if defined(__CUDACC__)
#include "gshmem/constants.h"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {

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
