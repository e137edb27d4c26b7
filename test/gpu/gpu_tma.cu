// The bulk-copy (TMA) path of device puts and gets (NVSHMEM_TMA_POLICY, nvshmemx_give_smem): one kernel whose
// blocks each lend ask_smem(RECOMMENDED) bytes of shared memory and make one kind of copy to the next PE (puts)
// or from it (gets):
//   thread, warp and block puts and gets, blocking and _nbi; a block's put_signal; a block's put from its own
//   shared memory; four threads of four warps, and four lanes of one warp, putting at once (they take turns at
//   the block's staging tiles); a put of exactly four tiles; and two copies that must keep the ordinary path: a
//   size that is not a multiple of 16 and one below GSHMEM_TMA_MIN_SIZE.
// Every byte is checked on its target, and the bytes just past each copy must be untouched. Whether a staged
// copy took the bulk-copy path is read from the lent memory itself: a copy of 7 tiles turns the parity of the
// fourth stage's mbarrier, one of 4 tiles every stage's, which tma.cuh keeps in the header's second word. With the
// policy ENABLE or FORCE on a GPU of compute capability 9.0 or newer every staged case of one thread must have taken
// it, and the warp and block cases too with GSHMEM_TMA_SCOPES=all (else none of them); otherwise none may have.
#include <strings.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_test.cuh"

namespace {

constexpr size_t kRegion = 128 << 10;  // each case's part of the buffers
constexpr size_t kTile = ((64 << 10) - 64) / 4 & ~static_cast<size_t>(15);
constexpr size_t kBytes = 6 * kTile + 992;  // 7 tiles, the last partial: a multiple of 16
constexpr size_t kTile4 = 8192;             // the four threads of the contended case put 2 * kTile4 each
constexpr int kThreads = 256;
constexpr size_t kAppTile = 4096;  // the put-from-shared-memory case's source

enum Case : int {
  kPutThread,
  kPutWarp,
  kPutBlock,
  kPutNbiBlock,
  kGetThread,
  kGetWarp,
  kGetBlock,
  kGetNbiWarp,
  kPutSignalBlock,
  kPutFromShared,
  kFourThreads,
  kFourLanes,
  kExactTiles,
  kUnaligned,
  kSmall,
  kCases
};
// Whether the case is a staged copy whose use of the path the header shows (an odd number of uses of some stage).
__host__ __device__ constexpr bool staged_case(int c) { return c <= kPutSignalBlock || c == kExactTiles; }
// Whether the case is a call of one thread (the others are warp and block calls).
__host__ __device__ constexpr bool thread_case(int c) {
  return c == kPutThread || c == kGetThread || c == kExactTiles || c == kFourThreads || c == kFourLanes ||
         c == kUnaligned || c == kSmall;
}
__host__ __device__ constexpr size_t case_bytes(int c) {
  return c == kUnaligned       ? kBytes + 8
         : c == kSmall         ? 1024
         : c == kPutFromShared ? kAppTile
         : c == kExactTiles    ? 4 * kTile
                               : kBytes;
}
__host__ __device__ constexpr bool is_get(int c) { return c >= kGetThread && c <= kGetNbiWarp; }

__host__ __device__ inline unsigned char pattern(int pe, size_t i) {
  return static_cast<unsigned char>(i * 131u + static_cast<unsigned>(pe) * 17u + (i >> 9) + 1);
}

__global__ void fill(unsigned char* p, size_t n, int pe) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[i] = pattern(pe, i);
  }
}

