// Memory-ordering litmus tests across two GPUs. Each round, PE 0 writes a block of data to PE 1,
// orders it (quiet or fence), then raises a flag; PE 1 waits for the flag and checks that every
// word of the data belongs to the round. Without the ordering, the flag (stored by one thread
// right after the block's stores) routinely overtakes the data of other threads.
#include <cstdint>

#include "gpu_test.cuh"

namespace {

constexpr int kWords = 16384;  // 128 KiB per round
constexpr int kRounds = 2000;
constexpr int kThreads = 512;  // each kernel's one block

enum Mode { kQuiet, kFence, kPutThenP };

__device__ __forceinline__ void wait_for(uint64_t* flag, uint64_t value) {
  while (gshmem::detail::load_acquire_sys(flag) < value) {
  }
}

// PE 0: the writer. `words` (at most kWords) per round, `rounds` rounds.
__global__ void writer(int mode, uint64_t* data, uint64_t* flag, uint64_t* ack, int peer, int words, int rounds) {
  for (uint64_t r = 1; r <= static_cast<uint64_t>(rounds); ++r) {
    // The reader has checked the previous round.
    if (threadIdx.x == 0) wait_for(ack, r - 1);
    __syncthreads();
    for (int i = threadIdx.x; i < words; i += blockDim.x) {
      uint64_t v = (r << 32) | static_cast<uint64_t>(i);
      if (mode == kPutThenP) {
        data[i] = v;  // local staging, then one block-scope put
      } else {
        nvshmem_uint64_p(data + i, v, peer);
      }
    }
    if (mode == kPutThenP) {
      __syncthreads();
      nvshmemx_uint64_put_block(data, data, words, peer);  // dest and source are the same symmetric offset
    }
    // Each thread orders its own stores before the flag; the block barrier then orders all of
    // them before thread 0's flag store.
    if (mode == kFence) {
      nvshmem_fence();
    } else {
      nvshmem_quiet();
    }
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_uint64_p(flag, r, peer);
  }
}

// PE 1: the reader. Counts the words that are not from the round the flag announced (the writer's
// `words` and `rounds`).
__global__ void reader(uint64_t* data, uint64_t* flag, uint64_t* ack, int peer, unsigned long long* errors, int words,
                       int rounds) {
  for (uint64_t r = 1; r <= static_cast<uint64_t>(rounds); ++r) {
    if (threadIdx.x == 0) wait_for(flag, r);
    __syncthreads();
    for (int i = threadIdx.x; i < words; i += blockDim.x) {
      uint64_t v = *reinterpret_cast<volatile uint64_t*>(data + i);
      if ((v >> 32) != r) atomicAdd(errors, 1ull);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      nvshmem_quiet();
      nvshmem_uint64_p(ack, r, peer);
    }
  }
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  MP_CHECK(npes == 2, "run with 2 PEs");
  // Under the network scale (gputest::net_scale) every p of the quiet and fence modes is a network round
  // trip, and there are words x rounds of them (32 M unscaled; divided once by 64 they would still take
  // minutes): both are divided by the scale, the words to at least one per thread of the block (every
  // thread still stores before the flag), the rounds to at least 16. At 64: 31 rounds of 512 words.
  const int words = gputest::scaled(kWords, kThreads), rounds = gputest::scaled(kRounds, 16);
  uint64_t* data = static_cast<uint64_t*>(nvshmem_malloc(kWords * sizeof(uint64_t)));
  uint64_t* flags = static_cast<uint64_t*>(nvshmem_malloc(2 * sizeof(uint64_t)));
  unsigned long long* errors;
  CUDA_CHECK(cudaMalloc(&errors, sizeof *errors));
  const char* names[] = {"quiet", "fence", "put_block + quiet"};
  for (int mode = kQuiet; mode <= kPutThenP; ++mode) {
    CUDA_CHECK(cudaMemset(data, 0, kWords * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(flags, 0, 2 * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(errors, 0, sizeof *errors));
    gputest::sync_and_barrier();  // the memsets are done before the peer's puts can land
    if (me == 0) {
      writer<<<1, kThreads>>>(mode, data, flags, flags + 1, 1, words, rounds);
    } else {
      reader<<<1, kThreads>>>(data, flags, flags + 1, 0, errors, words, rounds);
    }
    KERNEL_CHECK();
    unsigned long long bad = 0;
    CUDA_CHECK(cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost));
    MP_CHECK(bad == 0, "%s: %llu words seen from an older round after the flag", names[mode], bad);
    nvshmem_barrier_all();
    if (me == 1) {
      std::printf("gpu_ordering: %s orders %d rounds of %d words%s\n", names[mode], rounds, words,
                  gputest::scale_note().c_str());
    }
  }
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(flags);
  nvshmem_free(data);
  nvshmem_finalize();
  return 0;
}
