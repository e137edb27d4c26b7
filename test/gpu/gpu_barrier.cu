// Device barriers (thread, warp and block scope) and the host and on-stream barriers: after each,
// every PE sees every other PE's write of the round. Device sync_all (thread, warp and block scope),
// which does not complete earlier puts: after put, nvshmem_quiet and the sync, every PE sees every
// other PE's write of the round.
#include <cstdint>

#include "gpu_test.cuh"

namespace {

constexpr int kRounds = 500;

__global__ void barrier_rounds(int scope, uint64_t* slots, int npes, int me, unsigned long long* errors) {
  for (int r = 1; r <= kRounds; ++r) {
    uint64_t* bank = slots + (r % 2) * npes;
    if (threadIdx.x == 0) {
      for (int pe = 0; pe < npes; ++pe) nvshmem_uint64_p(bank + me, (static_cast<uint64_t>(r) << 16) | me, pe);
    }
    if (scope == 0) {
      if (threadIdx.x == 0) nvshmem_barrier_all();
      __syncthreads();
    } else if (scope == 1) {
      if (threadIdx.x < 32) nvshmemx_barrier_all_warp();
      __syncthreads();
    } else {
      nvshmemx_barrier_all_block();
    }
    for (int pe = threadIdx.x; pe < npes; pe += blockDim.x) {
      uint64_t v = *reinterpret_cast<volatile uint64_t*>(bank + pe);
      if (v != ((static_cast<uint64_t>(r) << 16) | pe)) atomicAdd(errors, 1ull);
    }
    __syncthreads();
  }
}

// A slot's value in round r of sync_rounds: the scope, the round and the writer, so that a value left
// from an earlier round or scope is told apart.
__host__ __device__ inline uint64_t sync_value(int scope, int r, int pe) {
  return (static_cast<uint64_t>(scope + 1) << 48) | (static_cast<uint64_t>(r) << 16) | static_cast<uint64_t>(pe);
}

// Thread 0 puts the round's value into this PE's slot on every PE and quiets (sync_all does not);
// then the sync; then every slot must hold its writer's value of the round. Two banks alternate, so
// a round's puts cannot land in the bank the slower PE is still reading.
__global__ void sync_rounds(int scope, uint64_t* slots, int npes, int me, gputest::Failure* f) {
  for (int r = 1; r <= kRounds; ++r) {
    uint64_t* bank = slots + (r % 2) * npes;
    if (threadIdx.x == 0) {
      for (int pe = 0; pe < npes; ++pe) nvshmem_uint64_p(bank + me, sync_value(scope, r, me), pe);
      nvshmem_quiet();
    }
    if (scope == 0) {
      if (threadIdx.x == 0) nvshmem_sync_all();
      __syncthreads();
    } else if (scope == 1) {
      if (threadIdx.x < 32) nvshmemx_sync_all_warp();
      __syncthreads();
    } else {
      nvshmemx_sync_all_block();
    }
    for (int pe = threadIdx.x; pe < npes; pe += blockDim.x) {
      const uint64_t v = *reinterpret_cast<volatile uint64_t*>(bank + pe);
      if (v != sync_value(scope, r, pe)) gputest::fail(f, scope, pe, r, sync_value(scope, r, pe), v);
    }
    __syncthreads();
  }
}

__global__ void write_slot(uint64_t* slots, uint64_t value, int me, int npes) {
  for (int pe = 0; pe < npes; ++pe) nvshmem_uint64_p(slots + me, value, pe);
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  uint64_t* slots = static_cast<uint64_t*>(nvshmem_calloc(2 * npes, sizeof(uint64_t)));
  unsigned long long* errors;
  CUDA_CHECK(cudaMalloc(&errors, sizeof *errors));
  const char* names[] = {"nvshmem_barrier_all (device)", "nvshmemx_barrier_all_warp", "nvshmemx_barrier_all_block"};
  for (int scope = 0; scope < 3; ++scope) {
    CUDA_CHECK(cudaMemset(errors, 0, sizeof *errors));
    CUDA_CHECK(cudaMemset(slots, 0, 2 * npes * sizeof(uint64_t)));
    gputest::sync_and_barrier();  // no peer may put into the slots before they are cleared
    barrier_rounds<<<1, 128>>>(scope, slots, npes, me, errors);
    KERNEL_CHECK();
    unsigned long long bad = 0;
    CUDA_CHECK(cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost));
    MP_CHECK(bad == 0, "%s: %llu stale slots after the barrier", names[scope], bad);
    nvshmem_barrier_all();
    if (me == 0) std::printf("gpu_barrier: %s, %d rounds\n", names[scope], kRounds);
  }
  const char* sync_names[] = {"nvshmem_sync_all (device)", "nvshmemx_sync_all_warp", "nvshmemx_sync_all_block"};
  {
    gputest::Failures failures;
    for (int scope = 0; scope < 3; ++scope) {
      failures.reset();
      CUDA_CHECK(cudaMemset(slots, 0, 2 * npes * sizeof(uint64_t)));
      gputest::sync_and_barrier();
      sync_rounds<<<1, 128>>>(scope, slots, npes, me, failures.dev());
      KERNEL_CHECK();
      const gputest::Failure f = failures.get();
      MP_CHECK(f.count == 0,
               "%s: %llu stale slots after put, nvshmem_quiet and the sync; the first: round %lld, PE %lld's slot "
               "(read by thread %d) is 0x%llx, expected 0x%llx",
               sync_names[scope], f.count, f.round, f.index, f.thread, f.actual, f.expected);
      nvshmem_barrier_all();
      if (me == 0) std::printf("gpu_barrier: %s after put and quiet, %d rounds\n", sync_names[scope], kRounds);
    }
  }
  // Host barrier and barrier_all_on_stream order kernels' puts too.
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  for (int r = 1; r <= 200; ++r) {
    uint64_t* bank = slots + (r % 2) * npes;
    write_slot<<<1, 1, 0, stream>>>(bank, (static_cast<uint64_t>(r) << 16) | me, me, npes);
    if (r % 2) {
      nvshmemx_barrier_all_on_stream(stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
    } else {
      CUDA_CHECK(cudaStreamSynchronize(stream));
      nvshmem_barrier_all();
    }
    auto got = gputest::to_host(bank, npes * sizeof(uint64_t));
    const uint64_t* v = reinterpret_cast<const uint64_t*>(got.data());
    for (int pe = 0; pe < npes; ++pe) {
      MP_CHECK(v[pe] == ((static_cast<uint64_t>(r) << 16) | pe), "round %d (%s): slot %d is stale", r,
               r % 2 ? "on stream" : "host", pe);
    }
  }
  if (me == 0) std::printf("gpu_barrier: host and on-stream barriers, 200 rounds\n");
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(slots);
  nvshmem_finalize();
  return 0;
}
