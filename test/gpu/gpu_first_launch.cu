// A kernel of the program launched for the first time on a stream that waits for a peer's signal.
//
// Each PE's stream waits (nvshmemx_signal_wait_until_on_stream) for the other PE's put with signal;
// then the PE launches, on the same stream, a kernel that has never run in the process, which checks
// the data. Across the network (NVSHMEM_DISABLE_P2P=1) the peer's put with signal comes from a thread
// of the peer 200 ms later, from host memory (no GPU work at the sender), and this PE's own network
// thread applies the data and the signal to its GPU while the main thread is in the launch. Under CUDA's
// lazy loading (CUDA_MODULE_LOADING=LAZY, its default since 12.2) that launch loads the kernel, which may
// wait for the GPU to be idle: the job must still finish, or end with a message that says why. Between
// PEs that map each other (the control) the peer writes this PE's heap itself, before the wait. A
// watchdog ends the PE after 60 s, naming where its main thread was.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "gpu_test.cuh"

namespace {

constexpr size_t kInts = 4096;
constexpr double kLimitS = 60;

__host__ __device__ int pattern(int pe, size_t i) {
  return static_cast<int>((static_cast<size_t>(pe) << 20) ^ (i * 2654435761u));
}

// Launched once, after the wait: counts the ints that differ from the sender's pattern.
__global__ void check_once(const int* data, size_t n, int from, int* wrong) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    if (data[i] != pattern(from, i)) atomicAdd(wrong, 1);
  }
}

std::atomic<const char*> g_where{"starting"};

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  const int me = nvshmem_my_pe(), peer = 1 - me;
  std::thread watchdog([] {
    std::this_thread::sleep_for(std::chrono::duration<double>(kLimitS));
    std::fprintf(stderr, "PE %d: FAIL: not done after %.0f s; the main thread was %s\n", nvshmem_my_pe(), kLimitS,
                 g_where.load());
    std::fflush(nullptr);
    std::_Exit(1);
  });
  watchdog.detach();

  auto* data = static_cast<int*>(nvshmem_malloc(kInts * sizeof(int)));
  auto* sig = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  MP_CHECK(data && sig, "nvshmem_malloc failed");
  int* wrong = nullptr;
  CUDA_CHECK(cudaMalloc(&wrong, sizeof(int)));
  CUDA_CHECK(cudaMemset(wrong, 0, sizeof(int)));
  std::vector<int> mine(kInts);
  for (size_t i = 0; i < kInts; ++i) mine[i] = pattern(me, i);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gputest::sync_and_barrier();

  auto send = [&] {
    nvshmem_putmem_signal(data, mine.data(), kInts * sizeof(int), sig, 1, NVSHMEM_SIGNAL_SET, peer);
    nvshmem_quiet();
  };
  const bool mapped = nvshmem_ptr(sig, peer) != nullptr;
  std::thread sender;
  if (mapped) {
    send();
  } else {
    sender = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      send();
    });
  }
  g_where = "in nvshmemx_signal_wait_until_on_stream";
  nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, 1, s);
  g_where = "launching a kernel for the first time on the stream that waits for the peer's signal";
  check_once<<<1, 256, 0, s>>>(data, kInts, peer, wrong);
  CUDA_CHECK(cudaGetLastError());
  g_where = "waiting for the stream";
  CUDA_CHECK(cudaStreamSynchronize(s));
  g_where = "joining the thread that sends to the peer";
  if (sender.joinable()) sender.join();
  int bad = -1;
  CUDA_CHECK(cudaMemcpy(&bad, wrong, sizeof bad, cudaMemcpyDeviceToHost));
  MP_CHECK(bad == 0, "%d of %zu ints from PE %d differ from what it sent", bad, kInts, peer);
  g_where = "in the final barrier";
  gputest::sync_and_barrier();
  if (me == 0) {
    std::printf("gpu_first_launch: the first launch after a wait for the peer's signal (%s) ran\n",
                mapped ? "mapped" : "across the network");
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(wrong));
  nvshmem_free(sig);
  nvshmem_free(data);
  nvshmem_finalize();
  return 0;
}