// Block c makes case c. dst: symmetric (puts land in the peer's); src: symmetric (gets read the peer's);
// back: this PE's global memory for the gets; sig: one signal word.
__global__ void cases(unsigned char* dst, const unsigned char* src, unsigned char* back, uint64_t* sig, int peer,
                      int me, size_t lend, int* engaged) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int c = static_cast<int>(blockIdx.x);
  const size_t at = static_cast<size_t>(c) * kRegion;
  const size_t n = case_bytes(c);
  if (threadIdx.x == 0) nvshmemx_give_smem(smem, lend);
  __syncthreads();
  volatile unsigned* parity = reinterpret_cast<volatile unsigned*>(smem) + 1;
  const unsigned before = *parity;
  __syncthreads();
  const int warp = threadIdx.x / 32;
  switch (c) {
    case kPutThread:
    case kExactTiles:
    case kUnaligned:
    case kSmall:
      if (threadIdx.x == 0) nvshmem_putmem(dst + at, src + at, n, peer);
      break;
    case kPutWarp:
      if (warp == 1) nvshmemx_putmem_warp(dst + at, src + at, n, peer);
      break;
    case kPutBlock:
      nvshmemx_putmem_block(dst + at, src + at, n, peer);
      break;
    case kPutNbiBlock:
      nvshmemx_putmem_nbi_block(dst + at, src + at, n, peer);
      break;
    case kGetThread:
      if (threadIdx.x == 5) nvshmem_getmem(back + at, src + at, n, peer);
      break;
    case kGetWarp:
      if (warp == 2) nvshmemx_getmem_warp(back + at, src + at, n, peer);
      break;
    case kGetBlock:
      nvshmemx_getmem_block(back + at, src + at, n, peer);
      break;
    case kGetNbiWarp:
      if (warp == 0) nvshmemx_getmem_nbi_warp(back + at, src + at, n, peer);
      break;
    case kPutSignalBlock:
      nvshmemx_putmem_signal_block(dst + at, src + at, n, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
      break;
    case kPutFromShared: {
      unsigned char* tile = smem + lend;  // the application's part, after the lent prefix
      for (size_t i = threadIdx.x; i < n; i += blockDim.x) tile[i] = pattern(me, i);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // as NVSHMEM asks (gshmem fences too)
#endif
      __syncthreads();
      nvshmemx_putmem_block(dst + at, tile, n, peer);
      break;
    }
    case kFourThreads:  // threads of four warps
      if (threadIdx.x % 64 == 0) {
        const size_t part = at + (threadIdx.x / 64) * kTile4 * 2;
        nvshmem_putmem_nbi(dst + part, src + part, kTile4 * 2, peer);
      }
      break;
    case kFourLanes:  // four lanes of one warp (they take turns at the lock: independent thread scheduling)
      if (threadIdx.x < 4) {
        const size_t part = at + threadIdx.x * kTile4 * 2;
        nvshmem_putmem(dst + part, src + part, kTile4 * 2, peer);
      }
      break;
  }
  nvshmem_quiet();
  __syncthreads();
  if (threadIdx.x == 0) {
    engaged[c] = *parity != before ? 1 : 0;
    nvshmemx_release_smem();
  }
}

__global__ void wait_signal(uint64_t* sig) { nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1); }

// The architecture this test's device code was compiled for (the bulk-copy path needs sm_90 code, not only an
// sm_90 GPU).
__global__ void compiled_arch(int* out) {
#ifdef __CUDA_ARCH__
  *out = __CUDA_ARCH__;
#endif
}

// Where the bytes of case c must be (on this PE) and whose pattern.
struct Expect {
  const char* name;
  bool in_back;  // a get: in `back`; a put: in `dst`
};
const Expect kExpect[kCases] = {{"a thread's put", false},
                                {"a warp's put", false},
                                {"a block's put", false},
                                {"a block's put_nbi", false},
                                {"a thread's get", true},
                                {"a warp's get", true},
                                {"a block's get", true},
                                {"a warp's get_nbi", true},
                                {"a block's put_signal", false},
                                {"a block's put from shared memory", false},
                                {"four threads' puts at once", false},
                                {"four lanes' puts at once", false},
                                {"a put of exactly four tiles", false},
                                {"a put of a size not a multiple of 16", false},
                                {"a put below GSHMEM_TMA_MIN_SIZE", false}};

}  // namespace

