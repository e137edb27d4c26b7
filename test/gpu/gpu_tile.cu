// The tile API (nvshmemx::tile_*, docs/tile-api.md) at every scope on the world team: all-reduce one-shot pull
// and two-shot push, the rooted reduction with a predicate, allgather, broadcast from one PE, put (peer) and get
// (remote), half and float, and the error returns. A 16 x 8 tile (dimension 0 contiguous) of a symmetric array;
// each case is one kernel of one group per PE, its values checked on the host.
#include <cuda_fp16.h>

#include "gpu_test.cuh"

namespace {

constexpr int kRows = 16, kCols = 8, kElems = kRows * kCols;
constexpr float kUntouched = -1.0f;

enum Case { kSumPull, kMaxPush, kRootedPred, kAllgather, kBroadcast, kPutPeer, kGetRemote, kErrors };

template <gshmem::Scope S>
__host__ __device__ constexpr int group_threads() {
  return S == gshmem::Scope::kThread ? 1 : S == gshmem::Scope::kWarp ? 32 : S == gshmem::Scope::kWarpgroup ? 128 : 256;
}

// The cases through the names of one scope (SFX: "", _warp, _warpgroup, _block; SC: the native scope, for the
// syncs between the steps). Returns the call's result, or
// for kErrors a mask of the error returns that were wrong (0: all right).
#define GSHMEMT_TILE_CASES(NAME, SFX, SC)                                                                              \
  template <class T>                                                                                                   \
  __device__ int NAME(int c, T* src, T* dst) {                                                                         \
    auto lay = nvshmemx::make_layout(nvshmemx::make_shape(ConstInt<kRows>{}, ConstInt<kCols>{}),                       \
                                     nvshmemx::make_stride(ConstInt<1>{}, kRows));                                     \
    auto wide = nvshmemx::make_layout(nvshmemx::make_shape(ConstInt<kRows>{}, kCols * nvshmem_n_pes()),                \
                                      nvshmemx::make_stride(ConstInt<1>{}, kRows));                                    \
    using Tile = nvshmemx::Tensor<T, decltype(lay)>;                                                                   \
    using Wide = nvshmemx::Tensor<T, decltype(wide)>;                                                                  \
    Tile s(src, lay), d(dst, lay);                                                                                     \
    Wide dw(dst, wide);                                                                                                \
    struct none {};                                                                                                    \
    auto start = nvshmemx::make_shape(0, 0);                                                                           \
    auto bound = nvshmemx::make_shape(kRows - 4, kCols); /* the tile's last 4 rows are outside */                      \
    using P = decltype(start);                                                                                         \
    const nvshmem_team_t w = NVSHMEM_TEAM_WORLD;                                                                       \
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();                                                               \
    int r = 0;                                                                                                         \
    switch (c) {                                                                                                       \
      case kSumPull:                                                                                                   \
        r = nvshmemx::tile_sum_reduce##SFX<Tile, Tile, none, nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(w, s, d, none{},        \
                                                                                               none{}, 0);             \
        r |= nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(w, 0);                              \
        gshmem::dev::sync_all<gshmem::Scope::SC>(); /* nobody's src changes before every member has read it */         \
        break;                                                                                                         \
      case kMaxPush:                                                                                                   \
        r = nvshmemx::tile_max_reduce##SFX<Tile, Tile, none, nvshmemx::NVLS_TWO_SHOT_PUSH_NBI>(w, s, d, none{},        \
                                                                                               none{}, n - 1, 0);      \
        r |= nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_TWO_SHOT_PUSH_NBI>(w, 0);                              \
        break;                                                                                                         \
      case kRootedPred:                                                                                                \
        r = nvshmemx::tile_sum_rooted_reduce##SFX<Tile, Tile, P, nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(w, s, d, start,     \
                                                                                                   bound, 0, 0);       \
        r |= nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(w, 0);                              \
        gshmem::dev::sync_all<gshmem::Scope::SC>();                                                                    \
        break;                                                                                                         \
      case kAllgather:                                                                                                 \
        r = nvshmemx::tile_allgather##SFX<Tile, Wide, none, nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(w, s, dw, none{},        \
                                                                                              none{}, 0);              \
        r |= nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(w, 0);                              \
        break;                                                                                                         \
      case kBroadcast:                                                                                                 \
        if (me == 0) {                                                                                                 \
          r = nvshmemx::tile_broadcast##SFX<Tile, Tile, none, nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(w, s, d, none{},       \
                                                                                                none{}, 0);            \
        }                                                                                                              \
        r |= nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(w, 0);                              \
        break;                                                                                                         \
      case kPutPeer:                                                                                                   \
        r = nvshmemx::tile_put##SFX<Tile, Tile, none, nvshmemx::PEER_PUSH_NBI>(s, d, none{}, none{}, (me + 1) % n, 0); \
        gshmem::dev::barrier_all<gshmem::Scope::SC>();                                                                 \
        break;                                                                                                         \
      case kGetRemote:                                                                                                 \
        r = nvshmemx::tile_get##SFX<Tile, Tile, none, nvshmemx::REMOTE_PULL_NBI>(s, d, none{}, none{}, (me + 1) % n,   \
                                                                                 0);                                   \
        gshmem::dev::barrier_all<gshmem::Scope::SC>();                                                                 \
        break;                                                                                                         \
      default: /* kErrors: nothing moves, on every PE alike */                                                         \
        if (nvshmemx::tile_sum_reduce##SFX<Tile, Tile, none, nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(                        \
                w, s, d, none{}, none{}, 1) != NVSHMEMX_ERROR_INVALID_VALUE)                                           \
          r |= 1;                                                                                                      \
        if (nvshmemx::tile_sum_reduce##SFX<Tile, Tile, none, nvshmemx::NVLS_TWO_SHOT_PUSH_NBI>(                        \
                w, s, d, none{}, none{}, 0) != NVSHMEMX_ERROR_INVALID_VALUE) /* no root */                             \
          r |= 2;                                                                                                      \
        if (nvshmemx::tile_allgather##SFX<Tile, Tile, none, nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(                         \
                w, s, d, none{}, none{}, 0) != (n > 1 ? NVSHMEMX_ERROR_INVALID_VALUE : 0)) /* dst too small */         \
          r |= 4;                                                                                                      \
        if (nvshmemx::tile_put##SFX<Tile, Tile, none, nvshmemx::PEER_PUSH_NBI>(s, d, none{}, none{}, me, 1) !=         \
            NVSHMEMX_ERROR_INVALID_VALUE)                                                                              \
          r |= 8;                                                                                                      \
        break;                                                                                                         \
    }                                                                                                                  \
    return r;                                                                                                          \
  }

