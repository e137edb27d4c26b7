// Helpers for the multi-PE tests: programs that use only the NVSHMEM API, started by gshmrun.
// A failed check prints the PE, the place and the values, and exits with status 1 (gshmrun then
// stops the other PEs and fails the test).
#pragma once

#include <nvshmem.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if GSHMEM_TEST_HAVE_CUDART
#include <cuda_runtime.h>
#endif

#define MP_CHECK(cond, ...)                                                                                   \
  do {                                                                                                        \
    if (!(cond)) {                                                                                            \
      std::fprintf(stderr, "PE %d: check failed at %s:%d: %s: ", nvshmem_my_pe(), __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                                      \
      std::fprintf(stderr, "\n");                                                                             \
      std::exit(1);                                                                                           \
    }                                                                                                         \
  } while (0)

namespace mp {

// splitmix64: a deterministic stream from a seed, so a receiver can recompute what a sender sent.
inline uint64_t mix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline void fill(void* buf, size_t n, uint64_t seed) {
  auto* p = static_cast<unsigned char*>(buf);
  uint64_t s = seed;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = mix(s);
    std::memcpy(p + i, &v, 8);
  }
  uint64_t v = mix(s);
  for (; i < n; ++i, v >>= 8) p[i] = static_cast<unsigned char>(v);
}

// Index of the first byte that differs from the pattern, or -1.
inline long first_mismatch(const void* buf, size_t n, uint64_t seed) {
  std::vector<unsigned char> want(n);
  fill(want.data(), n, seed);
  const auto* p = static_cast<const unsigned char*>(buf);
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != want[i]) return static_cast<long>(i);
  }
  return -1;
}

inline uint64_t seed_of(int pe, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  return (static_cast<uint64_t>(pe) << 56) ^ (a * 0x100000001b3ull) ^ (b << 20) ^ (c << 40) ^ 0x5eedull;
}

// Makes stream-ordered work visible to the host on the GPU backend (no-op without the runtime).
inline void sync_default_stream() {
#if GSHMEM_TEST_HAVE_CUDART
  cudaStreamSynchronize(0);
#endif
}

}  // namespace mp
