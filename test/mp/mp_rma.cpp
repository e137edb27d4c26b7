// Host put/get/p/g between PEs: random data at every size from 1 byte to 16 MiB, at unaligned
// offsets on both sides, in every completion mode; each transfer verified byte for byte, and the
// bytes around it checked untouched. After nvshmemx_flush the source of a non-blocking put is
// overwritten at once: the target must still receive what it held at the call. Transfers of 0 bytes, with pointers that
// are NULL or outside the heap, do nothing. A word that one PE writes with p while another reads it with g is read
// whole.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "mp_test.h"

namespace {

constexpr size_t kMax = 16u << 20;
constexpr size_t kPad = 64;
constexpr unsigned char kGuard = 0xA5;

std::vector<size_t> sizes() {
  std::vector<size_t> s;
  for (size_t i = 1; i <= 17; ++i) s.push_back(i);
  for (size_t p = 32; p <= kMax; p *= 2) {
    s.push_back(p - 1);
    s.push_back(p);
    if (p < kMax) s.push_back(p + 1);
  }
  s.push_back(3 * 1000 * 1000 + 7);
  return s;
}

enum class Mode { kBlocking, kNbi, kTyped, kSized, kStream, kFlush };
const char* name(Mode m) {
  switch (m) {
    case Mode::kBlocking:
      return "putmem/getmem";
    case Mode::kNbi:
      return "_nbi + quiet";
    case Mode::kTyped:
      return "typed";
    case Mode::kSized:
      return "sized";
    case Mode::kStream:
      return "_on_stream";
    case Mode::kFlush:
      return "_nbi + flush, source reused";
  }
  return "?";
}

void do_put(Mode m, char* dest, char* src, size_t n, int pe) {
  switch (m) {
    case Mode::kBlocking:
      nvshmem_putmem(dest, src, n, pe);
      break;
    case Mode::kNbi:
      nvshmem_putmem_nbi(dest, src, n, pe);
      nvshmem_quiet();
      break;
    case Mode::kTyped:
      nvshmem_char_put(dest, src, n, pe);
      break;
    case Mode::kSized:
      // The sized forms move whole elements; the odd tail goes through put8.
      nvshmem_put32(dest, src, n / 4, pe);
      nvshmem_put8(dest + n / 4 * 4, src + n / 4 * 4, n % 4, pe);
      break;
    case Mode::kStream:
      nvshmemx_putmem_on_stream(dest, src, n, pe, 0);
      nvshmemx_quiet_on_stream(0);
      mp::sync_default_stream();
      break;
    case Mode::kFlush:
      // The source may be reused once flush returns (the put itself may still be on its way).
      nvshmem_putmem_nbi(dest, src, n, pe);
      nvshmemx_flush();
      if (n) std::memset(src, 0x5A, n);
      nvshmem_quiet();
      break;
  }
}

void do_get(Mode m, char* dest, const char* src, size_t n, int pe) {
  switch (m) {
    case Mode::kBlocking:
      nvshmem_getmem(dest, src, n, pe);
      break;
    case Mode::kNbi:
      nvshmem_getmem_nbi(dest, src, n, pe);
      nvshmem_quiet();
      break;
    case Mode::kTyped:
      nvshmem_schar_get(reinterpret_cast<signed char*>(dest), reinterpret_cast<const signed char*>(src), n, pe);
      break;
    case Mode::kSized:
      nvshmem_get64(dest, src, n / 8, pe);
      nvshmem_get8(dest + n / 8 * 8, src + n / 8 * 8, n % 8, pe);
      break;
    case Mode::kStream:
      nvshmemx_getmem_on_stream(dest, src, n, pe, 0);
      mp::sync_default_stream();
      break;
    case Mode::kFlush:
      // A flush promises nothing about a get's destination: the quiet completes it.
      nvshmem_getmem_nbi(dest, src, n, pe);
      nvshmemx_flush_on_stream(0);
      mp::sync_default_stream();
      nvshmem_quiet();
      break;
  }
}

template <class T>
unsigned long long bits(T v) {
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

// PE 1 stores `a` and `b` (which differ in every byte) in turn into a word of PE 0 with p, while PE 0
// reads the word with g and with a one-element iget: every value read must be a or b, a word that
// moves whole as NVSHMEM's device p and g move it, never torn.
template <class T>
void check_whole_word(const char* type, T a, void (*p)(T*, T, int), T (*g)(const T*, int),
                      void (*iget)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int)) {
  constexpr long kWrites = 1 << 20;
  const T b = static_cast<T>(~a);
  T* word = static_cast<T*>(nvshmem_malloc(sizeof(T)));
  int* done = static_cast<int*>(nvshmem_calloc(1, sizeof(int)));
  MP_CHECK(word && done, "nvshmem_malloc failed");
  const int me = nvshmem_my_pe();
  if (me == 0) p(word, a, 0);
  nvshmem_barrier_all();
  if (me == 1) {
    for (long i = 0; i < kWrites; ++i) p(word, (i & 1) ? b : a, 0);
    nvshmem_int_atomic_set(done, 1, 0);
  } else if (me == 0) {
    for (long reads = 0; nvshmem_int_atomic_fetch(done, 0) == 0; ++reads) {
      T v;
      if (reads & 1) {
        v = g(word, 0);
      } else {
        iget(&v, word, 1, 1, 1, 0);
      }
      MP_CHECK(v == a || v == b, "%s_%s read 0x%llx while PE 1 wrote 0x%llx and 0x%llx in turn (a torn word)", type,
               (reads & 1) ? "g" : "iget", bits(v), bits(a), bits(b));
    }
  }
  nvshmem_barrier_all();
  nvshmem_free(done);
  nvshmem_free(word);
}

}  // namespace

