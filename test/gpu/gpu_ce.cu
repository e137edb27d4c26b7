// Device _nbi puts and gets that go to the copy engines (GSHMEM_CE_MIN_SIZE, set to 64 KiB for this
// test by CMake). Each check fails when the offload loses, reorders or leaks data:
//  - put: every block of PE 0 puts its share of a round-numbered buffer with put_nbi (block, warp
//    and thread scope), quiets, then adds 1 to PE 1's counter; PE 1 waits for all blocks and checks
//    every word of the round before it lets PE 0 start the next round;
//  - get: PE 1 gets PE 0's buffer with get_nbi_block and quiets; every word must be PE 0's;
//  - fence: a large put_nbi, nvshmem_fence, then a p into the first word of the same range; the p
//    must win, in every round;
//  - host quiet and quiet_on_stream: a kernel hands over a put and ends without quiet; the host
//    completes it (nvshmem_quiet, or nvshmemx_quiet_on_stream before a signalling kernel) before the
//    peer is told;
//  - a grid of more blocks than GSHMEM_CE_MAX_BLOCKS (8 here) copies with its own threads when its
//    calls are under 4 x GSHMEM_CE_MIN_SIZE (calls of 128 KiB, and of 192 KiB): no ticket is taken,
//    and the data arrives all the same;
//    calls of that size or more from such a grid take a ticket each, and their data arrives;
//  - two blocks put from two host ranges that lie side by side but are registered apart: their
//    copies continue one another, so the proxy merges them, and where CUDA refuses a copy across
//    two allocations it must issue the pieces one by one; the data must arrive;
//  - the offload is really used: the device state has the ring, and the number of tickets taken
//    equals the number of calls made at or above the threshold from small enough grids.
// `mixed` (with NVSHMEM_DISABLE_P2P=1, the peer across the network and this PE's own heap mapped): copies to
// this PE itself go to the copy engines while another block of the same kernel keeps the proxy busy with
// network gets from the peer, through the one ring: each round's two copies, the second posted a while after
// the first, must complete by the quiet after them (network requests that keep coming must not hold their
// completion back), and every word must be there.
#include <sys/mman.h>

#include <cstdint>
#include <vector>

#include "gpu_test.cuh"

namespace {

constexpr int kBlocks = 8;
constexpr size_t kChunkWords = 32768;  // 256 KiB per block: above the 64 KiB threshold
constexpr size_t kWords = kBlocks * kChunkWords;
constexpr int kRounds = 20;

__host__ __device__ inline uint64_t word(uint64_t round, size_t i) {
  return gputest::hash64(round * 0x100000000ull + i);
}

__device__ void wait_ge(uint64_t* v, uint64_t target) {
  while (gshmem::detail::load_acquire_sys(v) < target) {
  }
}

// PE 0. scope: 0 thread (thread 0 of each block puts the block's chunk), 1 warp (each warp its share),
// 2 block.
__global__ void put_writer(int scope, uint64_t* dst, uint64_t* src, uint64_t* count, uint64_t* ack, int peer,
                           uint64_t round0) {
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t round = round0 + r;
    if (threadIdx.x == 0) wait_ge(ack, static_cast<uint64_t>(r) * gridDim.x);
    __syncthreads();
    uint64_t* d = dst + blockIdx.x * kChunkWords;
    uint64_t* s = src + blockIdx.x * kChunkWords;
    for (size_t i = threadIdx.x; i < kChunkWords; i += blockDim.x) s[i] = word(round, blockIdx.x * kChunkWords + i);
    __syncthreads();
    if (scope == 2) {
      nvshmemx_uint64_put_nbi_block(d, s, kChunkWords, peer);
    } else if (scope == 1) {
      const size_t warps = blockDim.x / 32, share = kChunkWords / warps, w = threadIdx.x / 32;
      nvshmemx_uint64_put_nbi_warp(d + w * share, s + w * share, share, peer);
    } else if (threadIdx.x == 0) {
      nvshmem_uint64_put_nbi(d, s, kChunkWords, peer);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      nvshmem_quiet();
      nvshmemx_signal_op(count, 1, NVSHMEM_SIGNAL_ADD, peer);
    }
  }
}

