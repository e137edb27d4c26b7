// A kernel puts a block to the next PE, with every thread of the block taking part.
// Builds with plain nvcc, no -rdc:
//   nvcc -arch=sm_90 ring.cu -I<gshmem>/include -L<gshmem>/lib -lgshmem_host -o ring
//   gshmrun -n 2 ./ring
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e = (call);                                                                      \
    if (e != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

constexpr int kCount = 1 << 20;

__global__ void fill(int* src, int me) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kCount; i += gridDim.x * blockDim.x) src[i] = me * kCount + i;
}

__global__ void ring_put(int* dst, const int* src) {
  const int next = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  nvshmemx_int_put_block(dst, src, kCount, next);  // all threads of the block move the data
  if (threadIdx.x == 0) nvshmem_quiet();
}

int main() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  nvshmem_init();
  CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % ndev));
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  int* dst = static_cast<int*>(nvshmem_malloc(kCount * sizeof(int)));
  int* src = static_cast<int*>(nvshmem_malloc(kCount * sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  fill<<<64, 256, 0, stream>>>(src, me);
  ring_put<<<1, 1024, 0, stream>>>(dst, src);
  nvshmemx_barrier_all_on_stream(stream);  // every PE's put has landed
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaGetLastError());
  int* host = static_cast<int*>(std::malloc(kCount * sizeof(int)));
  CHECK(cudaMemcpy(host, dst, kCount * sizeof(int), cudaMemcpyDeviceToHost));
  const int prev = (me + npes - 1) % npes;
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += host[i] != prev * kCount + i;
  std::printf("PE %d: %d values from PE %d, %s\n", me, kCount, prev, wrong ? "WRONG" : "ok");
  std::free(host);
  CHECK(cudaStreamDestroy(stream));
  nvshmem_free(src);
  nvshmem_free(dst);
  nvshmem_finalize();
  return wrong ? 1 : 0;
}
