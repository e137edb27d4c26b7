// The library's own kernels (the host atomics, the stores and the waits on a stream) launched for the first time in the
// process while a kernel of the program runs and waits for them. That is what happens when a peer's signal arrives over
// the network and is applied to this PE's heap while its stream waits for the signal. With CUDA's lazy loading
// (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) a kernel's first launch may wait for the context to be idle,
// which never comes while the other kernel spins: the library must have loaded its kernels before.
//
// One PE, one case per process (argv[1]: atomic, store, wait), so that the case's kernel has
// never run before: a kernel of the program spins on a flag in pinned host memory; a helper thread
// makes the library call; the call must return (and have done its work) while the kernel still
// spins. Only then does the test release the kernel.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include "gpu_test.cuh"

namespace {

constexpr double kLimitS = 30;

__global__ void spin_until_released(volatile int* started, volatile int* release) {
  *started = 1;
  __threadfence_system();
  while (*release == 0) {
  }
}

// Waits up to kLimitS for `done`.
bool wait_for(const std::atomic<bool>& done) {
  const auto start = std::chrono::steady_clock::now();
  while (!done.load()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(kLimitS)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  if (which != "atomic" && which != "store" && which != "wait") {
    std::fprintf(stderr, "usage: gpu_lazy_load atomic|store|wait (got \"%s\")\n", which.c_str());
    return 2;
  }
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 1, "run with 1 PE");
  const int me = nvshmem_my_pe();
  auto* word = static_cast<uint64_t*>(nvshmem_malloc(sizeof(uint64_t)));
  auto* value = static_cast<int*>(nvshmem_malloc(sizeof(int)));
  MP_CHECK(word && value, "nvshmem_malloc failed");
  const uint64_t initial = which == "wait" ? 7 : 0;  // the wait's condition holds already
  CUDA_CHECK(cudaMemcpy(word, &initial, sizeof initial, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(value, 0, sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());

  int* flags = nullptr;  // [0]: the kernel started, [1]: release it
  CUDA_CHECK(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  flags[0] = flags[1] = 0;
  int* dev_flags = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&dev_flags, flags, 0));
  cudaStream_t spinner, work;
  CUDA_CHECK(cudaStreamCreateWithFlags(&spinner, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));

  spin_until_released<<<1, 1, 0, spinner>>>(dev_flags, dev_flags + 1);
  CUDA_CHECK(cudaGetLastError());
  const auto start = std::chrono::steady_clock::now();
  while (__atomic_load_n(&flags[0], __ATOMIC_ACQUIRE) == 0) {
    MP_CHECK(std::chrono::steady_clock::now() - start < std::chrono::duration<double>(kLimitS),
             "the spinning kernel did not start within %.0f s", kLimitS);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  std::atomic<bool> done{false};
  std::thread helper([&] {
    if (which == "atomic") {
      nvshmem_uint64_atomic_set(word, 0x5eed, me);
    } else if (which == "store") {
      nvshmemx_int_p_on_stream(value, 42, me, work);
      CUDA_CHECK(cudaStreamSynchronize(work));
    } else {
      nvshmemx_signal_wait_until_on_stream(word, NVSHMEM_CMP_GE, 7, work);
      CUDA_CHECK(cudaStreamSynchronize(work));
    }
    done.store(true);
  });
  const bool returned = wait_for(done);
  const bool still_spinning = cudaStreamQuery(spinner) == cudaErrorNotReady;
  if (!returned) {
    std::fprintf(stderr,
                 "gpu_lazy_load: FAIL: %s: the library call did not return within %.0f s while a kernel of the program "
                 "ran (its kernel's first launch waited for the context to be idle: it was not loaded beforehand)\n",
                 which.c_str(), kLimitS);
    std::fflush(nullptr);
    std::_Exit(1);
  }
  helper.join();
  MP_CHECK(still_spinning, "%s: the program's kernel ended before it was released", which.c_str());
  __atomic_store_n(&flags[1], 1, __ATOMIC_RELEASE);
  CUDA_CHECK(cudaStreamSynchronize(spinner));

  if (which == "atomic") {
    const uint64_t got = nvshmem_uint64_g(word, me);
    MP_CHECK(got == 0x5eed, "atomic: the word is 0x%llx, expected 0x5eed", static_cast<unsigned long long>(got));
  } else if (which == "store") {
    const int got = nvshmem_int_g(value, me);
    MP_CHECK(got == 42, "store: the value is %d, expected 42", got);
  }
  std::printf("gpu_lazy_load: %s: the library's kernel ran while a kernel of the program was running\n", which.c_str());
  CUDA_CHECK(cudaStreamDestroy(spinner));
  CUDA_CHECK(cudaStreamDestroy(work));
  CUDA_CHECK(cudaFreeHost(flags));
  nvshmem_free(value);
  nvshmem_free(word);
  nvshmem_finalize();
  return 0;
}
