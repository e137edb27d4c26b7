// Strided device RMA: iput and iget, typed (every RMA type) and sized (8 to 128 bits), at thread,
// warp and block scope, with random strides and counts. The receiving side is filled with a poison
// pattern first: every strided element must hold the source element, every byte between them and
// around them must still be poison. Warp scope runs two warps (the second one partial), each with
// its own half of the elements, which also checks that warps work independently.
#include <cstdint>
#include <string>
#include <vector>

#include "../gen/type_lists.h"
#include "gpu_test.cuh"

namespace {

enum Scope { kThread, kWarp, kBlock };
enum Op { kIput, kIget };

#define GSHMEMT_STRIDED_BODY(CALL, CALLX, T) \
  T* dd = static_cast<T*>(d);                \
  const T* ss = static_cast<const T*>(s);    \
  if (scope == kThread) {                    \
    CALL(dd, ss, dst, sst, n, pe);           \
  } else if (scope == kWarp) {               \
    CALLX##_warp(dd, ss, dst, sst, n, pe);   \
  } else {                                   \
    CALLX##_block(dd, ss, dst, sst, n, pe);  \
  }

#define GSHMEMT_STRIDED_ARGS int scope, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe

#define GSHMEMT_TYPED(NAME, TYPE)                                                             \
  struct Typed_##NAME {                                                                       \
    static constexpr const char* iput_name = "nvshmem_" #NAME "_iput";                        \
    static constexpr const char* iget_name = "nvshmem_" #NAME "_iget";                        \
    static constexpr size_t elem = sizeof(TYPE);                                              \
    __device__ static void iput(GSHMEMT_STRIDED_ARGS){                                        \
        GSHMEMT_STRIDED_BODY(nvshmem_##NAME##_iput, nvshmemx_##NAME##_iput, TYPE)} __device__ \
        static void iget(GSHMEMT_STRIDED_ARGS) {                                              \
      GSHMEMT_STRIDED_BODY(nvshmem_##NAME##_iget, nvshmemx_##NAME##_iget, TYPE)               \
    }                                                                                         \
  };
GSHMEMT_TYPES_RMA(GSHMEMT_TYPED)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
GSHMEMT_TYPES_RMA_FP16(GSHMEMT_TYPED)
#endif
#undef GSHMEMT_TYPED

#define GSHMEMT_SIZED(BITS)                                                             \
  struct Sized_##BITS {                                                                 \
    static constexpr const char* iput_name = "nvshmem_iput" #BITS;                      \
    static constexpr const char* iget_name = "nvshmem_iget" #BITS;                      \
    static constexpr size_t elem = (BITS) / 8;                                          \
    __device__ static void iput(GSHMEMT_STRIDED_ARGS){                                  \
        GSHMEMT_STRIDED_BODY(nvshmem_iput##BITS, nvshmemx_iput##BITS, void)} __device__ \
        static void iget(GSHMEMT_STRIDED_ARGS) {                                        \
      GSHMEMT_STRIDED_BODY(nvshmem_iget##BITS, nvshmemx_iget##BITS, void)               \
    }                                                                                   \
  };
GSHMEMT_SIZED(8)
GSHMEMT_SIZED(16)
GSHMEMT_SIZED(32)
GSHMEMT_SIZED(64)
GSHMEMT_SIZED(128)
#undef GSHMEMT_SIZED

// Every thread of the launch calls with the same arguments, as the scope requires; at warp scope
// each of the two warps moves its own half of the elements.
template <class A>
__global__ void strided(int op, int scope, char* dest, const char* source, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                        int pe) {
  if (scope == kWarp) {
    const int w = static_cast<int>(threadIdx.x) / 32;
    const size_t half = n / 2;
    const size_t first = w == 0 ? 0 : half;
    dest += first * static_cast<size_t>(dst) * A::elem;
    source += first * static_cast<size_t>(sst) * A::elem;
    n = w == 0 ? half : n - half;
  }
  if (op == kIput) {
    A::iput(scope, dest, source, dst, sst, n, pe);
  } else {
    A::iget(scope, dest, source, dst, sst, n, pe);
  }
  nvshmem_quiet();
}

constexpr size_t kPad = 64;        // poison checked before the first element and after the last
constexpr size_t kBuf = 1u << 20;  // bytes of each buffer
constexpr unsigned char kPoison = 0xa5;

struct Buffers {
  char* sym_dst;  // symmetric: iput's destination
  char* sym_src;  // symmetric: iget's source
  char* dev_src;  // iput's source
  char* dev_dst;  // iget's destination
};

std::string hex(const unsigned char* p, size_t n) {
  std::string s = "0x";
  char b[4];
  for (size_t i = n; i-- > 0;) {  // little-endian: most significant byte first
    std::snprintf(b, sizeof b, "%02x", p[i]);
    s += b;
  }
  return s;
}

template <class A>
void run_one(const Buffers& b, int op, int scope, size_t n, ptrdiff_t dst, ptrdiff_t sst, uint64_t round) {
  const int me = nvshmem_my_pe(), peer = 1 - me;
  const size_t e = A::elem;
  const size_t dst_extent = ((n - 1) * static_cast<size_t>(dst) + 1) * e;
  const size_t src_extent = ((n - 1) * static_cast<size_t>(sst) + 1) * e;
  MP_CHECK(kPad + dst_extent + kPad <= kBuf && kPad + src_extent <= kBuf, "test bug: too large");
  // This PE's source, and its poisoned target.
  std::vector<unsigned char> src(src_extent);
  mp::fill(src.data(), src_extent, mp::seed_of(me, round));
  char* source = (op == kIput ? b.dev_src : b.sym_src) + kPad;
  char* target = (op == kIput ? b.sym_dst : b.dev_dst);
  CUDA_CHECK(cudaMemcpy(source, src.data(), src_extent, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(target, kPoison, dst_extent + 2 * kPad));
  gputest::sync_and_barrier();
  if (op == kIput) {
    // Into the other PE's sym_dst, from this PE's dev_src.
    char* dest = b.sym_dst + kPad;
    if (scope == kThread) {
      strided<A><<<1, 1>>>(op, scope, dest, source, dst, sst, n, peer);
    } else if (scope == kWarp) {
      strided<A><<<1, 48>>>(op, scope, dest, source, dst, sst, n, peer);
    } else {
      strided<A><<<1, dim3(16, 13)>>>(op, scope, dest, source, dst, sst, n, peer);
    }
  } else {
    // From the other PE's sym_src into this PE's dev_dst.
    char* dest = b.dev_dst + kPad;
    if (scope == kThread) {
      strided<A><<<1, 1>>>(op, scope, dest, source, dst, sst, n, peer);
    } else if (scope == kWarp) {
      strided<A><<<1, 48>>>(op, scope, dest, source, dst, sst, n, peer);
    } else {
      strided<A><<<1, dim3(16, 13)>>>(op, scope, dest, source, dst, sst, n, peer);
    }
  }
  CUDA_CHECK(cudaGetLastError());
  char what[200];
  std::snprintf(what, sizeof what, "%s, %s scope, %zu elements, destination stride %td, source stride %td",
                op == kIput ? A::iput_name : A::iget_name, gputest::scope_name(scope), n, dst, sst);
  gputest::sync_or_die(0, 30, [&] { return std::string(what); });
  gputest::sync_and_barrier();
  // The target holds the other PE's source elements (iput: the other PE put them here; iget: this
  // PE got them from there).
  std::vector<unsigned char> theirs(src_extent);
  mp::fill(theirs.data(), src_extent, mp::seed_of(peer, round));
  const auto got = gputest::to_host(target, dst_extent + 2 * kPad);
  const unsigned char* t = got.data() + kPad;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* want = theirs.data() + i * static_cast<size_t>(sst) * e;
    const unsigned char* have = t + i * static_cast<size_t>(dst) * e;
    if (std::memcmp(want, have, e) != 0) {
      MP_CHECK(false, "%s: element %zu is %s, expected %s", what, i, hex(have, e).c_str(), hex(want, e).c_str());
    }
  }
  for (size_t off = 0; off < dst_extent + 2 * kPad; ++off) {
    const long rel = static_cast<long>(off) - static_cast<long>(kPad);
    const bool in_element = rel >= 0 && static_cast<size_t>(rel) < dst_extent &&
                            (static_cast<size_t>(rel) % (static_cast<size_t>(dst) * e)) < e;
    if (in_element) continue;
    MP_CHECK(got[off] == kPoison,
             "%s: byte %ld (relative to the first element) between or around the elements "
             "changed: 0x%02x, was 0x%02x",
             what, rel, got[off], kPoison);
  }
  gputest::sync_and_barrier();  // the buffers are refilled next
}

// Each API at each scope: one to three elements, then two random counts (one of them possibly
// contiguous) of up to 600 elements at thread scope and 3000 at warp and block scope. Under the network
// scale (gputest::net_scale), where every element is a network round trip, the largest counts are
// divided by it (9 and 46 at 64: the partial second warp of 16 threads may still take two elements a
// thread; the block's 208 threads take at most one each, their loop is left to the full runs).
template <class A>
void suite(const Buffers& b, uint64_t* round) {
  const size_t max_thread = gputest::scaled<size_t>(600, 8), max_group = gputest::scaled<size_t>(3000, 40);
  for (int op = kIput; op <= kIget; ++op) {
    for (int scope = kThread; scope <= kBlock; ++scope) {
      for (int k = 0; k < 3; ++k) {
        const uint64_t r = ++*round;
        const uint64_t h = gputest::hash64(mp::seed_of(0, r, 0x57d));  // the same on both PEs
        const size_t max_n = scope == kThread ? max_thread : max_group;
        size_t n = 1 + h % max_n;
        ptrdiff_t dst = 1 + static_cast<ptrdiff_t>((h >> 20) % 9), sst = 1 + static_cast<ptrdiff_t>((h >> 28) % 9);
        if (k == 0) {
          n = 1 + (h >> 40) % 3;  // one to three elements
        } else if (k == 1 && (h >> 36) % 2) {
          dst = sst = 1;  // contiguous
        }
        run_one<A>(b, op, scope, n, dst, sst, r);
      }
    }
  }
  if (nvshmem_my_pe() == 0) std::printf("gpu_strided: %s and %s: thread, warp, block\n", A::iput_name, A::iget_name);
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  Buffers b;
  b.sym_dst = static_cast<char*>(nvshmem_malloc(kBuf));
  b.sym_src = static_cast<char*>(nvshmem_malloc(kBuf));
  MP_CHECK(b.sym_dst && b.sym_src, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMalloc(&b.dev_src, kBuf));
  CUDA_CHECK(cudaMalloc(&b.dev_dst, kBuf));
  uint64_t round = 0;
#define GSHMEMT_RUN(NAME, TYPE) suite<Typed_##NAME>(b, &round);
  GSHMEMT_TYPES_RMA(GSHMEMT_RUN)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  GSHMEMT_TYPES_RMA_FP16(GSHMEMT_RUN)
#endif
#undef GSHMEMT_RUN
  suite<Sized_8>(b, &round);
  suite<Sized_16>(b, &round);
  suite<Sized_32>(b, &round);
  suite<Sized_64>(b, &round);
  suite<Sized_128>(b, &round);
  gputest::sync_and_barrier();
  CUDA_CHECK(cudaFree(b.dev_src));
  CUDA_CHECK(cudaFree(b.dev_dst));
  nvshmem_free(b.sym_src);
  nvshmem_free(b.sym_dst);
  if (nvshmem_my_pe() == 0) std::printf("gpu_strided: every check passed on 2 PEs%s\n", gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
