// Helpers for the GPU tests: skip without a GPU, check CUDA calls, bind the GPU the NVSHMEM way.
#pragma once

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "../mp/mp_test.h"

#define CUDA_CHECK(call)                                                                                  \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "PE %d: %s failed at %s:%d: %s\n", nvshmem_my_pe(), #call, __FILE__, __LINE__, \
                   cudaGetErrorString(e_));                                                               \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

#define KERNEL_CHECK()                   \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)

namespace gputest {

// Exit status 77 makes ctest report the test as skipped.
inline void skip_without_gpu() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no usable GPU: skipped\n");
    std::exit(77);
  }
}

// The usual NVSHMEM start: init, pick the GPU by node rank, then the first collective binds it.
inline void init_and_select_gpu() {
  skip_without_gpu();
  nvshmem_init();
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % n));
}

// Copies `n` bytes of device (or symmetric) memory to a new host vector.
inline std::vector<unsigned char> to_host(const void* dev, size_t n) {
  std::vector<unsigned char> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), dev, n, cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace gputest
