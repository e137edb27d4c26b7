// Host reductions on the GPU backend: nvshmem_<T>_<op>_reduce, _reducescatter and their
// nvshmemx_*_on_stream forms, for every type and operation of NVSHMEM's reduction families (half and
// bfloat16 included), on NVSHMEM_TEAM_WORLD, reduce out of place and in place and reduce-scatter, at
// 0, 1, 37 and 1001 elements (in turns) and, for a few pairs, at a few MiB. Run with NVSHMEM_DISABLE_P2P=1 the
// members are reached through the network and the library's kernel stages their sources through the
// team's scratch (reduce_algo.h, staged_reduce); with mapped peers it reads them where they lie.
//
// Member j's element e is a small integer (1..11, or 0..127 for the bitwise operations), so that every
// result is exact in every type (sums and products of two PEs' values stay below 128) and the
// expectation, combined here in team order, must match bit for bit. The bytes after dest must stay
// untouched and the source must not change (unless in place).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../mp/reduce_fns.h"
#include "gen/type_lists.h"
#include "gpu_test.cuh"

namespace {

enum Op { kAnd, kOr, kXor, kMin, kMax, kSum, kProd };
const char* const kOpNames[] = {"and", "or", "xor", "min", "max", "sum", "prod"};
enum Mode { kOut, kInPlace, kScatter };
const char* const kModeNames[] = {"reduce", "reduce in place", "reducescatter"};

constexpr size_t kGuard = 64;
constexpr unsigned char kFill = 0x5a;

// The value of member j's element e in call `call`, as an integer.
long long value(Op op, uint64_t call, int j, size_t e) {
  const uint64_t h = (call * 0x9e3779b97f4a7c15ull) ^ (e * 0xbf58476d1ce4e5b9ull) ^ (static_cast<uint64_t>(j) << 40);
  const uint64_t m = (h ^ (h >> 29)) * 0x94d049bb133111ebull;
  return op <= kXor ? static_cast<long long>((m >> 32) & 127) : static_cast<long long>((m >> 32) % 11 + 1);
}

long long combine(Op op, long long a, long long b) {
  switch (op) {
    case kAnd:
      return a & b;
    case kOr:
      return a | b;
    case kXor:
      return a ^ b;
    case kMin:
      return a < b ? a : b;
    case kMax:
      return a > b ? a : b;
    case kSum:
      return a + b;
    case kProd:
      return a * b;
  }
  return 0;
}

// T from and to a small integer (exact in every type at these sizes).
template <class T>
T of(long long v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
std::string bits_hex(const T& v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::string s = "0x";
  static const char* const digits = "0123456789abcdef";
  for (size_t i = sizeof(T); i-- > 0;) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  return s;
}

using ReduceFn = int (*)(nvshmem_team_t, void*, const void*, size_t);
using ReduceOnStreamFn = int (*)(nvshmem_team_t, void*, const void*, size_t, cudaStream_t);
struct Entry {
  const char* type;
  Op op;
  ReduceFn reduce, scatter;
  ReduceOnStreamFn reduce_os, scatter_os;
  void (*run)(const Entry&, size_t nelems, Mode mode, bool stream);
};

int g_me = -1, g_npes = 0;
char* g_src = nullptr;   // symmetric: the source (and its copy for the in-place check)
char* g_dest = nullptr;  // symmetric: dest, then kGuard bytes of kFill
size_t g_cap = 0;        // bytes of each
cudaStream_t g_stream = nullptr;
uint64_t g_call = 0, g_done = 0, g_bytes = 0;

template <class T>
void run_case(const Entry& en, size_t nelems, Mode mode, bool stream) {
  const uint64_t call = ++g_call;
  const size_t src_elems = mode == kScatter ? nelems * static_cast<size_t>(g_npes) : nelems;
  const size_t bytes = nelems * sizeof(T);
  MP_CHECK(src_elems * sizeof(T) + kGuard <= g_cap, "a case of %zu elements is larger than the buffers", src_elems);
  std::vector<T> src(src_elems);
  for (size_t i = 0; i < src_elems; ++i) src[i] = of<T>(value(en.op, call, g_me, i));
  std::vector<unsigned char> fill(g_cap, kFill);
  CUDA_CHECK(cudaMemcpy(g_dest, fill.data(), bytes + kGuard, cudaMemcpyHostToDevice));
  T* dest = reinterpret_cast<T*>(g_dest);
  T* source = mode == kInPlace ? dest : reinterpret_cast<T*>(g_src);
  CUDA_CHECK(cudaMemcpy(source, src.data(), src_elems * sizeof(T), cudaMemcpyHostToDevice));
  nvshmem_barrier_all();  // every member's source is written before any reads it
  const std::string fn = std::string(stream ? "nvshmemx_" : "nvshmem_") + en.type + "_" + kOpNames[en.op] +
                         (mode == kScatter ? "_reducescatter" : "_reduce") + (stream ? "_on_stream" : "");
  char where[256];
  std::snprintf(where, sizeof where, "%s (%s), %zu elements, call %llu", fn.c_str(), kModeNames[mode], nelems,
                static_cast<unsigned long long>(call));
  int rc;
  if (stream) {
    rc = mode == kScatter ? en.scatter_os(NVSHMEM_TEAM_WORLD, dest, source, nelems, g_stream)
                          : en.reduce_os(NVSHMEM_TEAM_WORLD, dest, source, nelems, g_stream);
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
  } else {
    rc = mode == kScatter ? en.scatter(NVSHMEM_TEAM_WORLD, dest, source, nelems)
                          : en.reduce(NVSHMEM_TEAM_WORLD, dest, source, nelems);
  }
  MP_CHECK(rc == 0, "%s returned %d", where, rc);
  std::vector<T> got(nelems);
  std::vector<unsigned char> guard(kGuard);
  CUDA_CHECK(cudaMemcpy(got.data(), dest, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(guard.data(), g_dest + bytes, kGuard, cudaMemcpyDeviceToHost));
  const size_t first = mode == kScatter ? nelems * static_cast<size_t>(g_me) : 0;
  for (size_t e = 0; e < nelems; ++e) {
    long long acc = value(en.op, call, 0, first + e);
    for (int j = 1; j < g_npes; ++j) acc = combine(en.op, acc, value(en.op, call, j, first + e));
    const T want = of<T>(acc);
    MP_CHECK(std::memcmp(&got[e], &want, sizeof(T)) == 0, "%s: dest[%zu] is %s, expected %s (%lld)", where, e,
             bits_hex(got[e]).c_str(), bits_hex(want).c_str(), acc);
  }
  for (size_t i = 0; i < kGuard; ++i) {
    MP_CHECK(guard[i] == kFill, "%s: wrote past the end of dest: byte %zu after it is 0x%02x", where, i, guard[i]);
  }
  if (mode != kInPlace && src_elems > 0) {
    std::vector<T> after(src_elems);
    CUDA_CHECK(cudaMemcpy(after.data(), source, src_elems * sizeof(T), cudaMemcpyDeviceToHost));
    MP_CHECK(std::memcmp(after.data(), src.data(), src_elems * sizeof(T)) == 0, "%s: the source changed", where);
  }
  nvshmem_barrier_all();  // no member reads this PE's source or dest any more
  ++g_done;
  g_bytes += bytes;
}

#define GHR_ENTRY(NAME, T, OP, OPNAME) Entry{#NAME, OP, GSHMEMT_REDUCE_FNS(NAME, T, OPNAME), run_case<T>},
#define GHR_BIT(NAME, T) GHR_ENTRY(NAME, T, kAnd, _and) GHR_ENTRY(NAME, T, kOr, _or) GHR_ENTRY(NAME, T, kXor, _xor)
#define GHR_STD(NAME, T) GHR_ENTRY(NAME, T, kMin, _min) GHR_ENTRY(NAME, T, kMax, _max)
#define GHR_ARITH(NAME, T) GHR_ENTRY(NAME, T, kSum, _sum) GHR_ENTRY(NAME, T, kProd, _prod)
const Entry kEntries[] = {GSHMEMT_TYPES_REDUCE_BIT(GHR_BIT) GSHMEMT_TYPES_REDUCE_STD(GHR_STD)
                              GSHMEMT_TYPES_REDUCE_ARITH(GHR_ARITH) GSHMEMT_TYPES_REDUCE_FP16(GHR_STD)
                                  GSHMEMT_TYPES_REDUCE_FP16(GHR_ARITH)};
#undef GHR_BIT
#undef GHR_STD
#undef GHR_ARITH
#undef GHR_ENTRY

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  g_me = nvshmem_my_pe();
  g_npes = nvshmem_n_pes();
  const size_t big = gputest::scaled<size_t>(3u << 20, 4096);  // bytes of the large cases' dest
  g_cap = big * static_cast<size_t>(g_npes) + kGuard;
  g_src = static_cast<char*>(nvshmem_malloc(g_cap));
  g_dest = static_cast<char*>(nvshmem_malloc(g_cap));
  MP_CHECK(g_src && g_dest, "nvshmem_malloc of 2 x %zu bytes failed", g_cap);
  CUDA_CHECK(cudaStreamCreate(&g_stream));
  // Every (type, op) in every mode and form, at one size per call: for a given mode and form the sizes
  // take turns along the table, so each meets every size many times (two PEs taking turns on one GPU
  // make each call's barriers slow: the whole product would take many minutes). Under the network
  // scale, one mode and form per (type, op), in turns, each with every size in turn.
  const size_t sizes[] = {0, 1, 37, 1001};
  const size_t entries = sizeof kEntries / sizeof kEntries[0];
  for (size_t e = 0; e < entries; ++e) {
    int j = 0;
    for (Mode mode : {kOut, kInPlace, kScatter}) {
      for (bool stream : {false, true}) {
        const int combo = j++;
        if (gputest::net_scale() > 1) {
          if (static_cast<size_t>(combo) == e % 6) kEntries[e].run(kEntries[e], sizes[(e / 6) % 4], mode, stream);
        } else {
          kEntries[e].run(kEntries[e], sizes[(e + static_cast<size_t>(combo)) % 4], mode, stream);
        }
      }
    }
  }
  // A few MiB for one pair of each kind: many rounds of the scratch across the network.
  for (const Entry& en : kEntries) {
    const bool pick =
        (std::strcmp(en.type, "int") == 0 && en.op == kSum) || (std::strcmp(en.type, "double") == 0 && en.op == kMax) ||
        (std::strcmp(en.type, "half") == 0 && en.op == kProd) || (std::strcmp(en.type, "uint64") == 0 && en.op == kXor);
    if (!pick) continue;
    for (Mode mode : {kOut, kInPlace, kScatter}) en.run(en, big / 8, mode, mode == kScatter);
  }
  CUDA_CHECK(cudaStreamDestroy(g_stream));
  nvshmem_free(g_dest);
  nvshmem_free(g_src);
  if (g_me == 0) {
    std::printf("gpu_host_reduce: %d PEs, %llu reductions checked, %llu bytes of results%s\n", g_npes,
                static_cast<unsigned long long>(g_done), static_cast<unsigned long long>(g_bytes),
                gputest::scale_note().c_str());
  }
  nvshmem_finalize();
  return 0;
}
