// Device put/get/putmem/getmem (blocking and _nbi) at thread, warp and block scope: random data at
// many sizes and alignments on both sides, verified on the target, with the bytes around each
// target checked untouched. After nvshmemx_flush (at each scope) the source of a put_nbi is
// overwritten at once: the target must still receive what it held at the call.
#include <cstdint>

#include "gpu_test.cuh"

namespace {

enum Op { kPut, kPutNbi, kGet, kGetNbi, kPutTyped, kGetTyped, kPutNbiFlush };
enum ScopeId { kThread, kWarp, kBlock };
const char* op_name[] = {"putmem",
                         "putmem_nbi",
                         "getmem",
                         "getmem_nbi",
                         "char_put",
                         "uchar_get_nbi",
                         "putmem_nbi, flush, source overwritten"};
const char* scope_name[] = {"thread", "warp", "block"};

// Every thread of the launch calls with the same arguments, as the scope requires. For warp scope
// the launch has two warps: each moves its own half, which also checks that warps are independent.
__global__ void rma_kernel(int op, int scope, char* dst, const char* src, size_t n, int pe) {
  size_t half = n / 2;
  if (scope == kWarp) {
    int w = static_cast<int>(threadIdx.x + blockDim.x * threadIdx.y) / 32;
    size_t off = w == 0 ? 0 : half;
    size_t len = w == 0 ? half : n - half;
    dst += off;
    src += off;
    n = len;
  }
  switch (op) {
    case kPut:
      if (scope == kThread)
        nvshmem_putmem(dst, src, n, pe);
      else if (scope == kWarp)
        nvshmemx_putmem_warp(dst, src, n, pe);
      else
        nvshmemx_putmem_block(dst, src, n, pe);
      break;
    case kPutNbi:
      if (scope == kThread)
        nvshmem_putmem_nbi(dst, src, n, pe);
      else if (scope == kWarp)
        nvshmemx_putmem_nbi_warp(dst, src, n, pe);
      else
        nvshmemx_putmem_nbi_block(dst, src, n, pe);
      break;
    case kGet:
      if (scope == kThread)
        nvshmem_getmem(dst, src, n, pe);
      else if (scope == kWarp)
        nvshmemx_getmem_warp(dst, src, n, pe);
      else
        nvshmemx_getmem_block(dst, src, n, pe);
      break;
    case kGetNbi:
      if (scope == kThread)
        nvshmem_getmem_nbi(dst, src, n, pe);
      else if (scope == kWarp)
        nvshmemx_getmem_nbi_warp(dst, src, n, pe);
      else
        nvshmemx_getmem_nbi_block(dst, src, n, pe);
      break;
    case kPutTyped:
      if (scope == kThread)
        nvshmem_char_put(dst, src, n, pe);
      else if (scope == kWarp)
        nvshmemx_char_put_warp(dst, src, n, pe);
      else
        nvshmemx_char_put_block(dst, src, n, pe);
      break;
    case kGetTyped: {
      auto* d = reinterpret_cast<unsigned char*>(dst);
      auto* s = reinterpret_cast<const unsigned char*>(src);
      if (scope == kThread)
        nvshmem_uchar_get_nbi(d, s, n, pe);
      else if (scope == kWarp)
        nvshmemx_uchar_get_nbi_warp(d, s, n, pe);
      else
        nvshmemx_uchar_get_nbi_block(d, s, n, pe);
      break;
    }
    case kPutNbiFlush: {
      // Once flush returns the group may write its source again (the put may still be on its way).
      char* reused = const_cast<char*>(src);
      int rank = 0, size = 1;
      if (scope == kThread) {
        nvshmem_putmem_nbi(dst, src, n, pe);
        nvshmemx_flush();
      } else if (scope == kWarp) {
        nvshmemx_putmem_nbi_warp(dst, src, n, pe);
        nvshmemx_flush_warp();
        rank = static_cast<int>(threadIdx.x + blockDim.x * threadIdx.y) % 32;
        size = 32;
      } else {
        nvshmemx_putmem_nbi_block(dst, src, n, pe);
        nvshmemx_flush_block();
        rank = static_cast<int>(threadIdx.x + blockDim.x * threadIdx.y);
        size = static_cast<int>(blockDim.x * blockDim.y);
      }
      for (size_t i = static_cast<size_t>(rank); i < n; i += static_cast<size_t>(size)) reused[i] = 0x5A;
      break;
    }
  }
  nvshmem_quiet();
}

// The shape of a latency loop: block-scope int get_nbi, then quiet, repeated. With 1024 threads
// per block it launches only if the get's unrolled copy loop fits in 64 registers per thread.
__global__ void get_loop_kernel(int* local, const int* sym, size_t nelems, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    nvshmemx_int_get_nbi_block(local, sym, nelems, pe);
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
    __syncthreads();
  }
}

void launch(int op, int scope, char* dst, const char* src, size_t n, int pe) {
  if (scope == kThread) {
    rma_kernel<<<1, 1>>>(op, scope, dst, src, n, pe);
  } else if (scope == kWarp) {
    rma_kernel<<<1, 64>>>(op, scope, dst, src, n, pe);
  } else {
    // A 2-D block of 1024 threads, the most a block may have: the copy loops must fit in 64
    // registers per thread or this launch fails.
    rma_kernel<<<1, dim3(32, 32)>>>(op, scope, dst, src, n, pe);
  }
  KERNEL_CHECK();
}

