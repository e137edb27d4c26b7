/* The one status enum of gshmem. Usable from C and C++.
 *
 * The first values equal NVSHMEM's nvshmemx_status codes, so a status can be returned unchanged
 * from an nvshmemx_* entry point. Values from GSHMEM_ERROR_BOOTSTRAP on are gshmem's own; the
 * compat layer maps them to NVSHMEMX_ERROR_INTERNAL where NVSHMEM has no code. */
#ifndef GSHMEM_STATUS_H_
#define GSHMEM_STATUS_H_

#include "gshmem/detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gshmem_status {
  GSHMEM_SUCCESS = 0,
  GSHMEM_ERROR_INVALID_VALUE = 1,
  GSHMEM_ERROR_OUT_OF_MEMORY = 2,
  GSHMEM_ERROR_NOT_SUPPORTED = 3,
  GSHMEM_ERROR_SYMMETRY = 4,
  GSHMEM_ERROR_GPU_NOT_SELECTED = 5,
  GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED = 6,
  GSHMEM_ERROR_INTERNAL = 7,
  /* gshmem's own codes */
  GSHMEM_ERROR_BOOTSTRAP = 8,  /* the bootstrap could not exchange data between PEs */
  GSHMEM_ERROR_TIMEOUT = 9,    /* a step waited longer than its configured limit */
  GSHMEM_ERROR_PEER_GONE = 10, /* another PE exited or crashed */
  GSHMEM_ERROR_CONFIG = 11,    /* a setting has a malformed value */
  GSHMEM_ERROR_CUDA = 12,      /* a CUDA driver call failed */
  GSHMEM_ERROR_SYSTEM = 13,    /* an operating-system call failed */
  GSHMEM_ERROR_STATE = 14      /* the call is not valid in the library's current state */
} gshmem_status_t;

/* A short, stable name of a status ("GSHMEM_ERROR_TIMEOUT"). Never NULL. */
GSHMEM_API const char *gshmem_status_string(gshmem_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_STATUS_H_ */
