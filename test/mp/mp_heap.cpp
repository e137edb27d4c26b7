// The symmetric heap: the same offsets on every PE, growth past the first size, calloc, align,
// free and reuse. Run with a small NVSHMEM_SYMMETRIC_SIZE so that it has to grow.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mp_test.h"

// nvshmem_align(a) returns a multiple of `a` for every power of two up to 1 GiB, at the same offset on
// every PE, and the memory is usable: each PE writes its copy and reads the next PE's.
void check_alignment() {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  for (int bit = 0; bit <= 30; ++bit) {
    const size_t a = size_t{1} << bit;
    auto* p = static_cast<uint64_t*>(nvshmem_align(a, 100));
    MP_CHECK(p && reinterpret_cast<uintptr_t>(p) % a == 0, "nvshmem_align(%zu, 100) returned %p", a,
             static_cast<void*>(p));
    const uint64_t mine = (uint64_t{1} << 40) * static_cast<uint64_t>(me) + a;
    nvshmem_uint64_p(p, mine, me);
    nvshmem_barrier_all();
    const int next = (me + 1) % npes;
    const uint64_t got = nvshmem_uint64_g(p, next);
    MP_CHECK(got == (uint64_t{1} << 40) * static_cast<uint64_t>(next) + a,
             "nvshmem_align(%zu): PE %d's copy holds %llu", a, next, static_cast<unsigned long long>(got));
    nvshmem_barrier_all();
    nvshmem_free(p);
  }
}

// nvshmem_realloc keeps the data up to the smaller size, returns the same address on every PE, and
// treats NULL (allocate) and size 0 (free) as OpenSHMEM does; the new block is usable by peers.
void check_realloc() {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), next = (me + 1) % npes;
  auto* p = static_cast<uint32_t*>(nvshmem_realloc(nullptr, 1000 * sizeof(uint32_t)));
  MP_CHECK(p != nullptr, "realloc(NULL, 4000) returned NULL");
  std::vector<uint32_t> mine(1000);
  for (uint32_t i = 0; i < 1000; ++i) mine[i] = static_cast<uint32_t>(me) * 1000003u + i;
  nvshmem_putmem(p, mine.data(), 4000, me);
  nvshmem_barrier_all();
  const size_t sizes[] = {3u << 20, 100 * sizeof(uint32_t), 5u << 20};  // grow (past the heap), shrink, grow
  size_t kept = 1000;
  for (size_t size : sizes) {
    void* blocker = nvshmem_malloc(64);  // so that growing in place is not possible
    p = static_cast<uint32_t*>(nvshmem_realloc(p, size));
    MP_CHECK(p != nullptr, "realloc to %zu bytes returned NULL", size);
    kept = std::min(kept, size / sizeof(uint32_t));
    std::vector<uint32_t> got(kept);
    nvshmem_getmem(got.data(), p, kept * sizeof(uint32_t), me);
    for (size_t i = 0; i < kept; ++i) {
      MP_CHECK(got[i] == mine[i], "after realloc to %zu bytes, element %zu is %u, not %u", size, i, got[i], mine[i]);
    }
    // The same address everywhere: the next PE's copy holds its own data.
    uint32_t theirs = nvshmem_uint32_g(p, next);
    MP_CHECK(theirs == static_cast<uint32_t>(next) * 1000003u, "PE %d's copy after realloc holds %u", next, theirs);
    nvshmem_barrier_all();
    nvshmem_free(blocker);
  }
  MP_CHECK(nvshmem_realloc(p, 0) == nullptr, "realloc(p, 0) must free and return NULL");
}

