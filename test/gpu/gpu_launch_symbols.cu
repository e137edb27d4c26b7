// The exported C symbols nvshmemx_collective_launch and nvshmemx_collective_launch_query_gridsize (what a caller
// that reaches them by symbol gets: bindings, dlsym, code built against NVSHMEM's library ABI), looked up here with
// dlsym as such a caller would; gshmem's headers declare neither (their inline forms are gpu_collective_launch's).
// This program links the shared CUDA runtime, so that the library can ask it for a host function's kernel.
// Checked, for a kernel whose every block writes its mark here and on the peer:
// - query_gridsize returns the occupancy limit computed here independently, for a host function and a CUfunction;
// - a launch by host function (an all-zero grid: that limit; a 2-D grid) and by CUfunction (cudaGetFuncBySymbol)
//   runs every block exactly once, on the stream given, with the device API working in the kernel;
// - a grid one block too large, a grid mixing zero and non-zero sizes and a NULL kernel are refused with NVSHMEM's
//   codes, and nothing runs.
// The kernel does not wait for other blocks, so PEs that share a GPU (limited MPG) run it too.
#include <dlfcn.h>

#include <cstdint>
#include <vector>

#include "gpu_test.cuh"

namespace {

constexpr int kThreads = 64;

// dim3 passes by value as a struct of three unsigned ints, as the exported symbols take it.
using LaunchFn = int (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
using QueryFn = int (*)(const void*, dim3, void**, size_t, int*);

// mine: a device array of per-block marks; peer_marks: symmetric, the peer's blocks' marks arrive there.
__global__ void mark_blocks(int* mine, int* peer_marks, int tag, unsigned long long* runs) {
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0) {
    atomicAdd(mine + b, tag);
    nvshmem_int_p(peer_marks + b, tag, 1 - nvshmem_my_pe());
    if (b == 0) atomicAdd(runs, 1ull);
  }
}

template <class Fn>
Fn symbol(const char* name) {
  void* p = dlsym(RTLD_DEFAULT, name);
  MP_CHECK(p != nullptr, "libgshmem_host exports no %s (dlsym: %s)", name, dlerror());
  return reinterpret_cast<Fn>(p);
}

struct Ctx {
  int me = 0;
  int max_blocks = 0;
  int* mine = nullptr;        // device, max_blocks
  int* peer_marks = nullptr;  // symmetric, max_blocks
  unsigned long long* runs = nullptr;
  cudaStream_t stream = nullptr;
  LaunchFn launch = nullptr;
};

unsigned long long runs(const Ctx& c) {
  unsigned long long n = 0;
  CUDA_CHECK(cudaMemcpy(&n, c.runs, sizeof n, cudaMemcpyDeviceToHost));
  return n;
}

// A launch through the exported symbol that must run `blocks` blocks, each once, with `tag` as its mark.
void run_ok(Ctx& c, const void* func, dim3 grid, int blocks, int tag, const char* what) {
  CUDA_CHECK(cudaMemset(c.mine, 0, sizeof(int) * c.max_blocks));
  CUDA_CHECK(cudaMemset(c.peer_marks, 0, sizeof(int) * c.max_blocks));
  const unsigned long long before = runs(c);
  gputest::sync_and_barrier();
  int tag_arg = tag;
  void* args[] = {&c.mine, &c.peer_marks, &tag_arg, &c.runs};
  const int rc = c.launch(func, grid, dim3(kThreads), args, 0, c.stream);
  MP_CHECK(rc == NVSHMEMX_SUCCESS, "%s: nvshmemx_collective_launch returned %d", what, rc);
  CUDA_CHECK(cudaStreamSynchronize(c.stream));
  gputest::sync_and_barrier();  // the peer's kernel has marked this PE's peer_marks
  std::vector<int> mine(c.max_blocks), theirs(c.max_blocks);
  CUDA_CHECK(cudaMemcpy(mine.data(), c.mine, sizeof(int) * c.max_blocks, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(theirs.data(), c.peer_marks, sizeof(int) * c.max_blocks, cudaMemcpyDeviceToHost));
  for (int b = 0; b < c.max_blocks; ++b) {
    const int want = b < blocks ? tag : 0;
    MP_CHECK(mine[b] == want, "%s: block %d marked %d here, expected %d", what, b, mine[b], want);
    MP_CHECK(theirs[b] == want, "%s: the peer's block %d marked %d here, expected %d", what, b, theirs[b], want);
  }
  MP_CHECK(runs(c) == before + 1, "%s: the kernel ran %llu times", what, runs(c) - before);
  if (c.me == 0) std::printf("gpu_launch_symbols: %s: %d blocks ran once each\n", what, blocks);
}

void run_refused(Ctx& c, const void* func, dim3 grid, int expect_rc, const char* what) {
  const unsigned long long before = runs(c);
  void* args[] = {&c.mine, &c.peer_marks, nullptr, &c.runs};
  const int rc = c.launch(func, grid, dim3(kThreads), args, 0, c.stream);
  MP_CHECK(rc == expect_rc, "%s: nvshmemx_collective_launch returned %d, expected %d", what, rc, expect_rc);
  CUDA_CHECK(cudaStreamSynchronize(c.stream));
  MP_CHECK(runs(c) == before, "%s: refused, yet the kernel ran", what);
  gputest::sync_and_barrier();
  if (c.me == 0) std::printf("gpu_launch_symbols: %s: refused with %d\n", what, rc);
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  Ctx c;
  c.me = nvshmem_my_pe();
  c.launch = symbol<LaunchFn>("nvshmemx_collective_launch");
  const QueryFn query = symbol<QueryFn>("nvshmemx_collective_launch_query_gridsize");
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));