// Every size from 1 to 40, then 4^k - 1, 4^k and 4^k + 3 from 64 up to 256 KiB (thread scope) or 16 MiB.
// Under the network scale (gputest::net_scale), where each transfer is a network round trip: of 1 to
// 40 only 1 to 9 and those next to a multiple of 16 (15, 16, 17, 31, 32, 33, 40), and the largest size
// divided by the scale (4 KiB and 256 KiB at 64), so that the sizes still cover odd and aligned lengths
// and lengths that need one copy loop pass and many.
std::vector<size_t> sizes_for(int scope) {
  const bool reduced = gputest::net_scale() > 1;
  std::vector<size_t> s;
  for (size_t i = 1; i <= 40; ++i) {
    if (!reduced || i <= 9 || i % 16 <= 1 || i % 16 == 15 || i == 40) s.push_back(i);
  }
  const size_t top = gputest::scaled<size_t>(scope == kThread ? (256u << 10) : (16u << 20), 4096);
  for (size_t p = 64; p <= top; p *= 4) {
    s.push_back(p - 1);
    s.push_back(p);
    s.push_back(p + 3);
  }
  return s;
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t kMax = (16u << 20) + 64, kPad = 32;
  char* sym_dst = static_cast<char*>(nvshmem_malloc(kMax + 2 * kPad));
  char* sym_src = static_cast<char*>(nvshmem_malloc(kMax + 2 * kPad));
  MP_CHECK(sym_dst && sym_src, "nvshmem_malloc failed");
  char *dev_src, *dev_dst;
  CUDA_CHECK(cudaMalloc(&dev_src, kMax + 2 * kPad));
  CUDA_CHECK(cudaMalloc(&dev_dst, kMax + 2 * kPad));
  std::vector<unsigned char> host(kMax + 2 * kPad);
  const size_t offsets[][2] = {{0, 0}, {1, 3}, {8, 0}, {4, 12}, {13, 13}, {2, 2}};
  uint64_t round = 0;
  size_t checked = 0;
  for (int scope = kThread; scope <= kBlock; ++scope) {
    for (int op = kPut; op <= kPutNbiFlush; ++op) {
      const bool is_put = op == kPut || op == kPutNbi || op == kPutTyped || op == kPutNbiFlush;
      for (size_t n : sizes_for(scope)) {
        const auto& o = offsets[round % 6];
        const size_t doff = kPad + o[0], soff = kPad + o[1];
        ++round;
        // Poison the whole target area, then set the source.
        char* target = is_put ? sym_dst : dev_dst;
        CUDA_CHECK(cudaMemset(target, 0xA5, n + 2 * kPad + 16));
        mp::fill(host.data(), n, mp::seed_of(me, round));
        CUDA_CHECK(cudaMemcpy((is_put ? dev_src : sym_src) + soff, host.data(), n, cudaMemcpyHostToDevice));
        nvshmem_barrier_all();
        if (is_put) {
          launch(op, scope, sym_dst + doff, dev_src + soff, n, next);
        } else {
          launch(op, scope, dev_dst + doff, sym_src + soff, n, next);
        }
        nvshmem_barrier_all();
        // A put is checked by its target (data from the previous PE), a get by the getter.
        const int from = is_put ? prev : next;
        auto got = gputest::to_host(target + doff - 1, n + 2);
        long bad = mp::first_mismatch(got.data() + 1, n, mp::seed_of(from, round));
        if (bad >= 0) {
          std::vector<unsigned char> want(n);
          mp::fill(want.data(), n, mp::seed_of(from, round));
          size_t wrong = 0;
          for (size_t i = 0; i < n; ++i) wrong += got[i + 1] != want[i];
          MP_CHECK(bad < 0,
                   "%s %s of %zu bytes (offsets %zu/%zu): %zu bytes differ, the first at %ld (%02x, expected %02x)",
                   scope_name[scope], op_name[op], n, o[0], o[1], wrong, bad, got[bad + 1], want[bad]);
        }
        MP_CHECK(got[0] == 0xA5 && got[n + 1] == 0xA5, "%s %s of %zu bytes wrote outside its target", scope_name[scope],
                 op_name[op], n);
        ++checked;
      }
    }
  }
  {
    // Bytes: 16 KiB under the network scale at 64 (the loop's shape, not its size, is what it checks).
    const size_t n = gputest::scaled<size_t>(1u << 20, 4096);
    ++round;
    mp::fill(host.data(), n, mp::seed_of(me, round));
    CUDA_CHECK(cudaMemcpy(sym_src, host.data(), n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dev_dst, 0, n));
    nvshmem_barrier_all();
    get_loop_kernel<<<1, 1024>>>(reinterpret_cast<int*>(dev_dst), reinterpret_cast<const int*>(sym_src),
                                 n / sizeof(int), next, 3);
    KERNEL_CHECK();
    auto got = gputest::to_host(dev_dst, n);
    MP_CHECK(mp::first_mismatch(got.data(), n, mp::seed_of(next, round)) < 0,
             "a 1024-thread loop of block get_nbi and quiet read wrong data");
    ++checked;
  }
  nvshmem_barrier_all();
  CUDA_CHECK(cudaFree(dev_src));
  CUDA_CHECK(cudaFree(dev_dst));
  nvshmem_free(sym_src);
  nvshmem_free(sym_dst);
  if (me == 0)
    std::printf("gpu_rma: %zu transfers verified on %d PEs%s\n", checked, npes, gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
