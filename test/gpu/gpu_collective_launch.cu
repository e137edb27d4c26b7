// nvshmemx_collective_launch, nvshmemx_collective_launch_attr (3.8: the user's launch configuration and
// attributes) and nvshmemx_collective_launch_query_gridsize.
//
// The kernel cannot finish unless every block of both PEs' grids runs at once: in each round every
// block puts a token to the peer, then waits until every block of the peer has arrived (a counter
// the peer's blocks add to), then checks one of the peer's tokens; block 0 also joins a device
// barrier with nvshmemx_barrier_all_block. With a grid that is not co-resident, the blocks that
// run wait forever for blocks that never get an SM (reported as a hang, not left to ctest).
// Checked: the query returns the occupancy limit (computed here independently), a grid of that
// size runs (1-D, and 2-D with 2-D blocks), an all-zero grid runs with that size, and a grid one
// block larger, or with zero and non-zero sizes mixed, is refused with the right error code
// without launching anything.
#include <cstdint>
#include <string>

#include "gpu_test.cuh"

namespace {

using gputest::Failure;
using gputest::hash64;

constexpr int kThreads = 128;
constexpr int kRounds = 20;

__host__ __device__ inline uint64_t token(uint64_t seed, int pe, int round, unsigned block) {
  return hash64(seed ^ (static_cast<uint64_t>(pe) << 56) ^ (static_cast<uint64_t>(round) << 32) ^ block);
}

// slots: symmetric [2][grid]; arrived: symmetric counter; grid_seen, launches: device words.
__global__ void all_blocks(uint64_t* slots, uint64_t* arrived, uint64_t seed, Failure* f, unsigned long long* grid_seen,
                           unsigned long long* launches, unsigned long long* progress) {
  const unsigned grid = gridDim.x * gridDim.y * gridDim.z;
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
  const int me = nvshmem_my_pe(), peer = 1 - me;
  if (b == 0 && leader) {
    atomicAdd(launches, 1ull);
    *grid_seen = grid;
  }
  for (int r = 1; r <= kRounds; ++r) {
    if (leader) {
      uint64_t* bank = slots + static_cast<size_t>(r % 2) * grid;
      nvshmem_uint64_p(bank + b, token(seed, me, r, b), peer);
      nvshmem_fence();  // the token before the arrival
      nvshmem_uint64_atomic_add(arrived, 1, peer);
      // Every block of the peer has arrived in this round: their tokens are here.
      nvshmem_uint64_wait_until(arrived, NVSHMEM_CMP_GE, static_cast<uint64_t>(r) * grid);
      const unsigned x = (b * 7 + 3) % grid;
      const uint64_t want = token(seed, peer, r, x), got = bank[x];
      if (got != want) gputest::fail(f, 0, x, r, want, got);
    }
    __syncthreads();
    if (b == 0) {
      nvshmemx_barrier_all_block();
      if (leader) gputest::note(progress, 0, static_cast<unsigned long long>(r));
    }
    __syncthreads();
  }
}

struct Ctx {
  int me = 0;
  uint64_t* slots = nullptr;
  uint64_t* arrived = nullptr;
  unsigned long long* words = nullptr;  // [0] grid seen, [1] launches
  gputest::Failures* failures = nullptr;
  gputest::Progress* progress = nullptr;
  cudaStream_t stream = nullptr;
  // nvshmemx_collective_launch_attr with this many user attributes (a priority, repeated), when >= 0.
  int attr_count = -1;
};

// Launches the kernel collectively; returns the launch's status.
int launch(Ctx& c, dim3 grid, dim3 block, uint64_t seed) {
  Failure* f = c.failures->dev();
  unsigned long long* grid_seen = c.words;
  unsigned long long* launch_count = c.words + 1;
  unsigned long long* progress = c.progress->dev();
  void* args[] = {&c.slots, &c.arrived, &seed, &f, &grid_seen, &launch_count, &progress};
  if (c.attr_count < 0) {
    return nvshmemx_collective_launch(reinterpret_cast<const void*>(all_blocks), grid, block, args, 0, c.stream);
  }
  cudaLaunchAttribute attrs[32] = {};
  for (int i = 0; i < c.attr_count && i < 32; ++i) {
    attrs[i].id = cudaLaunchAttributePriority;
    attrs[i].val.priority = 0;
  }
  nvshmemx_collective_launch_attr_t attr = {};
  attr.cuda_config.gridDim = grid;
  attr.cuda_config.blockDim = block;
  attr.cuda_config.stream = c.stream;
  attr.cuda_config.attrs = attrs;
  attr.cuda_config.numAttrs = static_cast<unsigned>(c.attr_count);
  return nvshmemx_collective_launch_attr(&attr, reinterpret_cast<const void*>(all_blocks), args);
}

unsigned long long launches(const Ctx& c) {
  unsigned long long n = 0;
  CUDA_CHECK(cudaMemcpy(&n, c.words + 1, sizeof n, cudaMemcpyDeviceToHost));
  return n;
}

// A launch that must run: every block takes part; the kernel must see `expect_blocks` blocks.
void run_ok(Ctx& c, dim3 grid, dim3 block, int expect_blocks, const char* what, uint64_t seed) {
  CUDA_CHECK(cudaMemset(c.arrived, 0, sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(c.words, 0, sizeof(unsigned long long)));
  c.failures->reset();
  c.progress->clear();
  const unsigned long long before = launches(c);
  gputest::sync_and_barrier();
  const int rc = launch(c, grid, block, seed);
  MP_CHECK(rc == NVSHMEMX_SUCCESS, "%s: nvshmemx_collective_launch returned %d, expected NVSHMEMX_SUCCESS", what, rc);
  gputest::sync_or_die(c.stream, 60, [&] {
    return std::string(what) + ": the kernel whose blocks wait for every block of both PEs (block 0 finished round " +
           std::to_string(c.progress->read(0)) + "): its grid was not resident at once";
  });
  gputest::sync_and_barrier();
  const gputest::Failure f = c.failures->get();
  MP_CHECK(f.count == 0, "%s: %llu tokens wrong; the first: round %lld, the peer's block %lld: 0x%llx, expected 0x%llx",
           what, f.count, f.round, f.index, f.actual, f.expected);
  unsigned long long seen = 0;
  CUDA_CHECK(cudaMemcpy(&seen, c.words, sizeof seen, cudaMemcpyDeviceToHost));
  MP_CHECK(seen == static_cast<unsigned long long>(expect_blocks), "%s: the kernel ran with %llu blocks, expected %d",
           what, seen, expect_blocks);
  MP_CHECK(launches(c) == before + 1, "%s: the kernel ran %llu times", what, launches(c) - before);
  if (c.me == 0)
    std::printf("gpu_collective_launch: %s: %d blocks co-resident on both PEs, %d rounds\n", what, expect_blocks,
                kRounds);
}

// A launch that must be refused with `expect_rc`, without running anything.
void run_refused(Ctx& c, dim3 grid, dim3 block, int expect_rc, const char* what) {
  const unsigned long long before = launches(c);
  gputest::sync_and_barrier();
  const int rc = launch(c, grid, block, 0);
  MP_CHECK(rc == expect_rc, "%s: nvshmemx_collective_launch returned %d, expected %d", what, rc, expect_rc);
  CUDA_CHECK(cudaStreamSynchronize(c.stream));
  CUDA_CHECK(cudaGetLastError());
  MP_CHECK(launches(c) == before, "%s: refused, yet the kernel ran", what);
  gputest::sync_and_barrier();
  if (c.me == 0) std::printf("gpu_collective_launch: %s: refused with %d\n", what, rc);
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  gputest::skip_if_limited_mpg("gpu_collective_launch");
  Ctx c;
  c.me = nvshmem_my_pe();
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));

