#include "util/status.h"

extern "C" const char* gshmem_status_string(gshmem_status_t status) {
  switch (status) {
    case GSHMEM_SUCCESS:
      return "GSHMEM_SUCCESS";
    case GSHMEM_ERROR_INVALID_VALUE:
      return "GSHMEM_ERROR_INVALID_VALUE";
    case GSHMEM_ERROR_OUT_OF_MEMORY:
      return "GSHMEM_ERROR_OUT_OF_MEMORY";
    case GSHMEM_ERROR_NOT_SUPPORTED:
      return "GSHMEM_ERROR_NOT_SUPPORTED";
    case GSHMEM_ERROR_SYMMETRY:
      return "GSHMEM_ERROR_SYMMETRY";
    case GSHMEM_ERROR_GPU_NOT_SELECTED:
      return "GSHMEM_ERROR_GPU_NOT_SELECTED";
    case GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED:
      return "GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED";
    case GSHMEM_ERROR_INTERNAL:
      return "GSHMEM_ERROR_INTERNAL";
    case GSHMEM_ERROR_BOOTSTRAP:
      return "GSHMEM_ERROR_BOOTSTRAP";
    case GSHMEM_ERROR_TIMEOUT:
      return "GSHMEM_ERROR_TIMEOUT";
    case GSHMEM_ERROR_PEER_GONE:
      return "GSHMEM_ERROR_PEER_GONE";
    case GSHMEM_ERROR_CONFIG:
      return "GSHMEM_ERROR_CONFIG";
    case GSHMEM_ERROR_CUDA:
      return "GSHMEM_ERROR_CUDA";
    case GSHMEM_ERROR_SYSTEM:
      return "GSHMEM_ERROR_SYSTEM";
    case GSHMEM_ERROR_STATE:
      return "GSHMEM_ERROR_STATE";
  }
  return "GSHMEM_ERROR_UNKNOWN";
}