// PE 1: checks every round, then acknowledges it.
__global__ void put_reader(uint64_t* dst, uint64_t* count, uint64_t* ack, int peer, uint64_t round0,
                           unsigned long long* errors) {
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t round = round0 + r;
    if (threadIdx.x == 0) nvshmem_uint64_wait_until(count, NVSHMEM_CMP_GE, static_cast<uint64_t>(r + 1) * kBlocks);
    __syncthreads();
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kWords; i += gridDim.x * blockDim.x) {
      if (reinterpret_cast<volatile uint64_t*>(dst)[i] != word(round, i)) atomicAdd(errors, 1ull);
    }
    __syncthreads();
    if (threadIdx.x == 0) nvshmemx_signal_op(ack, 1, NVSHMEM_SIGNAL_ADD, peer);
  }
}

__global__ void get_block(uint64_t* local, const uint64_t* sym, int peer) {
  nvshmemx_uint64_get_nbi_block(local + blockIdx.x * kChunkWords, sym + blockIdx.x * kChunkWords, kChunkWords, peer);
  if (threadIdx.x == 0) nvshmem_quiet();
}

// One thread: a large put_nbi, fence, then p of the first word; returns nothing, PE 1 checks.
__global__ void fence_writer(uint64_t* dst, const uint64_t* src, uint64_t* flag, int peer) {
  for (uint64_t r = 1; r <= kRounds; ++r) {
    nvshmem_uint64_put_nbi(dst, src, kChunkWords, peer);
    nvshmem_fence();
    nvshmem_uint64_p(dst, ~r, peer);
    nvshmem_quiet();
    nvshmem_uint64_p(flag, r, peer);
    // Wait for the reader's acknowledgement (it answers in flag[1] of this PE).
    wait_ge(flag + 1, r);
  }
}
__global__ void fence_reader(const uint64_t* dst, uint64_t* flag, int peer, unsigned long long* errors) {
  for (uint64_t r = 1; r <= kRounds; ++r) {
    wait_ge(flag, r);
    if (gshmem::detail::load_relaxed_sys(dst) != ~r) atomicAdd(errors, 1ull);
    nvshmem_uint64_p(flag + 1, r, peer);
  }
}

// A put_nbi of the whole buffer by one thread, without quiet.
__global__ void put_no_quiet(uint64_t* dst, const uint64_t* src, int peer) {
  nvshmem_uint64_put_nbi(dst, src, kWords, peer);
}
__global__ void signal_kernel(uint64_t* flag, uint64_t v, int peer) {
  nvshmemx_signal_op(flag, v, NVSHMEM_SIGNAL_SET, peer);
}
__global__ void check_after_flag(const uint64_t* dst, uint64_t* flag, uint64_t v, uint64_t round,
                                 unsigned long long* errors) {
  if (threadIdx.x == 0) wait_ge(flag, v);
  __syncthreads();
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kWords; i += gridDim.x * blockDim.x) {
    if (reinterpret_cast<const volatile uint64_t*>(dst)[i] != word(round, i)) atomicAdd(errors, 1ull);
  }
}

__global__ void fill(uint64_t* p, uint64_t round) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kWords; i += gridDim.x * blockDim.x) p[i] = word(round, i);
}

// Each block puts its share with put_nbi_block, then quiets (16 blocks: over the limit of 8).
__global__ void put_big_grid(uint64_t* dst, const uint64_t* src, int peer) {
  const size_t share = kWords / gridDim.x;
  nvshmemx_uint64_put_nbi_block(dst + blockIdx.x * share, src + blockIdx.x * share, share, peer);
  if (threadIdx.x == 0) nvshmem_quiet();
}

// Every block puts the first `words` words of the buffer with put_nbi_block, then quiets (16 blocks).
// At 2 MiB per call (the whole buffer) a call is over 4 x the threshold of 64 KiB, so it goes to the
// copy engines although the grid is large; at 192 KiB (3 x) it does not.
__global__ void put_big_grid_first(uint64_t* dst, const uint64_t* src, size_t words, int peer) {
  nvshmemx_uint64_put_nbi_block(dst, src, words, peer);
  if (threadIdx.x == 0) nvshmem_quiet();
}

// What the device state says about the offload: ring present, threshold, tickets taken.
__global__ void ce_state(unsigned long long* out) {
  const auto& st = gshmem::detail::state();
  out[0] = st.proxy_ring != nullptr;
  out[1] = st.ce_min_bytes;
  out[2] = st.proxy_ring ? gshmem::detail::proxy_posted() : 0;
}