  // The largest co-resident grid, from the library and from the occupancy API.
  int gs = -1;
  void* no_args[1] = {nullptr};
  int rc = nvshmemx_collective_launch_query_gridsize(reinterpret_cast<const void*>(all_blocks), dim3(kThreads), no_args,
                                                     0, &gs);
  MP_CHECK(rc == NVSHMEMX_SUCCESS, "nvshmemx_collective_launch_query_gridsize returned %d", rc);
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, all_blocks, kThreads, 0));
  MP_CHECK(gs == per_sm * sms && gs > 0,
           "nvshmemx_collective_launch_query_gridsize: %d blocks, but %d fit per SM on %d SMs (%d)", gs, per_sm, sms,
           per_sm * sms);
  // Both PEs must agree (the kernel's rounds count the peer's blocks with this PE's grid size).
  int* sizes = static_cast<int*>(nvshmem_malloc(sizeof(int)));
  MP_CHECK(sizes, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMemcpy(sizes, &gs, sizeof gs, cudaMemcpyHostToDevice));
  gputest::sync_and_barrier();
  const int peer_gs = nvshmem_int_g(sizes, 1 - c.me);
  MP_CHECK(peer_gs == gs, "the GPUs differ: %d co-resident blocks here, %d on PE %d; the test needs equal GPUs", gs,
           peer_gs, 1 - c.me);
  if (c.me == 0) std::printf("gpu_collective_launch: query_gridsize: %d blocks of %d threads\n", gs, kThreads);

  c.slots = static_cast<uint64_t*>(nvshmem_malloc(2 * static_cast<size_t>(gs) * sizeof(uint64_t)));
  c.arrived = static_cast<uint64_t*>(nvshmem_malloc(sizeof(uint64_t)));
  MP_CHECK(c.slots && c.arrived, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMalloc(&c.words, 2 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(c.words, 0, 2 * sizeof(unsigned long long)));
  {
    gputest::Failures failures;
    gputest::Progress progress;
    c.failures = &failures;
    c.progress = &progress;
    run_ok(c, dim3(gs), dim3(kThreads), gs, "the grid query_gridsize returned", mp::seed_of(0, 1));
    run_ok(c, dim3(0, 0, 0), dim3(kThreads), gs, "an all-zero grid (autosized)", mp::seed_of(0, 2));
    run_ok(c, dim3(1, gs, 1), dim3(32, 4, 1), gs, "a 2-D grid of 2-D blocks", mp::seed_of(0, 3));
    run_ok(c, dim3(gs / 2 > 0 ? gs / 2 : 1), dim3(kThreads), gs / 2 > 0 ? gs / 2 : 1, "half the grid",
           mp::seed_of(0, 4));
    run_refused(c, dim3(gs + 1), dim3(kThreads), NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
                "a grid one block larger than query_gridsize");
    run_refused(c, dim3(gs, 2, 1), dim3(kThreads), NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
                "a 2-D grid of twice query_gridsize blocks");
    run_refused(c, dim3(0, 1, 1), dim3(kThreads), NVSHMEMX_ERROR_INVALID_VALUE,
                "a grid mixing zero and non-zero sizes");
    // After the refusals the library still launches.
    run_ok(c, dim3(0, 0, 0), dim3(kThreads), gs, "an all-zero grid after the refused launches", mp::seed_of(0, 5));
    // The same through nvshmemx_collective_launch_attr, with the user's attributes.
    c.attr_count = 1;
    run_ok(c, dim3(gs), dim3(kThreads), gs, "_attr with a priority attribute", mp::seed_of(0, 6));
    c.attr_count = 0;
    run_ok(c, dim3(0, 0, 0), dim3(kThreads), gs, "_attr with an all-zero grid", mp::seed_of(0, 7));
    run_refused(c, dim3(gs + 1), dim3(kThreads), NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
                "_attr with a grid too large");
    c.attr_count = 17;
    run_refused(c, dim3(gs), dim3(kThreads), NVSHMEMX_ERROR_INVALID_VALUE, "_attr with 17 attributes");
    c.attr_count = -1;
    MP_CHECK(nvshmemx_collective_launch_attr(nullptr, reinterpret_cast<const void*>(all_blocks), no_args) ==
                 NVSHMEMX_ERROR_INVALID_VALUE,
             "nvshmemx_collective_launch_attr(NULL) did not return NVSHMEMX_ERROR_INVALID_VALUE");
    gputest::sync_and_barrier();
  }
  CUDA_CHECK(cudaFree(c.words));
  CUDA_CHECK(cudaStreamDestroy(c.stream));
  nvshmem_free(c.arrived);
  nvshmem_free(c.slots);
  nvshmem_free(sizes);
  if (c.me == 0) std::printf("gpu_collective_launch: every check passed on 2 PEs\n");
  nvshmem_finalize();
  return 0;
}