int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  char* dst = static_cast<char*>(nvshmem_malloc(kMax + 2 * kPad));
  char* src_sym = static_cast<char*>(nvshmem_malloc(kMax + 2 * kPad));
  MP_CHECK(dst && src_sym, "nvshmem_malloc failed");
  std::vector<char> local(kMax + 2 * kPad), check(kMax + 2 * kPad);
  const size_t offsets[][2] = {{0, 0}, {1, 3}, {7, 0}, {0, 5}, {13, 13}};
  const Mode modes[] = {Mode::kBlocking, Mode::kNbi, Mode::kTyped, Mode::kSized, Mode::kStream, Mode::kFlush};
  constexpr uint64_t kModes = sizeof modes / sizeof modes[0];
  uint64_t round = 0;
  size_t transfers = 0, bytes = 0;

  for (size_t n : sizes()) {
    for (const auto& o : offsets) {
      const size_t doff = kPad + o[0], soff = kPad + o[1];
      const Mode mode = modes[round % kModes];
      ++round;
      // --- put: to the next PE, checked by it.
      // Guards around the target area, written by the owner into its own heap.
      const unsigned char guard[2] = {kGuard, kGuard};
      nvshmem_putmem(dst + doff - 1, guard, 1, me);
      nvshmem_putmem(dst + doff + n, guard, 1, me);
      nvshmem_barrier_all();
      mp::fill(local.data() + soff, n, mp::seed_of(me, round));
      do_put(mode, dst + doff, local.data() + soff, n, next);
      nvshmem_barrier_all();
      nvshmem_getmem(check.data(), dst + doff - 1, n + 2, me);
      long bad = mp::first_mismatch(check.data() + 1, n, mp::seed_of(prev, round));
      MP_CHECK(bad < 0, "put of %zu bytes (offsets %zu/%zu, %s) from PE %d: byte %ld differs", n, o[0], o[1],
               name(mode), prev, bad);
      MP_CHECK(static_cast<unsigned char>(check[0]) == kGuard && static_cast<unsigned char>(check[n + 1]) == kGuard,
               "put of %zu bytes (%s) wrote outside its target", n, name(mode));

      // --- get: from the next PE's source area, checked by the getter.
      mp::fill(local.data(), n, mp::seed_of(me, round, 1));
      nvshmem_putmem(src_sym + soff, local.data(), n, me);
      nvshmem_barrier_all();
      std::fill(check.begin(), check.begin() + static_cast<long>(n + 2 * kPad), static_cast<char>(kGuard));
      do_get(mode, check.data() + doff, src_sym + soff, n, next);
      bad = mp::first_mismatch(check.data() + doff, n, mp::seed_of(next, round, 1));
      MP_CHECK(bad < 0, "get of %zu bytes (offsets %zu/%zu, %s) from PE %d: byte %ld differs", n, o[0], o[1],
               name(mode), next, bad);
      MP_CHECK(static_cast<unsigned char>(check[doff - 1]) == kGuard &&
                   static_cast<unsigned char>(check[doff + n]) == kGuard,
               "get of %zu bytes (%s) wrote outside its target", n, name(mode));
      nvshmem_barrier_all();
      transfers += 2;
      bytes += 2 * n;
    }
  }

  // --- p and g of several types, at element granularity.
  long long* ll = static_cast<long long*>(nvshmem_malloc(64 * sizeof(long long)));
  double* dd = static_cast<double*>(nvshmem_malloc(64 * sizeof(double)));
  short* ss = static_cast<short*>(nvshmem_malloc(64 * sizeof(short)));
  uint8_t* u8 = static_cast<uint8_t*>(nvshmem_malloc(64));
  for (int i = 0; i < 64; ++i) {
    nvshmem_longlong_p(ll + i, 1000000007ll * (me + 1) + i, next);
    nvshmem_double_p(dd + i, 0.5 * me + i, next);
    nvshmem_short_p(ss + i, static_cast<short>(-me * 100 - i), next);
    nvshmem_uint8_p(u8 + i, static_cast<uint8_t>(me * 3 + i), next);
  }
  nvshmem_barrier_all();
  for (int i = 0; i < 64; ++i) {
    MP_CHECK(nvshmem_longlong_g(ll + i, me) == 1000000007ll * (prev + 1) + i, "longlong_p/g element %d", i);
    MP_CHECK(nvshmem_double_g(dd + i, me) == 0.5 * prev + i, "double_p/g element %d", i);
    MP_CHECK(nvshmem_short_g(ss + i, me) == static_cast<short>(-prev * 100 - i), "short_p/g element %d", i);
    // PE `next` received its bytes from this PE: read them back remotely.
    MP_CHECK(nvshmem_uint8_g(u8 + i, next) == static_cast<uint8_t>(me * 3 + i), "uint8_g from PE %d element %d", next,
             i);
  }
  nvshmem_barrier_all();  // every PE has checked its arrays before they are written again
  // Typed put/get of wider types at element offsets.
  std::vector<double> dv(40);
  for (int i = 0; i < 40; ++i) dv[i] = me * 1e6 + i * 0.25;
  nvshmem_double_put(dd + 3, dv.data(), 40, next);
  nvshmem_barrier_all();
  std::vector<double> got(40);
  nvshmem_double_get(got.data(), dd + 3, 40, me);
  for (int i = 0; i < 40; ++i) MP_CHECK(got[i] == prev * 1e6 + i * 0.25, "double_put element %d", i);
  nvshmem_barrier_all();

  // --- p and g of a word another PE writes at the same time: the CPU backend's copies (on the GPU
  // backend a host p or g is a CUDA copy, too slow for a million of them).
  const char* backend = std::getenv("GSHMEM_BACKEND");
  if (backend && std::strcmp(backend, "cpu") == 0) {
    check_whole_word<short>("short", 0x1234, nvshmem_short_p, nvshmem_short_g, nvshmem_short_iget);
    check_whole_word<int>("int", 0x12345678, nvshmem_int_p, nvshmem_int_g, nvshmem_int_iget);
    check_whole_word<long long>("longlong", 0x0123456789abcdefll, nvshmem_longlong_p, nvshmem_longlong_g,
                                nvshmem_longlong_iget);
  }

  // --- 0 bytes: nothing moves, so the pointers are not used. A symmetric object of 0 bytes is NULL
  // (nvshmem_malloc(0)), and a local one may be anywhere.
  char* empty = static_cast<char*>(nvshmem_malloc(0));
  MP_CHECK(empty == nullptr, "nvshmem_malloc(0) returned %p, not NULL", static_cast<void*>(empty));
  for (Mode m : modes) {
    do_put(m, empty, nullptr, 0, next);
    do_get(m, nullptr, empty, 0, next);
  }
  nvshmem_int_put(reinterpret_cast<int*>(empty), nullptr, 0, next);
  nvshmem_int_get(nullptr, reinterpret_cast<const int*>(empty), 0, next);
  nvshmem_put128_nbi(empty, local.data(), 0, next);
  nvshmem_get128_nbi(local.data(), empty, 0, next);
  nvshmem_quiet();
  nvshmem_putmem(local.data(), local.data(), 0, next);  // 0 bytes to a pointer outside the heap
  nvshmem_barrier_all();

  nvshmem_free(u8);
  nvshmem_free(ss);
  nvshmem_free(dd);
  nvshmem_free(ll);
  nvshmem_free(src_sym);
  nvshmem_free(dst);
  if (me == 0) std::printf("mp_rma: %d PEs, %zu transfers, %zu bytes verified\n", npes, transfers, bytes);
  nvshmem_finalize();
  return 0;
}