int main() {
  const char* policy_env = std::getenv("NVSHMEM_TMA_POLICY");
  const std::string policy = policy_env ? policy_env : "DISABLE";
  const char* scopes_env = std::getenv("GSHMEM_TMA_SCOPES");
  const bool group_calls = scopes_env != nullptr && strcasecmp(scopes_env, "all") == 0;  // (as the library reads it)
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess && major < 9 &&
      policy == "FORCE") {
    std::printf("gpu_tma: skipped: NVSHMEM_TMA_POLICY=FORCE needs a GPU of compute capability 9.0 or newer\n");
    return 77;
  }
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t total = kRegion * kCases;
  auto* dst = static_cast<unsigned char*>(nvshmem_malloc(total));
  auto* src = static_cast<unsigned char*>(nvshmem_malloc(total));
  auto* sig = static_cast<uint64_t*>(nvshmem_malloc(sizeof(uint64_t)));
  MP_CHECK(dst && src && sig, "nvshmem_malloc failed");
  unsigned char* back;
  int* engaged;
  CUDA_CHECK(cudaMalloc(&back, total));
  CUDA_CHECK(cudaMalloc(&engaged, kCases * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, 0, total));
  CUDA_CHECK(cudaMemset(back, 0, total));
  CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
  fill<<<64, 256>>>(src, total, me);
  KERNEL_CHECK();

  int device = 0, arch = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  int* arch_d;
  CUDA_CHECK(cudaMalloc(&arch_d, sizeof(int)));
  compiled_arch<<<1, 1>>>(arch_d);
  KERNEL_CHECK();
  CUDA_CHECK(cudaMemcpy(&arch, arch_d, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(arch_d));
  const bool expect_bulk = (policy == "ENABLE" || policy == "FORCE") && major >= 9 && arch >= 900;

  const size_t lend = static_cast<size_t>(nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED));
  const size_t smem = lend + kAppTile;
  CUDA_CHECK(cudaFuncSetAttribute(cases, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  nvshmem_barrier_all();
  cases<<<kCases, kThreads, smem>>>(dst, src, back, sig, next, me, lend, engaged);
  wait_signal<<<1, 1>>>(sig);
  KERNEL_CHECK();
  nvshmem_barrier_all();

  std::vector<int> eng(kCases);
  CUDA_CHECK(cudaMemcpy(eng.data(), engaged, kCases * sizeof(int), cudaMemcpyDeviceToHost));
  const auto got_dst = gputest::to_host(dst, total);
  const auto got_back = gputest::to_host(back, total);
  int bulk = 0, expected = 0;
  for (int c = 0; c < kCases; ++c) {
    const size_t at = static_cast<size_t>(c) * kRegion;
    const unsigned char* got = (kExpect[c].in_back ? got_back.data() : got_dst.data()) + at;
    const int from = is_get(c) ? next : prev;
    // What the case moved: [0, n), or the four threads' parts; the region's source offset is `at`, except
    // for the put from shared memory, whose pattern starts at 0.
    const size_t n = c == kFourThreads || c == kFourLanes ? 4 * 2 * kTile4 : case_bytes(c);
    for (size_t i = 0; i < n; ++i) {
      const unsigned char want = c == kPutFromShared ? pattern(from, i) : pattern(from, at + i);
      MP_CHECK(got[i] == want, "%s (%zu bytes): byte %zu is %u, expected %u (from PE %d)", kExpect[c].name, n, i,
               got[i], want, from);
    }
    for (size_t i = n; i < n + 64 && i < kRegion; ++i) {
      MP_CHECK(got[i] == 0, "%s (%zu bytes): byte %zu past its end was written (%u)", kExpect[c].name, n, i, got[i]);
    }
    if (staged_case(c)) {
      const bool want = expect_bulk && (thread_case(c) || group_calls);
      MP_CHECK(eng[c] == (want ? 1 : 0),
               "%s %s the bulk-copy path (NVSHMEM_TMA_POLICY=%s, GSHMEM_TMA_SCOPES=%s, compute capability %d, code "
               "for sm_%d)",
               kExpect[c].name, eng[c] ? "took" : "did not take", policy.c_str(), group_calls ? "all" : "thread", major,
               arch / 10);
      bulk += eng[c];
      expected += want ? 1 : 0;
    } else if (c == kUnaligned || c == kSmall) {
      MP_CHECK(eng[c] == 0, "%s took the bulk-copy path", kExpect[c].name);
    }
  }
  const uint64_t s = nvshmem_uint64_g(sig, me);
  MP_CHECK(s == 1, "the put_signal's signal is %llu, expected 1", static_cast<unsigned long long>(s));
  nvshmem_barrier_all();
  std::printf(
      "PE %d: gpu_tma passed (NVSHMEM_TMA_POLICY=%s, GSHMEM_TMA_SCOPES=%s, %d of %d staged cases by bulk copies, as "
      "expected: %d)\n",
      me, policy.c_str(), group_calls ? "all" : "thread", bulk, static_cast<int>(kPutSignalBlock) + 2, expected);
  nvshmem_free(sig);
  nvshmem_free(src);
  nvshmem_free(dst);
  CUDA_CHECK(cudaFree(back));
  CUDA_CHECK(cudaFree(engaged));
  nvshmem_finalize();
  return 0;
}
