// Exits 0 when a GPU can be used, 77 otherwise (for tests that must be skipped without one).
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  return 0;
}
