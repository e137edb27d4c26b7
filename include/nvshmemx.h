/* gshmem's NVSHMEM extensions (nvshmemx_*): everything of nvshmem.h, which declares them all. */
#ifndef NVSHMEMX_H_GSHMEM_
#define NVSHMEMX_H_GSHMEM_

#include "nvshmem.h"
/* The tile API (C++ templates in namespace nvshmemx), in CUDA C++17 translation units as NVSHMEM 3.8 has it.
 * libcu++'s tuple adds to the compile time of every translation unit (docs/figures.md): a program that does not
 * use the tile API may define GSHMEM_NO_TILE_API. */
#if defined(__cplusplus) && defined(__CUDACC__) && __cplusplus >= 201703L && !defined(GSHMEM_NO_TILE_API)
#include "gshmem/compat/tile.cuh"
#endif

#endif
