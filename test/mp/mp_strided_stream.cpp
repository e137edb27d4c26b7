// Host strided RMA and the stream-ordered forms between PEs:
//  - iput/iget of every RMA type and size, with different strides on both sides: every element
//    lands where it belongs and the elements in between are untouched;
//  - every *_on_stream RMA form (p, g, put, get, _nbi, iput, iget, put_signal, put_signal_nbi; typed,
//    sized and mem), signal_op_on_stream, signal_wait_until_on_stream, wait_until(_all)(_vector)
//    _on_stream of every WAIT type, quiet_on_stream and sync_all(_on_stream).
// The streams are the default stream (0); the CPU backend runs stream work at once, the GPU backend
// in order on the stream, after which the test waits for the stream.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gen/type_lists.h"
#include "mp_test.h"

namespace {

int me() { return nvshmem_my_pe(); }
int npes() { return nvshmem_n_pes(); }
int next_pe() { return (me() + 1) % npes(); }
int prev_pe() { return (me() + npes() - 1) % npes(); }

constexpr unsigned char kGuard = 0xA5;
uint64_t g_round = 0;

// Host memory the GPU can read (pinned when the CUDA runtime is there), for the status and value
// arrays of the stream-ordered waits.
void* device_readable(size_t bytes) {
#if GSHMEM_TEST_HAVE_CUDART
  void* p = nullptr;
  if (cudaMallocHost(&p, bytes) == cudaSuccess) return p;
  (void)cudaGetLastError();
#endif
  return std::malloc(bytes);
}

std::vector<unsigned char> local_bytes(const void* sym, size_t n) {
  std::vector<unsigned char> v(n);
  nvshmem_getmem(v.data(), sym, n, me());
  return v;
}

// ---- strided --------------------------------------------------------------------------------

using Strided = void (*)(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe);

// Element i of `count` goes from source element i * sst to destination element i * dst.
void check_strided(const char* name, size_t elem, Strided iput, Strided iget) {
  constexpr ptrdiff_t kDst = 3, kSst = 2;
  constexpr size_t kCount = 5;
  const size_t span = (kCount - 1) * kDst + 1;  // elements the destination covers
  ++g_round;
  unsigned char* sym = static_cast<unsigned char*>(nvshmem_malloc(span * elem + 2 * elem));
  MP_CHECK(sym, "nvshmem_malloc failed");
  std::vector<unsigned char> guard(span * elem + 2 * elem, kGuard);
  nvshmem_putmem(sym, guard.data(), guard.size(), me());
  std::vector<unsigned char> src((kCount - 1) * kSst * elem + elem);
  mp::fill(src.data(), src.size(), mp::seed_of(me(), g_round, elem));
  nvshmem_barrier_all();
  iput(sym + elem, src.data(), kDst, kSst, kCount, next_pe());
  nvshmem_barrier_all();
  std::vector<unsigned char> want((kCount - 1) * kSst * elem + elem);
  mp::fill(want.data(), want.size(), mp::seed_of(prev_pe(), g_round, elem));
  std::vector<unsigned char> got = local_bytes(sym, guard.size());
  for (size_t e = 0; e < span + 2; ++e) {
    const bool target = e >= 1 && e <= span && (e - 1) % kDst == 0;
    const unsigned char* g = got.data() + e * elem;
    if (target) {
      const size_t i = (e - 1) / kDst;
      MP_CHECK(std::memcmp(g, want.data() + i * kSst * elem, elem) == 0, "%s: element %zu from PE %d is wrong", name, i,
               prev_pe());
    } else {
      for (size_t b = 0; b < elem; ++b) {
        MP_CHECK(g[b] == kGuard, "%s wrote element slot %zu between the strided ones", name, e);
      }
    }
  }
  // iget: read the next PE's strided elements back into a strided local buffer.
  std::vector<unsigned char> back((kCount - 1) * kSst * elem + elem, kGuard);
  iget(back.data(), sym + elem, kSst, kDst, kCount, next_pe());
  std::vector<unsigned char> mine((kCount - 1) * kSst * elem + elem);
  mp::fill(mine.data(), mine.size(), mp::seed_of(me(), g_round, elem));
  for (size_t i = 0; i < kCount; ++i) {
    MP_CHECK(std::memcmp(back.data() + i * kSst * elem, mine.data() + i * kSst * elem, elem) == 0,
             "%s (iget): element %zu from PE %d is wrong", name, i, next_pe());
    if (i + 1 < kCount) {
      for (size_t b = elem; b < kSst * elem; ++b) {
        MP_CHECK(back[i * kSst * elem + b] == kGuard, "%s (iget) wrote between the strided elements", name);
      }
    }
  }
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

// ---- stream-ordered RMA -----------------------------------------------------------------------

// The on-stream forms of one element type, as byte-level calls.
struct StreamOps {
  const char* name;
  size_t elem;
  void (*p)(void* dest, const void* value, int pe);  // value: one element's bytes
  void (*g)(void* out, const void* src, int pe);
  void (*put)(void*, const void*, size_t, int);
  void (*put_nbi)(void*, const void*, size_t, int);
  void (*get)(void*, const void*, size_t, int);
  void (*get_nbi)(void*, const void*, size_t, int);
  Strided iput;
  Strided iget;
  void (*put_signal)(void*, const void*, size_t, uint64_t*, uint64_t, int, int);
  void (*put_signal_nbi)(void*, const void*, size_t, uint64_t*, uint64_t, int, int);
};

void check_stream_rma(const StreamOps& op, uint64_t* sig) {
  const size_t e = op.elem;
  constexpr size_t kSlots = 24;  // elements
  ++g_round;
  unsigned char* dst = static_cast<unsigned char*>(nvshmem_malloc(kSlots * e));
  unsigned char* src_sym = static_cast<unsigned char*>(nvshmem_malloc(kSlots * e));
  MP_CHECK(dst && src_sym, "nvshmem_malloc failed");
  std::vector<unsigned char> guard(kSlots * e, kGuard), src(kSlots * e);
  nvshmem_putmem(dst, guard.data(), guard.size(), me());
  mp::fill(src.data(), src.size(), mp::seed_of(me(), g_round, e));
  nvshmem_putmem(src_sym, src.data(), src.size(), me());  // what the next PE reads with the gets
  const uint64_t sig_before = nvshmem_signal_fetch(sig + 1);
  nvshmem_barrier_all();

  // To the next PE: p to slot 0, put 1-3, put_nbi 4-6, put_signal 7-8, put_signal_nbi 9-10,
  // iput (stride 2) 11, 13, 15.
  if (op.p) op.p(dst, src.data(), next_pe());
  op.put(dst + 1 * e, src.data() + 1 * e, 3, next_pe());
  op.put_nbi(dst + 4 * e, src.data() + 4 * e, 3, next_pe());
  op.put_signal(dst + 7 * e, src.data() + 7 * e, 2, sig, g_round, NVSHMEM_SIGNAL_SET, next_pe());
  op.put_signal_nbi(dst + 9 * e, src.data() + 9 * e, 2, sig + 1, 1, NVSHMEM_SIGNAL_ADD, next_pe());
  if (op.iput) op.iput(dst + 11 * e, src.data() + 11 * e, 2, 1, 3, next_pe());
  nvshmemx_quiet_on_stream(0);
  mp::sync_default_stream();
  nvshmem_barrier_all();
  std::vector<unsigned char> want(kSlots * e);
  mp::fill(want.data(), want.size(), mp::seed_of(prev_pe(), g_round, e));
  std::vector<unsigned char> got = local_bytes(dst, kSlots * e);
  auto same = [&](size_t slot, size_t from) {
    return std::memcmp(got.data() + slot * e, want.data() + from * e, e) == 0;
  };
  if (op.p) MP_CHECK(same(0, 0), "%s p_on_stream: wrong value from PE %d", op.name, prev_pe());
  for (size_t s = 1; s <= 10; ++s)
    MP_CHECK(same(s, s), "%s: on-stream put element %zu from PE %d is wrong", op.name, s, prev_pe());
  if (op.iput) {
    for (size_t i = 0; i < 3; ++i) {
      MP_CHECK(same(11 + 2 * i, 11 + i), "%s iput_on_stream: element %zu is wrong", op.name, i);
      if (i < 2) MP_CHECK(got[(12 + 2 * i) * e] == kGuard, "%s iput_on_stream wrote between elements", op.name);
    }
  }
  MP_CHECK(nvshmem_signal_fetch(sig) == g_round, "%s put_signal_on_stream: signal %llu, not %llu", op.name,
           static_cast<unsigned long long>(nvshmem_signal_fetch(sig)), static_cast<unsigned long long>(g_round));
  MP_CHECK(nvshmem_signal_fetch(sig + 1) == sig_before + 1, "%s put_signal_nbi_on_stream: the signal was not added",
           op.name);

  // From the next PE: g of slot 0, get 1-3, get_nbi 4-6, iget (stride 2 into local) 7..
  std::vector<unsigned char> in(kSlots * e, kGuard);
  if (op.g) op.g(in.data(), src_sym, next_pe());
  op.get(in.data() + 1 * e, src_sym + 1 * e, 3, next_pe());
  op.get_nbi(in.data() + 4 * e, src_sym + 4 * e, 3, next_pe());
  if (op.iget) op.iget(in.data() + 7 * e, src_sym + 7 * e, 2, 1, 3, next_pe());
  nvshmemx_quiet_on_stream(0);
  mp::sync_default_stream();
  std::vector<unsigned char> theirs(kSlots * e);
  mp::fill(theirs.data(), theirs.size(), mp::seed_of(next_pe(), g_round, e));
  auto got_in = [&](size_t slot, size_t from) {
    return std::memcmp(in.data() + slot * e, theirs.data() + from * e, e) == 0;
  };
  if (op.g) MP_CHECK(got_in(0, 0), "%s g_on_stream: wrong value from PE %d", op.name, next_pe());
  for (size_t s = 1; s <= 6; ++s) MP_CHECK(got_in(s, s), "%s: on-stream get element %zu is wrong", op.name, s);
  if (op.iget) {
    for (size_t i = 0; i < 3; ++i) MP_CHECK(got_in(7 + 2 * i, 7 + i), "%s iget_on_stream: element %zu", op.name, i);
    MP_CHECK(in[8 * e] == kGuard, "%s iget_on_stream wrote between elements", op.name);
  }
  nvshmem_barrier_all();
  nvshmem_free(src_sym);
  nvshmem_free(dst);
}

// ---- stream-ordered waits -------------------------------------------------------------------

template <class T>
struct StreamWaitOps {
  void (*wait_until)(T*, int, T, cudaStream_t);
  void (*wait_until_all)(T*, size_t, const int*, int, T, cudaStream_t);
  void (*wait_until_all_vector)(T*, size_t, const int*, int, T*, cudaStream_t);
};

template <class T>
void check_stream_wait(const char* type, const StreamWaitOps<T>& op) {
  T* iv = static_cast<T*>(nvshmem_calloc(4, sizeof(T)));
  int* status = static_cast<int*>(device_readable(4 * sizeof(int)));
  T* want = static_cast<T*>(device_readable(4 * sizeof(T)));
  MP_CHECK(iv && status && want, "allocation failed");
  status[0] = status[1] = status[3] = 0;
  status[2] = 1;
  want[0] = T(3);
  want[1] = T(4);
  want[2] = T(99);
  want[3] = T(5);
  nvshmem_barrier_all();
  // The previous PE writes, then this PE's stream waits; stream work after the wait sees the values.
  T v = T(9);
  nvshmem_putmem(iv, &v, sizeof v, next_pe());
  op.wait_until(iv, NVSHMEM_CMP_GE, T(9), 0);
  mp::sync_default_stream();
  T seen;
  nvshmem_getmem(&seen, iv, sizeof seen, me());
  MP_CHECK(seen == T(9), "%s wait_until_on_stream: the value did not arrive", type);
  nvshmem_barrier_all();
  for (size_t i : {size_t(1), size_t(3)}) nvshmem_putmem(iv + i, &v, sizeof v, next_pe());
  op.wait_until_all(iv, 4, status, NVSHMEM_CMP_EQ, T(9), 0);
  mp::sync_default_stream();
  nvshmem_barrier_all();
  for (size_t i : {size_t(0), size_t(1), size_t(3)}) nvshmem_putmem(iv + i, want + i, sizeof(T), next_pe());
  op.wait_until_all_vector(iv, 4, status, NVSHMEM_CMP_EQ, want, 0);
  mp::sync_default_stream();
  T all[4];
  nvshmem_getmem(all, iv, sizeof all, me());
  MP_CHECK(all[0] == T(3) && all[1] == T(4) && all[3] == T(5), "%s wait_until_all_vector_on_stream", type);
  nvshmem_barrier_all();
#if GSHMEM_TEST_HAVE_CUDART
  if (cudaFreeHost(want) != cudaSuccess) std::free(want);
  if (cudaFreeHost(status) != cudaSuccess) std::free(status);
  (void)cudaGetLastError();
#else
  std::free(want);
  std::free(status);
#endif
  nvshmem_free(iv);
}

}  // namespace

int main() {
  nvshmem_init();
  int forms = 0;
  // Strided, typed and sized.
#define GSHMEMT_STRIDED(NAME, T)                                                          \
  check_strided(                                                                          \
      "nvshmem_" #NAME "_iput/iget", sizeof(T),                                           \
      [](void* d, const void* s, ptrdiff_t a, ptrdiff_t b, size_t n, int pe) {            \
        nvshmem_##NAME##_iput(static_cast<T*>(d), static_cast<const T*>(s), a, b, n, pe); \
      },                                                                                  \
      [](void* d, const void* s, ptrdiff_t a, ptrdiff_t b, size_t n, int pe) {            \
        nvshmem_##NAME##_iget(static_cast<T*>(d), static_cast<const T*>(s), a, b, n, pe); \
      });                                                                                 \
  ++forms;
  GSHMEMT_TYPES_RMA(GSHMEMT_STRIDED)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  GSHMEMT_TYPES_RMA_FP16(GSHMEMT_STRIDED)
#endif
#undef GSHMEMT_STRIDED
  check_strided("nvshmem_iput8/iget8", 1, nvshmem_iput8, nvshmem_iget8);
  check_strided("nvshmem_iput16/iget16", 2, nvshmem_iput16, nvshmem_iget16);
  check_strided("nvshmem_iput32/iget32", 4, nvshmem_iput32, nvshmem_iget32);
  check_strided("nvshmem_iput64/iget64", 8, nvshmem_iput64, nvshmem_iget64);
  check_strided("nvshmem_iput128/iget128", 16, nvshmem_iput128, nvshmem_iget128);
  forms += 5;

  // Stream-ordered RMA, typed, sized and mem.
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
#define GSHMEMT_STREAM(NAME, T)                                                                                      \
  check_stream_rma(                                                                                                  \
      StreamOps{#NAME, sizeof(T),                                                                                    \
                [](void* d, const void* v, int pe) {                                                                 \
                  T x;                                                                                               \
                  std::memcpy(&x, v, sizeof x);                                                                      \
                  nvshmemx_##NAME##_p_on_stream(static_cast<T*>(d), x, pe, 0);                                       \
                },                                                                                                   \
                [](void* out, const void* s, int pe) {                                                               \
                  T x = nvshmemx_##NAME##_g_on_stream(static_cast<const T*>(s), pe, 0);                              \
                  std::memcpy(out, &x, sizeof x);                                                                    \
                },                                                                                                   \
                [](void* d, const void* s, size_t n, int pe) {                                                       \
                  nvshmemx_##NAME##_put_on_stream(static_cast<T*>(d), static_cast<const T*>(s), n, pe, 0);           \
                },                                                                                                   \
                [](void* d, const void* s, size_t n, int pe) {                                                       \
                  nvshmemx_##NAME##_put_nbi_on_stream(static_cast<T*>(d), static_cast<const T*>(s), n, pe, 0);       \
                },                                                                                                   \
                [](void* d, const void* s, size_t n, int pe) {                                                       \
                  nvshmemx_##NAME##_get_on_stream(static_cast<T*>(d), static_cast<const T*>(s), n, pe, 0);           \
                },                                                                                                   \
                [](void* d, const void* s, size_t n, int pe) {                                                       \
                  nvshmemx_##NAME##_get_nbi_on_stream(static_cast<T*>(d), static_cast<const T*>(s), n, pe, 0);       \
                },                                                                                                   \
                [](void* d, const void* s, ptrdiff_t a, ptrdiff_t b, size_t n, int pe) {                             \
                  nvshmemx_##NAME##_iput_on_stream(static_cast<T*>(d), static_cast<const T*>(s), a, b, n, pe, 0);    \
                },                                                                                                   \
                [](void* d, const void* s, ptrdiff_t a, ptrdiff_t b, size_t n, int pe) {                             \
                  nvshmemx_##NAME##_iget_on_stream(static_cast<T*>(d), static_cast<const T*>(s), a, b, n, pe, 0);    \
                },                                                                                                   \
                [](void* d, const void* s, size_t n, uint64_t* sg, uint64_t v, int o, int pe) {                      \
                  nvshmemx_##NAME##_put_signal_on_stream(static_cast<T*>(d), static_cast<const T*>(s), n, sg, v, o,  \
                                                         pe, 0);                                                     \
                },                                                                                                   \
                [](void* d, const void* s, size_t n, uint64_t* sg, uint64_t v, int o, int pe) {                      \
                  nvshmemx_##NAME##_put_signal_nbi_on_stream(static_cast<T*>(d), static_cast<const T*>(s), n, sg, v, \
                                                             o, pe, 0);                                              \
                }},                                                                                                  \
      sig);                                                                                                          \
  ++forms;
  GSHMEMT_TYPES_RMA(GSHMEMT_STREAM)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
  GSHMEMT_TYPES_RMA_FP16(GSHMEMT_STREAM)