int main(int argc, char** argv) {
  nvshmem_init();
  if (argc > 1 && std::string(argv[1]) == "realloc") {
    check_realloc();
    if (nvshmem_my_pe() == 0) std::printf("mp_heap: nvshmem_realloc keeps the data on %d PEs\n", nvshmem_n_pes());
    nvshmem_finalize();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "align") {
    check_alignment();
    if (nvshmem_my_pe() == 0) std::printf("mp_heap: nvshmem_align aligns 1 B to 1 GiB on %d PEs\n", nvshmem_n_pes());
    nvshmem_finalize();
    return 0;
  }
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;

  MP_CHECK(nvshmem_malloc(0) == nullptr, "malloc(0) must return NULL");

  // A random but identical sequence of allocations and frees on every PE.
  uint64_t rng = 99;
  std::vector<char*> live;
  std::vector<size_t> live_size;
  char* first = static_cast<char*>(nvshmem_malloc(1));
  std::vector<uint64_t> offsets;
  for (int step = 0; step < 120; ++step) {
    if (!live.empty() && mp::mix(rng) % 3 == 0) {
      size_t i = mp::mix(rng) % live.size();
      nvshmem_free(live[i]);
      live.erase(live.begin() + static_cast<long>(i));
      live_size.erase(live_size.begin() + static_cast<long>(i));
      continue;
    }
    size_t size = 1 + mp::mix(rng) % (3u << 20);  // up to 3 MiB: the heap must grow
    char* p = static_cast<char*>(nvshmem_malloc(size));
    MP_CHECK(p != nullptr, "step %d: malloc(%zu) failed", step, size);
    MP_CHECK(reinterpret_cast<uintptr_t>(p) % 16 == 0, "malloc returned a misaligned %p", static_cast<void*>(p));
    offsets.push_back(static_cast<uint64_t>(p - first));
    live.push_back(p);
    live_size.push_back(size);
    // Every new block is usable on every PE: write the whole block of the next PE.
    std::vector<char> data(size);
    mp::fill(data.data(), size, mp::seed_of(me, static_cast<uint64_t>(step)));
    nvshmem_putmem(p, data.data(), size, next);
    nvshmem_barrier_all();
    std::vector<char> got(size);
    nvshmem_getmem(got.data(), p, size, me);
    long bad = mp::first_mismatch(got.data(), size, mp::seed_of(prev, static_cast<uint64_t>(step)));
    MP_CHECK(bad < 0, "step %d: block of %zu bytes at offset %llu: byte %ld differs", step, size,
             static_cast<unsigned long long>(offsets.back()), bad);
    nvshmem_barrier_all();
  }
  // Every PE got the same offsets: PE 0 sends its list to everybody, who compares it with its own.
  const size_t table = offsets.size() * sizeof(uint64_t);
  uint64_t* from_pe0 = static_cast<uint64_t*>(nvshmem_malloc(table));
  MP_CHECK(from_pe0 != nullptr, "malloc of the offset table failed");
  if (me == 0) {
    for (int pe = 0; pe < npes; ++pe) nvshmem_putmem(from_pe0, offsets.data(), table, pe);
  }
  nvshmem_barrier_all();
  std::vector<uint64_t> pe0(offsets.size());
  nvshmem_getmem(pe0.data(), from_pe0, table, me);
  MP_CHECK(pe0 == offsets, "PE %d's allocation offsets differ from PE 0's", me);

  // calloc returns zeroed memory, also where a dirty block was freed.
  char* dirty = static_cast<char*>(nvshmem_malloc(1 << 20));
  std::vector<char> ones(1 << 20, 1);
  nvshmem_putmem(dirty, ones.data(), ones.size(), me);
  nvshmem_barrier_all();
  nvshmem_free(dirty);
  char* clean = static_cast<char*>(nvshmem_calloc(1 << 18, 4));
  MP_CHECK(clean != nullptr, "calloc failed");
  std::vector<char> got(1 << 20, 7);
  nvshmem_getmem(got.data(), clean, got.size(), me);
  MP_CHECK(std::all_of(got.begin(), got.end(), [](char c) { return c == 0; }), "calloc memory is not zero");

  check_alignment();
  MP_CHECK(nvshmem_align(3, 8) == nullptr, "a non-power-of-two alignment must fail");

  // Free everything; a block as large as everything freed fits again.
  for (char* p : live) nvshmem_free(p);
  nvshmem_free(from_pe0);
  nvshmem_free(clean);
  char* big = static_cast<char*>(nvshmem_malloc(24u << 20));
  MP_CHECK(big != nullptr, "24 MiB after freeing everything");
  nvshmem_free(big);
  nvshmem_free(first);
  if (me == 0) std::printf("mp_heap: %d PEs, %zu allocations agreed\n", npes, offsets.size());
  nvshmem_finalize();
  return 0;
}
