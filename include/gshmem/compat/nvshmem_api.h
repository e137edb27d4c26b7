/* The NVSHMEM API of gshmem: types, host declarations and (under nvcc) the device API.
 * nvshmem.h, nvshmemx.h and nvshmem_host.h include this; it has no logic of its own. */
#ifndef GSHMEM_COMPAT_NVSHMEM_API_H_
#define GSHMEM_COMPAT_NVSHMEM_API_H_

/* NVSHMEM's headers bring in assert(); programs written for it (its own examples too) rely on that. */
#include <assert.h>

#include "gshmem/compat/collective_launch.h"
#include "gshmem/compat/gen/nvshmem_host.h"
#include "gshmem/compat/nvshmem_types.h"

/* OpenSHMEM's name of the team sync. */
#define nvshmem_sync nvshmem_team_sync

#if defined(__CUDACC__) && !defined(GSHMEM_HOST_ONLY)
#include "gshmem/compat/gen/nvshmem_device.cuh"
#include "gshmem/device/device.cuh"
#endif

#endif /* GSHMEM_COMPAT_NVSHMEM_API_H_ */
