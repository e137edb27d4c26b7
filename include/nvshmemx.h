/* gshmem's NVSHMEM extensions (nvshmemx_*): everything of nvshmem.h, which declares them all. */
#ifndef NVSHMEMX_H_GSHMEM_
#define NVSHMEMX_H_GSHMEM_

#include "nvshmem.h"

#endif