#endif
#undef GSHMEMT_STREAM
#define GSHMEMT_SIZED_STREAM(BITS)                                                                                    \
  check_stream_rma(                                                                                                   \
      StreamOps{"put" #BITS, BITS / 8, nullptr, nullptr,                                                              \
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_put##BITS##_on_stream(d, s, n, pe, 0); },     \
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_put##BITS##_nbi_on_stream(d, s, n, pe, 0); }, \
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_get##BITS##_on_stream(d, s, n, pe, 0); },     \
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_get##BITS##_nbi_on_stream(d, s, n, pe, 0); }, \
                [](void* d, const void* s, ptrdiff_t a, ptrdiff_t b, size_t n, int pe) {                              \
                  nvshmemx_iput##BITS##_on_stream(d, s, a, b, n, pe, 0);                                              \
                },                                                                                                    \
                [](void* d, const void* s, ptrdiff_t a, ptrdiff_t b, size_t n, int pe) {                              \
                  nvshmemx_iget##BITS##_on_stream(d, s, a, b, n, pe, 0);                                              \
                },                                                                                                    \
                [](void* d, const void* s, size_t n, uint64_t* sg, uint64_t v, int o, int pe) {                       \
                  nvshmemx_put##BITS##_signal_on_stream(d, s, n, sg, v, o, pe, 0);                                    \
                },                                                                                                    \
                [](void* d, const void* s, size_t n, uint64_t* sg, uint64_t v, int o, int pe) {                       \
                  nvshmemx_put##BITS##_signal_nbi_on_stream(d, s, n, sg, v, o, pe, 0);                                \
                }},                                                                                                   \
      sig);                                                                                                           \
  ++forms;
  GSHMEMT_SIZED_STREAM(8)
  GSHMEMT_SIZED_STREAM(16)
  GSHMEMT_SIZED_STREAM(32)
  GSHMEMT_SIZED_STREAM(64)
  GSHMEMT_SIZED_STREAM(128)