GSHMEMT_TILE_CASES(cases_thread, , kThread)
GSHMEMT_TILE_CASES(cases_warp, _warp, kWarp)
GSHMEMT_TILE_CASES(cases_warpgroup, _warpgroup, kWarpgroup)
GSHMEMT_TILE_CASES(cases_block, _block, kBlock)

// One case by the first group of the block (256 threads; the scope's group is its first threads).
template <gshmem::Scope S, class T>
__global__ void tile_case(int c, T* src, T* dst, int* rc) {
  if (static_cast<int>(threadIdx.x) >= group_threads<S>()) return;
  int r = 0;
  if constexpr (S == gshmem::Scope::kThread) {
    r = cases_thread<T>(c, src, dst);
  } else if constexpr (S == gshmem::Scope::kWarp) {
    r = cases_warp<T>(c, src, dst);
  } else if constexpr (S == gshmem::Scope::kWarpgroup) {
    r = cases_warpgroup<T>(c, src, dst);
  } else {
    r = cases_block<T>(c, src, dst);
  }
  if (threadIdx.x == 0) *rc = r;
}

template <class T>
float value(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else {
    return static_cast<float>(v);
  }
}
template <class T>
T make(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(v);
  } else {
    return static_cast<T>(v);
  }
}

// The source element i of PE pe (small integers: exact in half too).
float source_of(int pe, int i) { return static_cast<float>(pe * 100 + i % 50); }

