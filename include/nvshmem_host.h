/* gshmem's NVSHMEM host API only: no device functions, even under nvcc. */
#ifndef NVSHMEM_HOST_H_GSHMEM_
#define NVSHMEM_HOST_H_GSHMEM_

#ifndef GSHMEM_HOST_ONLY
#define GSHMEM_HOST_ONLY 1
#define GSHMEMI_UNDEF_HOST_ONLY 1
#endif
#include "gshmem/compat/nvshmem_api.h"
#ifdef GSHMEMI_UNDEF_HOST_ONLY
#undef GSHMEM_HOST_ONLY
#undef GSHMEMI_UNDEF_HOST_ONLY
#endif

#endif