  const void* stub = reinterpret_cast<const void*>(mark_blocks);
  cudaFunction_t handle = nullptr;
  CUDA_CHECK(cudaGetFuncBySymbol(&handle, stub));
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mark_blocks, kThreads, 0));
  int by_stub = -1, by_handle = -1;
  MP_CHECK(query(stub, dim3(kThreads), nullptr, 0, &by_stub) == NVSHMEMX_SUCCESS, "query_gridsize (host function)");
  MP_CHECK(query(handle, dim3(kThreads), nullptr, 0, &by_handle) == NVSHMEMX_SUCCESS, "query_gridsize (CUfunction)");
  MP_CHECK(by_stub == per_sm * sms && by_handle == by_stub && by_stub > 0,
           "query_gridsize: %d blocks by host function, %d by CUfunction; %d fit per SM on %d SMs", by_stub, by_handle,
           per_sm, sms);
  MP_CHECK(query(nullptr, dim3(kThreads), nullptr, 0, &by_stub) == NVSHMEMX_ERROR_INVALID_VALUE,
           "query_gridsize of a NULL kernel must be NVSHMEMX_ERROR_INVALID_VALUE");
  c.max_blocks = per_sm * sms;
  if (c.me == 0) std::printf("gpu_launch_symbols: query_gridsize: %d blocks of %d threads\n", c.max_blocks, kThreads);

  CUDA_CHECK(cudaMalloc(&c.mine, sizeof(int) * c.max_blocks));
  CUDA_CHECK(cudaMalloc(&c.runs, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(c.runs, 0, sizeof(unsigned long long)));
  c.peer_marks = static_cast<int*>(nvshmem_malloc(sizeof(int) * c.max_blocks));
  MP_CHECK(c.peer_marks != nullptr, "nvshmem_malloc failed");

  run_ok(c, stub, dim3(0, 0, 0), c.max_blocks, 3, "host function, an all-zero grid (autosized)");
  run_ok(c, stub, dim3(2, 3, 1), 6, 5, "host function, a 2-D grid");
  run_ok(c, handle, dim3(c.max_blocks / 2 > 0 ? c.max_blocks / 2 : 1), c.max_blocks / 2 > 0 ? c.max_blocks / 2 : 1, 7,
         "CUfunction, half the grid");
  run_refused(c, stub, dim3(c.max_blocks + 1), NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED, "a grid one block too large");
  run_refused(c, handle, dim3(0, 1, 1), NVSHMEMX_ERROR_INVALID_VALUE, "a grid mixing zero and non-zero sizes");
  run_refused(c, nullptr, dim3(1), NVSHMEMX_ERROR_INVALID_VALUE, "a NULL kernel");
  run_ok(c, handle, dim3(0, 0, 0), c.max_blocks, 9, "CUfunction, an all-zero grid after the refusals");

  nvshmem_free(c.peer_marks);
  CUDA_CHECK(cudaFree(c.mine));
  CUDA_CHECK(cudaFree(c.runs));
  CUDA_CHECK(cudaStreamDestroy(c.stream));
  nvshmem_finalize();
  std::printf("gpu_launch_symbols: PE %d ok\n", c.me);
  return 0;
}