unsigned long long read_errors(unsigned long long* e) {
  unsigned long long h = 0;
  CUDA_CHECK(cudaMemcpy(&h, e, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemset(e, 0, sizeof h));
  return h;
}

// Block 0's thread 0: rounds of two copies to this PE itself (the copy engines), the second 20 us after the
// first, then quiet and a check of every word; the other blocks: network gets of the peer's word until block 0
// is done. Mismatched words go to *errors.
__global__ void mixed(uint64_t* dst, uint64_t* src, const uint64_t* remote, int me, int peer, int* done,
                      unsigned long long* errors) {
  if (blockIdx.x != 0) {
    if (threadIdx.x == 0) {
      while (*reinterpret_cast<volatile int*>(done) == 0) (void)nvshmem_uint64_g(remote, peer);
    }
    return;
  }
  if (threadIdx.x != 0) return;
  for (uint64_t round = 1; round <= 8; ++round) {
    for (size_t i = 0; i < 2 * kChunkWords; ++i) {
      src[i] = word(9000 + round, i);
      dst[i] = 0;
    }
    __threadfence_system();
    nvshmem_uint64_put_nbi(dst, src, kChunkWords, me);
    __nanosleep(20000);
    nvshmem_uint64_put_nbi(dst + kChunkWords, src + kChunkWords, kChunkWords, me);
    nvshmem_quiet();
    unsigned long long bad = 0;
    for (size_t i = 0; i < 2 * kChunkWords; ++i) bad += dst[i] != word(9000 + round, i);
    if (bad != 0) atomicAdd(errors, bad);
  }
  atomicExch(done, 1);
}

// A put_nbi from an address that is neither GPU memory nor mapped host memory: the proxy refuses the
// copy and the kernel's quiet ends it with a message.
__global__ void bad_source(uint64_t* dst, int peer) {
  nvshmem_uint64_put_nbi(dst, reinterpret_cast<const uint64_t*>(0x1000), kChunkWords, peer);
  nvshmem_quiet();
}

}  // namespace