#undef GSHMEMT_SIZED_STREAM
  check_stream_rma(
      StreamOps{"putmem", 1, nullptr, nullptr,
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_putmem_on_stream(d, s, n, pe, 0); },
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_putmem_nbi_on_stream(d, s, n, pe, 0); },
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_getmem_on_stream(d, s, n, pe, 0); },
                [](void* d, const void* s, size_t n, int pe) { nvshmemx_getmem_nbi_on_stream(d, s, n, pe, 0); },
                nullptr, nullptr,
                [](void* d, const void* s, size_t n, uint64_t* sg, uint64_t v, int o, int pe) {
                  nvshmemx_putmem_signal_on_stream(d, s, n, sg, v, o, pe, 0);
                },
                [](void* d, const void* s, size_t n, uint64_t* sg, uint64_t v, int o, int pe) {
                  nvshmemx_putmem_signal_nbi_on_stream(d, s, n, sg, v, o, pe, 0);
                }},
      sig);
  ++forms;

  // Signals on a stream.
  uint64_t* s2 = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
  nvshmem_barrier_all();
  nvshmemx_signal_op_on_stream(s2, 5, NVSHMEM_SIGNAL_SET, next_pe(), 0);
  nvshmemx_signal_op_on_stream(s2, 6, NVSHMEM_SIGNAL_ADD, next_pe(), 0);
  nvshmemx_signal_wait_until_on_stream(s2, NVSHMEM_CMP_EQ, 11, 0);
  mp::sync_default_stream();
  MP_CHECK(nvshmem_signal_fetch(s2) == 11, "signal_op_on_stream SET 5, ADD 6 left %llu",
           static_cast<unsigned long long>(nvshmem_signal_fetch(s2)));
  forms += 3;

  // Waits on a stream, every WAIT type.
