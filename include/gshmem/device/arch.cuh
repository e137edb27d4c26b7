// The instructions of newer GPUs that device code may use, decided here once (the only device header that
// compares __CUDA_ARCH__).
//
//   GSHMEMI_HAVE_BULK_COPY   1 where the code is compiled for sm_90 or newer by CUDA 12 or newer (cp.async.bulk,
//                            mbarrier transaction counts, proxy fences: PTX ISA 8.0; the bulk-copy path of
//                            tma.cuh), 0 elsewhere
//
// The bitcode device library (GSHMEM_DEVICE_LIBRARY) is one compile, retargeted to every architecture it ships
// (devlib/CMakeLists.txt), so it uses none of them: kernels linked with it keep the ordinary copies.
#pragma once

#if defined(__CUDA_ARCH__) && !defined(GSHMEM_DEVICE_LIBRARY) && __CUDA_ARCH__ >= 900 && \
    defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
#define GSHMEMI_HAVE_BULK_COPY 1
#else
#define GSHMEMI_HAVE_BULK_COPY 0
#endif
