// A host-only program: each PE puts a block of values into the next PE's symmetric buffer, then
// reads what the previous PE sent. No CUDA code: runs on GPUs or on the CPU backend alike.
//   gshmrun -n 4 ./host_ring
#include <nvshmem.h>

#include <cstdio>
#include <vector>

int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t count = 1 << 16;
  long* ring = static_cast<long*>(nvshmem_malloc(count * sizeof(long)));

  std::vector<long> mine(count);
  for (size_t i = 0; i < count; ++i) mine[i] = me * 1000000L + static_cast<long>(i);
  nvshmem_long_put(ring, mine.data(), count, next);  // returns once `mine` may be reused
  nvshmem_barrier_all();                             // every put is complete and visible

  std::vector<long> got(count);
  nvshmem_long_get(got.data(), ring, count, me);  // the heap may be GPU memory: read it through the API
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) wrong += got[i] != prev * 1000000L + static_cast<long>(i);
  std::printf("PE %d received %zu values from PE %d: %s\n", me, count, prev, wrong ? "WRONG" : "ok");

  nvshmem_free(ring);
  nvshmem_finalize();
  return wrong ? 1 : 0;
}
