/* gshmem's NVSHMEM-compatible API: host functions, and under nvcc the device functions.
 * Programs written for NVSHMEM include this unchanged. See include/gshmem/ for the native API. */
#ifndef NVSHMEM_H_GSHMEM_
#define NVSHMEM_H_GSHMEM_

#include "gshmem/compat/nvshmem_api.h"

#endif