int main(int argc, char** argv) {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), peer = 1 - me;
  if (nvshmem_n_pes() != 2) {
    std::fprintf(stderr, "gpu_ce needs 2 PEs\n");
    return 1;
  }
  auto* dst = static_cast<uint64_t*>(nvshmem_malloc(kWords * sizeof(uint64_t)));
  auto* flags = static_cast<uint64_t*>(nvshmem_calloc(4, sizeof(uint64_t)));  // count, ack, flag, flag + 1
  uint64_t *src = nullptr, *local = nullptr;
  unsigned long long *errors = nullptr, *state = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kWords * sizeof(uint64_t)));
  CUDA_CHECK(cudaMalloc(&local, kWords * sizeof(uint64_t)));
  CUDA_CHECK(cudaMalloc(&errors, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&state, 3 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(unsigned long long)));
  if (argc > 1 && std::string(argv[1]) == "mixed") {
    int* done = nullptr;
    CUDA_CHECK(cudaMalloc(&done, sizeof(int)));
    CUDA_CHECK(cudaMemset(done, 0, sizeof(int)));
    nvshmem_barrier_all();
    mixed<<<2, 32>>>(dst, src, flags, me, peer, done, errors);
    KERNEL_CHECK();
    unsigned long long bad = 0;
    CUDA_CHECK(cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost));
    nvshmem_barrier_all();
    CUDA_CHECK(cudaFree(done));
    nvshmem_finalize();
    std::printf("PE %d: gpu_ce mixed %s (%llu words differ)\n", me, bad == 0 ? "passed" : "FAILED", bad);
    return bad == 0 ? 0 : 1;
  }
  if (argc > 1 && std::string(argv[1]) == "bad-source") {
    nvshmem_barrier_all();
    if (me == 0) {
      bad_source<<<1, 1>>>(dst, peer);
      KERNEL_CHECK();  // the kernel traps: this exits with the CUDA error
      std::fprintf(stderr, "PE 0: FAIL the put from a bad address completed\n");
      return 1;
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
  }
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "PE %d: FAIL %s\n", me, what.c_str());
      ++failures;
    }
  };

  // The words among the first n of `p` (device memory) that differ from round `round`'s pattern.
  auto differing = [&](const uint64_t* p, uint64_t round, size_t n = kWords) {
    std::vector<uint64_t> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += h[i] != word(round, i);
    return bad;
  };

  ce_state<<<1, 1>>>(state);
  KERNEL_CHECK();
  unsigned long long st[3];
  CUDA_CHECK(cudaMemcpy(st, state, sizeof st, cudaMemcpyDeviceToHost));
  expect(st[0] == 1 && st[1] == 65536, "the copy engines are on with a 64 KiB threshold (ring " +
                                           std::to_string(st[0]) + ", threshold " + std::to_string(st[1]) + ")");
  const unsigned long long tickets0 = st[2];
  unsigned long long expected_tickets = 0;

  // put, every scope; each scope continues the count and the acknowledgements.
  uint64_t round0 = 1;
  for (int scope = 0; scope < 3; ++scope) {
    CUDA_CHECK(cudaMemset(flags, 0, 4 * sizeof(uint64_t)));
    gputest::sync_and_barrier();
    // Warp scope: 2 warps per block, each putting 128 KiB.
    const int threads = scope == 1 ? 64 : 256;
    if (me == 0) {
      put_writer<<<kBlocks, threads>>>(scope, dst, src, flags, flags + 1, peer, round0);
      expected_tickets += static_cast<unsigned long long>(kBlocks) * kRounds * (scope == 1 ? 2 : 1);
    } else {
      put_reader<<<kBlocks, threads>>>(dst, flags, flags + 1, peer, round0, errors);
    }
    KERNEL_CHECK();
    nvshmem_barrier_all();
    if (me == 1) {
      unsigned long long e = read_errors(errors);
      expect(e == 0, std::string("put_nbi at ") + gputest::scope_name(scope) + " scope: " + std::to_string(e) +
                         " words were not those of their round");
    }
    round0 += kRounds;
  }

  // get_nbi_block.
  fill<<<64, 256>>>(dst, 1000 + me);
  gputest::sync_and_barrier();
  if (me == 1) {
    get_block<<<kBlocks, 256>>>(local, dst, peer);
    expected_tickets += kBlocks;
    KERNEL_CHECK();
    const size_t bad = differing(local, 1000 + peer);
    expect(bad == 0, "get_nbi_block: " + std::to_string(bad) + " words differ from the peer's");
  }
  nvshmem_barrier_all();

  // fence orders a copy-engine put before a later p to the same PE.
  CUDA_CHECK(cudaMemset(flags, 0, 4 * sizeof(uint64_t)));
  fill<<<64, 256>>>(src, 7);
  gputest::sync_and_barrier();
  if (me == 0) {
    fence_writer<<<1, 1>>>(dst, src, flags + 2, peer);
    expected_tickets += kRounds;
  } else {
    fence_reader<<<1, 1>>>(dst, flags + 2, peer, errors);
  }
  KERNEL_CHECK();
  nvshmem_barrier_all();
  if (me == 1) {
    unsigned long long e = read_errors(errors);
    expect(e == 0, "put_nbi; fence; p: the copy engines' data overwrote the later p in " + std::to_string(e) + " of " +
                       std::to_string(kRounds) + " rounds");
  }

  // Host quiet, then quiet_on_stream, each completing a kernel's unquieted put before a signal.
  for (int mode = 0; mode < 2; ++mode) {
    const uint64_t round = 5000 + mode;
    CUDA_CHECK(cudaMemset(flags, 0, 4 * sizeof(uint64_t)));
    fill<<<64, 256>>>(src, round);
    gputest::sync_and_barrier();
    if (me == 0) {
      cudaStream_t s;
      CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      put_no_quiet<<<1, 1, 0, s>>>(dst, src, peer);
      expected_tickets += 1;
      if (mode == 0) {
        CUDA_CHECK(cudaStreamSynchronize(s));
        nvshmem_quiet();
        signal_kernel<<<1, 1, 0, s>>>(flags + 2, 1, peer);
      } else {
        nvshmemx_quiet_on_stream(s);
        signal_kernel<<<1, 1, 0, s>>>(flags + 2, 1, peer);
      }
      CUDA_CHECK(cudaStreamSynchronize(s));
      CUDA_CHECK(cudaStreamDestroy(s));
    } else {
      check_after_flag<<<64, 256>>>(dst, flags + 2, 1, round, errors);
      KERNEL_CHECK();
      unsigned long long e = read_errors(errors);
      expect(e == 0, std::string(mode == 0 ? "nvshmem_quiet" : "nvshmemx_quiet_on_stream") +
                         " did not complete a kernel's copy-engine put: " + std::to_string(e) + " words missing");
    }
    nvshmem_barrier_all();
  }

  // A grid over GSHMEM_CE_MAX_BLOCKS copies by itself (no ticket), correctly.
  fill<<<64, 256>>>(src, 6000);
  gputest::sync_and_barrier();
  if (me == 0) {
    put_big_grid<<<2 * kBlocks, 256>>>(dst, src, peer);
    KERNEL_CHECK();
  }
  nvshmem_barrier_all();
  if (me == 1) {
    const size_t bad = differing(dst, 6000);
    expect(bad == 0, "put_nbi_block from a grid of 16 blocks: " + std::to_string(bad) + " words differ");
  }
  nvshmem_barrier_all();
  // Calls of 192 KiB (3 x the threshold) from that grid: still no ticket.
  constexpr size_t kUnderWords = 3 * 65536 / sizeof(uint64_t);
  fill<<<64, 256>>>(src, 6200);
  gputest::sync_and_barrier();
  if (me == 0) {
    put_big_grid_first<<<2 * kBlocks, 256>>>(dst, src, kUnderWords, peer);
    KERNEL_CHECK();
  }
  nvshmem_barrier_all();
  if (me == 1) {
    const size_t bad = differing(dst, 6200, kUnderWords);
    expect(bad == 0, "192 KiB put_nbi_block calls from a grid of 16 blocks: " + std::to_string(bad) + " words differ");
  }
  nvshmem_barrier_all();

  // ... unless each call moves at least 4 x the threshold: then every call takes a ticket.
  fill<<<64, 256>>>(src, 6500);
  gputest::sync_and_barrier();
  if (me == 0) {
    put_big_grid_first<<<2 * kBlocks, 256>>>(dst, src, kWords, peer);
    KERNEL_CHECK();
    expected_tickets += 2 * kBlocks;
  }
  nvshmem_barrier_all();
  if (me == 1) {
    const size_t bad = differing(dst, 6500);
    expect(bad == 0, "2 MiB put_nbi_block calls from a grid of 16 blocks: " + std::to_string(bad) + " words differ");
  }
  nvshmem_barrier_all();

  // Two host ranges side by side, registered as two allocations; two blocks each put one.
  const size_t half = kWords / 2 * sizeof(uint64_t);
  void* region = mmap(nullptr, 2 * half, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  expect(region != MAP_FAILED, "mmap of 2 MiB");
  if (region != MAP_FAILED) {
    auto* host_src = static_cast<uint64_t*>(region);
    for (size_t i = 0; i < kWords; ++i) host_src[i] = word(7000, i);
    CUDA_CHECK(cudaHostRegister(host_src, half, cudaHostRegisterMapped));
    CUDA_CHECK(cudaHostRegister(static_cast<char*>(region) + half, half, cudaHostRegisterMapped));
    gputest::sync_and_barrier();
    if (me == 0) {
      put_big_grid<<<2, 256>>>(dst, host_src, peer);
      KERNEL_CHECK();
      expected_tickets += 2;
    }
    nvshmem_barrier_all();
    if (me == 1) {
      const size_t bad = differing(dst, 7000);
      expect(bad == 0, "put_nbi_block from two host ranges registered apart: " + std::to_string(bad) + " words differ");
    }
    nvshmem_barrier_all();
    CUDA_CHECK(cudaHostUnregister(host_src));
    CUDA_CHECK(cudaHostUnregister(static_cast<char*>(region) + half));
    munmap(region, 2 * half);
  }

  ce_state<<<1, 1>>>(state);
  KERNEL_CHECK();
  CUDA_CHECK(cudaMemcpy(st, state, sizeof st, cudaMemcpyDeviceToHost));
  expect(st[2] - tickets0 == expected_tickets,
         "tickets taken: " + std::to_string(st[2] - tickets0) + ", expected " + std::to_string(expected_tickets));

  nvshmem_barrier_all();
  nvshmem_free(flags);
  nvshmem_free(dst);
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(local));
  CUDA_CHECK(cudaFree(errors));
  CUDA_CHECK(cudaFree(state));
  nvshmem_finalize();
  std::printf("PE %d: %s\n", me, failures == 0 ? "gpu_ce passed" : "gpu_ce FAILED");
  return failures == 0 ? 0 : 1;
}