#define GSHMEMT_STREAM_WAIT(NAME, T)                                                                              \
  check_stream_wait<T>(                                                                                           \
      #NAME, StreamWaitOps<T>{nvshmemx_##NAME##_wait_until_on_stream, nvshmemx_##NAME##_wait_until_all_on_stream, \
                              nvshmemx_##NAME##_wait_until_all_vector_on_stream});                                \
  forms += 3;
  GSHMEMT_TYPES_WAIT(GSHMEMT_STREAM_WAIT)
#undef GSHMEMT_STREAM_WAIT

  // sync_all and sync_all_on_stream: a PE leaves only after every PE arrived, so every PE's
  // (blocking) increment before it is counted.
  for (int round = 1; round <= 2; ++round) {
    nvshmem_uint64_atomic_inc(s2 + 1, 0);
    if (round == 1) {
      nvshmem_sync_all();
    } else {
      nvshmemx_sync_all_on_stream(0);
      mp::sync_default_stream();
    }
    uint64_t count = nvshmem_uint64_atomic_fetch(s2 + 1, 0);
    MP_CHECK(count >= static_cast<uint64_t>(round * npes()), "sync_all (round %d): only %llu of %d increments", round,
             static_cast<unsigned long long>(count), round * npes());
    nvshmem_barrier_all();
  }
  forms += 2;
  nvshmem_free(s2);
  nvshmem_free(sig);
  if (me() == 0) std::printf("mp_strided_stream: %d forms checked on %d PEs\n", forms, npes());
  nvshmem_finalize();
  return 0;
}