template <gshmem::Scope S, class T>
int run_case(Case c, T* src, T* dst, int* rc, const char* scope, const char* type) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  std::vector<T> h(static_cast<size_t>(kElems) * n);
  for (int i = 0; i < kElems; ++i) h[i] = make<T>(source_of(me, i));
  CUDA_CHECK(cudaMemcpy(src, h.data(), kElems * sizeof(T), cudaMemcpyHostToDevice));
  for (auto& x : h) x = make<T>(kUntouched);
  CUDA_CHECK(cudaMemcpy(dst, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  nvshmem_barrier_all();
  tile_case<S, T><<<1, 256>>>(static_cast<int>(c), src, dst, rc);
  KERNEL_CHECK();
  nvshmem_barrier_all();
  int code = -1;
  CUDA_CHECK(cudaMemcpy(&code, rc, sizeof code, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h.data(), dst, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  int checked = 0;
  auto expect = [&](int i, float want) {
    MP_CHECK(value(h[i]) == want, "%s %s case %d: dst[%d] = %g, expected %g", scope, type, static_cast<int>(c), i,
             value(h[i]), want);
    ++checked;
  };
  if (c == kErrors) {
    MP_CHECK(code == 0, "%s %s: the error returns were wrong (mask %d)", scope, type, code);
    return 1;
  }
  MP_CHECK(code == NVSHMEMX_SUCCESS, "%s %s case %d returned %d", scope, type, static_cast<int>(c), code);
  for (int i = 0; i < kElems; ++i) {
    float sum = 0;
    for (int p = 0; p < n; ++p) sum += source_of(p, i);
    switch (c) {
      case kSumPull:
        expect(i, sum);
        break;
      case kMaxPush:
        expect(i, source_of(n - 1, i));
        break;
      case kRootedPred:
        expect(i, me == 0 && i % kRows < kRows - 4 ? sum : kUntouched);
        break;
      case kAllgather:
        for (int p = 0; p < n; ++p) expect(p * kElems + i, source_of(p, i));
        break;
      case kBroadcast:
        expect(i, source_of(0, i));
        break;
      case kPutPeer:
        expect(i, source_of((me + n - 1) % n, i));
        break;
      case kGetRemote:
        expect(i, source_of((me + 1) % n, i));
        break;
      default:
        break;
    }
  }
  return checked;
}

template <gshmem::Scope S, class T>
int run_scope(T* src, T* dst, int* rc, const char* scope, const char* type) {
  int checked = 0;
  for (Case c : {kSumPull, kMaxPush, kRootedPred, kAllgather, kBroadcast, kPutPeer, kGetRemote, kErrors}) {
    checked += run_case<S, T>(c, src, dst, rc, scope, type);
  }
  return checked;
}

template <class T>
int run_type(const char* type) {
  const int n = nvshmem_n_pes();
  T* src = static_cast<T*>(nvshmem_malloc(kElems * sizeof(T)));
  T* dst = static_cast<T*>(nvshmem_malloc(static_cast<size_t>(kElems) * n * sizeof(T)));
  int* rc = nullptr;
  CUDA_CHECK(cudaMalloc(&rc, sizeof(int)));
  int checked = run_scope<gshmem::Scope::kThread, T>(src, dst, rc, "thread", type);
  checked += run_scope<gshmem::Scope::kWarp, T>(src, dst, rc, "warp", type);
  checked += run_scope<gshmem::Scope::kWarpgroup, T>(src, dst, rc, "warpgroup", type);
  checked += run_scope<gshmem::Scope::kBlock, T>(src, dst, rc, "block", type);
  CUDA_CHECK(cudaFree(rc));
  nvshmem_free(dst);
  nvshmem_free(src);
  return checked;
}

}  // namespace

int main() {
  gputest::skip_without_gpu();
  gputest::init_and_select_gpu();
  int checked = run_type<float>("float");
  checked += run_type<__half>("half");
  std::printf("gpu_tile: PE %d of %d: %d values checked, every case at every scope\n", nvshmem_my_pe(), nvshmem_n_pes(),
              checked);
  nvshmem_finalize();
  return 0;
}
