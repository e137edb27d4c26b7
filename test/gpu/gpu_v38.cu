// NVSHMEM 3.8's device additions beside flush (gpu_rma): counted writes and block regions.
//  - Counted writes: every block of PE p writes its own 16-byte-aligned chunk of a buffer on the next PE
//    with nvshmemx_putmem_signal_counted_nbi_block, and reuses its source at once; the next PE's kernel waits
//    for the sum of the chunks with nvshmemx_signal_counted_wait_until, from a counter that starts just
//    below 2^64 (so the expected sum wraps), then checks every byte. The status codes of bad arguments
//    (unaligned, a PE out of range, the counter inside the destination) and of 0 bytes.
//  - Regions: in each of several blocks, is_active before, start (handle 1), a nested start refused,
//    is_active with and without the hint, a p inside, a stop with another handle refused, stop,
//    is_active after, a second region (handle 2) without hints.
#include <cstdint>
#include <vector>

#include "gpu_test.cuh"

namespace {

constexpr int kBlocks = 6;
constexpr size_t kChunk = 4096 + 48;  // a multiple of 16, not of a warp's copy width
constexpr uint64_t kStart = ~0ull - 15;

__global__ void counted_put(char* dest, char* staging, uint64_t* counter, int pe, int* status) {
  const size_t at = static_cast<size_t>(blockIdx.x) * kChunk;
  int rc = nvshmemx_putmem_signal_counted_nbi_block(dest + at, staging + at, kChunk, counter, pe);
  // The source may be reused once the call returns.
  for (size_t i = threadIdx.x; i < kChunk; i += blockDim.x) staging[at + i] = 0x5A;
  if (threadIdx.x == 0) status[blockIdx.x] = rc;
}

__global__ void counted_wait(const uint64_t* counter, uint64_t expected, unsigned long long* seen) {
  nvshmemx_signal_counted_wait_until(counter, expected);
  *seen = nvshmemx_signal_counted_load(counter);
}

// The status of each bad call into status[0..4].
__global__ void counted_errors(char* dest, char* staging, uint64_t* counter, int npes, int* status) {
  status[0] = nvshmemx_putmem_signal_counted_nbi_block(dest, staging, 24, counter, 0);      // size not 16k
  status[1] = nvshmemx_putmem_signal_counted_nbi_block(dest + 8, staging, 16, counter, 0);  // dest unaligned
  status[2] = nvshmemx_putmem_signal_counted_nbi_block(dest, staging, 16, counter, npes);   // PE out of range
  status[3] = nvshmemx_putmem_signal_counted_nbi_block(dest, staging, 64, reinterpret_cast<uint64_t*>(dest + 16), 0);
  status[4] = nvshmemx_putmem_signal_counted_nbi_block(dest, staging, 0, counter, 0);  // nothing to do
}

// Each block writes its 12 results into r[block * 12 ...].
constexpr int kRegionResults = 12;
__global__ void regions(int* r, int* word, int pe) {
  int* out = r + blockIdx.x * kRegionResults;
  int active = -1;
  nvshmemx_region_handle_t h = 0, h2 = 0;
  nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
  attrs.hints = NVSHMEMX_REGION_HINT_BATCH_RMA;
  int rc = nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active);
  if (threadIdx.x == 0) out[0] = rc * 10 + active;
  rc = nvshmemx_region_start_block(&h, &attrs);
  if (threadIdx.x == 0) out[1] = rc, out[2] = static_cast<int>(h);
  rc = nvshmemx_region_start_block(&h2, &attrs);
  if (threadIdx.x == 0) out[3] = rc;
  nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active);
  if (threadIdx.x == 0) out[4] = active;
  if (threadIdx.x == 0) nvshmem_int_p(word + blockIdx.x, 1000 + static_cast<int>(blockIdx.x), pe);
  rc = nvshmemx_region_stop_block(h + 1);
  if (threadIdx.x == 0) out[5] = rc;
  rc = nvshmemx_region_stop_block(h);
  if (threadIdx.x == 0) out[6] = rc;
  nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active);
  if (threadIdx.x == 0) out[7] = active;
  rc = nvshmemx_region_start_block(&h2, nullptr);
  if (threadIdx.x == 0) out[8] = rc, out[9] = static_cast<int>(h2);
  nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active);
  if (threadIdx.x == 0) out[10] = active;
  rc = nvshmemx_region_stop_block(h2);
  if (threadIdx.x == 0) out[11] = rc;
  nvshmem_quiet();
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t total = kBlocks * kChunk;
  char* dest = static_cast<char*>(nvshmem_malloc(total));
  uint64_t* counter = static_cast<uint64_t*>(nvshmem_malloc(256));
  int* word = static_cast<int*>(nvshmem_malloc(64 * sizeof(int)));
  MP_CHECK(dest && counter && word, "nvshmem_malloc failed");
  char* staging;
  int* status;
  int* results;
  unsigned long long* seen;
  CUDA_CHECK(cudaMalloc(&staging, total));
  CUDA_CHECK(cudaMalloc(&status, 64 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&results, 64 * kRegionResults * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&seen, sizeof(unsigned long long)));

  // ---- counted writes
  std::vector<unsigned char> host(total);
  mp::fill(host.data(), total, mp::seed_of(me, 1));
  CUDA_CHECK(cudaMemcpy(staging, host.data(), total, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, 0, total));
  nvshmemx_signal_counted_reset(counter);
  MP_CHECK(nvshmem_uint64_g(counter, me) == 0, "nvshmemx_signal_counted_reset left %llu",
           static_cast<unsigned long long>(nvshmem_uint64_g(counter, me)));
  nvshmem_uint64_p(counter, kStart, me);
  nvshmem_barrier_all();
  counted_put<<<kBlocks, 128>>>(dest, staging, counter, next, status);
  counted_wait<<<1, 1>>>(counter, kStart + total, seen);
  KERNEL_CHECK();
  std::vector<int> st(kBlocks);
  CUDA_CHECK(cudaMemcpy(st.data(), status, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b) MP_CHECK(st[b] == 0, "block %d: counted put returned %d", b, st[b]);
  unsigned long long s = 0;
  CUDA_CHECK(cudaMemcpy(&s, seen, sizeof s, cudaMemcpyDeviceToHost));
  MP_CHECK(s == kStart + total, "the counter reads %llu after the wait, expected %llu (wrapped)", s,
           static_cast<unsigned long long>(kStart + total));
  auto got = gputest::to_host(dest, total);
  const long bad = mp::first_mismatch(got.data(), total, mp::seed_of(prev, 1));
  MP_CHECK(bad < 0, "counted writes from PE %d: byte %ld differs (in block %ld's chunk)", prev, bad,
           bad / static_cast<long>(kChunk));
  nvshmem_barrier_all();
  counted_errors<<<1, 64>>>(dest, staging, counter, npes, status);
  KERNEL_CHECK();
  CUDA_CHECK(cudaMemcpy(st.data(), status, 5 * sizeof(int), cudaMemcpyDeviceToHost));
  const char* cases[] = {"a size of 24 bytes", "a destination off by 8", "PE n_pes",
                         "the counter inside the destination", "0 bytes"};
  for (int i = 0; i < 5; ++i) {
    const int want = i == 4 ? 0 : NVSHMEMX_ERROR_INVALID_VALUE;
    MP_CHECK(st[i] == want, "counted put with %s returned %d, expected %d", cases[i], st[i], want);
  }
  nvshmem_barrier_all();
  MP_CHECK(nvshmem_uint64_g(counter, me) == kStart + total, "a refused counted put changed the counter");

  // ---- regions
  constexpr int kRegionBlocks = 4;
  regions<<<kRegionBlocks, 96>>>(results, word, next);
  KERNEL_CHECK();
  std::vector<int> r(kRegionBlocks * kRegionResults);
  CUDA_CHECK(cudaMemcpy(r.data(), results, r.size() * sizeof(int), cudaMemcpyDeviceToHost));
  const int want[kRegionResults] = {0, 0, 1, NVSHMEMX_ERROR_INVALID_VALUE, 1, NVSHMEMX_ERROR_INVALID_VALUE, 0, 0, 0,
                                    2, 0, 0};
  const char* what[kRegionResults] = {"is_active before (status*10 + active)",
                                      "start",
                                      "the first handle",
                                      "a nested start",
                                      "is_active(BATCH_RMA) inside",
                                      "stop with another handle",
                                      "stop",
                                      "is_active after stop",
                                      "a second start",
                                      "the second handle",
                                      "is_active(BATCH_RMA) of a region without hints",
                                      "the second stop"};
  for (int b = 0; b < kRegionBlocks; ++b) {
    for (int i = 0; i < kRegionResults; ++i) {
      MP_CHECK(r[b * kRegionResults + i] == want[i], "block %d: %s gave %d, expected %d", b, what[i],
               r[b * kRegionResults + i], want[i]);
    }
  }
  nvshmem_barrier_all();
  for (int b = 0; b < kRegionBlocks; ++b) {
    const int v = nvshmem_int_g(word + b, me);
    MP_CHECK(v == 1000 + b, "the p of block %d inside its region wrote %d", b, v);
  }
  nvshmem_barrier_all();
  CUDA_CHECK(cudaFree(seen));
  CUDA_CHECK(cudaFree(results));
  CUDA_CHECK(cudaFree(status));
  CUDA_CHECK(cudaFree(staging));
  nvshmem_free(word);
  nvshmem_free(counter);
  nvshmem_free(dest);
  if (me == 0)
    std::printf("gpu_regions_counted: counted writes, their errors and block regions checked on %d PEs\n", npes);
  nvshmem_finalize();
  return 0;
}
