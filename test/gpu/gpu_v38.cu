// NVSHMEM 3.5-3.8's device additions beside flush (gpu_rma), float atomics (gpu_atomic) and the launch with
// attributes (gpu_collective_launch): counted writes, block regions and queue pairs.
//  - Counted writes: every block of PE p writes its own 16-byte-aligned chunk of a buffer on the next PE
//    with nvshmemx_putmem_signal_counted_nbi_block, and reuses its source at once; the next PE's kernel waits
//    for the sum of the chunks with nvshmemx_signal_counted_wait_until, from a counter that starts just
//    below 2^64 (so the expected sum wraps), then checks every byte. The status codes of bad arguments
//    (unaligned, a PE out of range, the counter inside the destination) and of 0 bytes.
//  - Regions: in each of several blocks, is_active before, start (handle 1), a nested start refused,
//    is_active with and without the hint, a p inside, a stop with another handle refused, stop,
//    is_active after, a second region (handle 2) without hints.
//  - Queue pairs: the handles of nvshmemx_qp_create; every typed family on them at thread, warp and block
//    scope (int puts and gets, blocking and not, p, g, put_signal), completed by qp_quiet on the handles and
//    checked on the target.
#include <cstdint>
#include <cstdlib>
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

// Queue pairs: block 0 (thread scope), block 1 (warp scope, its first warp) and block 2 (block scope) each
// put their slice of `src` into `dst` on `pe` (put, put_nbi, and put_signal to `sig`), get the peer's slice
// of `src` back into `back` (get, get_nbi), then p / g a word; qp_quiet on the handles completes them.
constexpr int kQpSlice = 96;
__global__ void queue_pairs(int* dst, const int* src, int* back, int* word, uint64_t* sig, int pe,
                            nvshmemx_qp_handle_t* qps, int* g_out) {
  const nvshmemx_qp_handle_t qp = qps[blockIdx.x % 2];
  const int at = static_cast<int>(blockIdx.x) * 3 * kQpSlice;
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    nvshmemx_qp_int_put(dst + at, src + at, kQpSlice, pe, qp);
    nvshmemx_qp_int_put_nbi(dst + at + kQpSlice, src + at + kQpSlice, kQpSlice, pe, qp);
    nvshmemx_qp_int_put_signal_nbi(dst + at + 2 * kQpSlice, src + at + 2 * kQpSlice, kQpSlice, sig, 1,
                                   NVSHMEM_SIGNAL_ADD, pe, qp);
    nvshmemx_qp_int_get(back + at, src + at, kQpSlice, pe, qp);
    nvshmemx_qp_int_get_nbi(back + at + kQpSlice, src + at + kQpSlice, kQpSlice, pe, qp);
    nvshmemx_qp_int_p(word, 7000 + pe, pe, qp);
    nvshmemx_qp_quiet(pe, qps, 2);
    *g_out = nvshmemx_qp_int_g(word, pe, qp);
    nvshmemx_qp_signal_op(sig, 1, NVSHMEM_SIGNAL_ADD, pe, qp);
    nvshmemx_qp_fence(NVSHMEMX_PE_ALL, qps, 2);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x >= 32) return;
    nvshmemx_qp_int_put_warp(dst + at, src + at, kQpSlice, pe, qp);
    nvshmemx_qp_int_put_nbi_warp(dst + at + kQpSlice, src + at + kQpSlice, kQpSlice, pe, qp);
    nvshmemx_qp_int_put_signal_warp(dst + at + 2 * kQpSlice, src + at + 2 * kQpSlice, kQpSlice, sig, 1,
                                    NVSHMEM_SIGNAL_ADD, pe, qp);
    nvshmemx_qp_int_get_warp(back + at, src + at, kQpSlice, pe, qp);
    nvshmemx_qp_int_get_nbi_warp(back + at + kQpSlice, src + at + kQpSlice, kQpSlice, pe, qp);
    nvshmemx_qp_quiet_warp(pe, qps, 2);
    nvshmemx_qp_fence_warp(pe, qps, 2);
  } else {
    nvshmemx_qp_int_put_block(dst + at, src + at, kQpSlice, pe, qp);
    nvshmemx_qp_int_put_nbi_block(dst + at + kQpSlice, src + at + kQpSlice, kQpSlice, pe, qp);
    nvshmemx_qp_int_put_signal_nbi_block(dst + at + 2 * kQpSlice, src + at + 2 * kQpSlice, kQpSlice, sig, 1,
                                         NVSHMEM_SIGNAL_ADD, pe, qp);
    nvshmemx_qp_int_get_block(back + at, src + at, kQpSlice, pe, qp);
    nvshmemx_qp_int_get_nbi_block(back + at + kQpSlice, src + at + kQpSlice, kQpSlice, pe, qp);
    nvshmemx_qp_quiet_block(NVSHMEMX_PE_ALL, qps, 2);
    nvshmemx_qp_fence_block(pe, qps, 2);
  }
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

  // ---- queue pairs
  nvshmemx_qp_handle_t* qps = nullptr;
  MP_CHECK(nvshmemx_qp_create(2, &qps) == 0 && qps != nullptr, "nvshmemx_qp_create(2) failed");
  nvshmemx_qp_handle_t* dev_qps;
  CUDA_CHECK(cudaMalloc(&dev_qps, 2 * sizeof(nvshmemx_qp_handle_t)));
  CUDA_CHECK(cudaMemcpy(dev_qps, qps, 2 * sizeof(nvshmemx_qp_handle_t), cudaMemcpyHostToDevice));
  constexpr int kQpInts = 3 * 3 * kQpSlice;
  int* qdst = static_cast<int*>(nvshmem_calloc(kQpInts, sizeof(int)));
  int* qsrc = static_cast<int*>(nvshmem_malloc(kQpInts * sizeof(int)));
  uint64_t* qsig = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  MP_CHECK(qdst && qsrc && qsig, "nvshmem_malloc failed");
  std::vector<int> mine(kQpInts);
  for (int i = 0; i < kQpInts; ++i) mine[i] = me * 1000000 + i;
  CUDA_CHECK(cudaMemcpy(qsrc, mine.data(), kQpInts * sizeof(int), cudaMemcpyHostToDevice));
  int *back, *g_out;
  CUDA_CHECK(cudaMalloc(&back, kQpInts * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&g_out, sizeof(int)));
  CUDA_CHECK(cudaMemset(back, 0, kQpInts * sizeof(int)));
  nvshmem_barrier_all();
  queue_pairs<<<3, 128>>>(qdst, qsrc, back, word + 32, qsig, next, dev_qps, g_out);
  KERNEL_CHECK();
  nvshmem_barrier_all();
  std::vector<int> qgot(kQpInts), qback(kQpInts);
  CUDA_CHECK(cudaMemcpy(qgot.data(), qdst, kQpInts * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(qback.data(), back, kQpInts * sizeof(int), cudaMemcpyDeviceToHost));
  const char* scope_names[] = {"thread", "warp", "block"};
  for (int i = 0; i < kQpInts; ++i) {
    const int scope = i / (3 * kQpSlice), part = i / kQpSlice % 3;
    MP_CHECK(qgot[i] == prev * 1000000 + i, "queue pairs, %s scope: %s element %d from PE %d is %d", scope_names[scope],
             part == 0   ? "put"
             : part == 1 ? "put_nbi"
                         : "put_signal",
             i, prev, qgot[i]);
    if (part < 2) {
      MP_CHECK(qback[i] == next * 1000000 + i, "queue pairs, %s scope: %s element %d from PE %d is %d",
               scope_names[scope], part == 0 ? "get" : "get_nbi", i, next, qback[i]);
    }
  }
  MP_CHECK(nvshmem_uint64_g(qsig, me) == 4, "queue pairs: the signal is %llu, expected 4 (3 put_signal, 1 signal_op)",
           static_cast<unsigned long long>(nvshmem_uint64_g(qsig, me)));
  int g_seen = 0;
  CUDA_CHECK(cudaMemcpy(&g_seen, g_out, sizeof g_seen, cudaMemcpyDeviceToHost));
  MP_CHECK(g_seen == 7000 + next, "queue pairs: g after p read %d, expected %d", g_seen, 7000 + next);
  nvshmem_barrier_all();
  CUDA_CHECK(cudaFree(g_out));
  CUDA_CHECK(cudaFree(back));
  CUDA_CHECK(cudaFree(dev_qps));
  nvshmem_free(qsig);
  nvshmem_free(qsrc);
  nvshmem_free(qdst);
  std::free(qps);  // the library's array: after use, as NVSHMEM asks (here before finalize, which is fine)
  CUDA_CHECK(cudaFree(seen));
  CUDA_CHECK(cudaFree(results));
  CUDA_CHECK(cudaFree(status));
  CUDA_CHECK(cudaFree(staging));
  nvshmem_free(word);
  nvshmem_free(counter);
  nvshmem_free(dest);
  if (me == 0)
    std::printf("gpu_v38: counted writes, their errors, block regions and queue pairs checked on %d PEs\n", npes);
  nvshmem_finalize();
  return 0;
}
