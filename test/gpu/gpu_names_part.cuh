// One part of gpu_names (see gpu_names_parts.h); GSHMEMT_NAMES_PART is this part's number. Only the
// generated functions that this part's table names are compiled: the others are not referenced, and
// without relocatable device code they are dropped before ptxas.
#include "gen/rma_names.cuh"
#include "gpu_names_parts.h"
#include "gpu_test.cuh"

#ifndef GSHMEMT_NAMES_PART
#error "define GSHMEMT_NAMES_PART"
#endif

namespace {

__global__ void call_names(GshmemtRmaNamesFn fn, void* sym, const void* src, void* res, const void* peer_src, int pe) {
  fn(sym, src, res, peer_src, pe);
  nvshmem_quiet();
}

constexpr bool kHasSized = GSHMEMT_NAMES_PART == kGpuNamesParts - 1;

// This part's rows of the generated table (null elsewhere), in device memory so that the function
// pointers are device addresses.
#define GSHMEMT_PART_ENTRY(fn, row) ((row) % kGpuNamesParts == GSHMEMT_NAMES_PART ? fn : nullptr),
__device__ GshmemtRmaNamesFn d_table[] = {GSHMEMT_RMA_NAMES_EACH(GSHMEMT_PART_ENTRY)};
#undef GSHMEMT_PART_ENTRY

__device__ void sized_entry(void* a, const void* b, void* c, const void* d, int pe) {
  if constexpr (kHasSized) gshmemt_rma_names_sized(a, b, c, d, pe);
}
__device__ GshmemtRmaNamesFn d_sized = sized_entry;

bool run(int row, int rows, void* sym, const void* src, void* res, const void* peer_src, int pe) {
  GshmemtRmaNamesFn fn = nullptr;
  if (row == rows) {
    if constexpr (!kHasSized) {
      return false;
    } else {
      CUDA_CHECK(cudaMemcpyFromSymbol(&fn, d_sized, sizeof fn));
    }
  } else {
    if (row % kGpuNamesParts != GSHMEMT_NAMES_PART) return false;
    CUDA_CHECK(cudaMemcpyFromSymbol(&fn, d_table, sizeof fn, static_cast<size_t>(row) * sizeof fn));
  }
  call_names<<<1, 96>>>(fn, sym, src, res, peer_src, pe);
  KERNEL_CHECK();
  return true;
}

}  // namespace

#define GSHMEMT_CAT2(a, b) a##b
#define GSHMEMT_CAT(a, b) GSHMEMT_CAT2(a, b)
bool GSHMEMT_CAT(gpu_names_part, GSHMEMT_NAMES_PART)(int row, int rows, void* sym, const void* src, void* res,
                                                     const void* peer_src, int pe) {
  return run(row, rows, sym, src, res, peer_src, pe);
}
