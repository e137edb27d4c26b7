/* gshmem's NVSHMEM-compatible API: host functions, and under nvcc the device functions.
 * Programs written for NVSHMEM include this unchanged. See include/gshmem/ for the native API. */
#ifndef NVSHMEM_H_GSHMEM_
#define NVSHMEM_H_GSHMEM_

#include "gshmem/compat/nvshmem_api.h"
/* NVSHMEM's umbrella headers bring in its error codes and error-check macros, which programs (its own
 * perftests' helpers among them) use after including only nvshmem.h and nvshmemx.h. */
#include "non_abi/nvshmemx_error.h"

#endif
