// shmem_atomic_bw: throughput of the device atomic operation -a [inc] on uint64 words of PE 1 (see
// atomic_common.cuh).
//
// A kernel of -c CTAs x -t threads on PE 0 loops -n times; in each iteration the message (size / 8
// words) is covered word by word, thread k of the grid taking words k, k + c*t, ...; each applies the
// operation once (add 1, set/swap/and/or/xor i+1, compare_swap with comparand i). The old values of
// a fetching operation are folded into one value that may be stored at the end, so that the fetch is
// kept (a thread's operations may still overlap). After the last iteration each CTA synchronises and
// one of its threads calls nvshmem_quiet(). Bandwidth (GB/s, decimal) = size * iters / (ms * 1e6), timed with
// CUDA events around the launch after an untimed launch of -w iterations; --report_msgrate adds the
// rate of operations, words * iters / (ms * 1e3) in MMPS. Output: basic table "shmem_atomic_<op>",
// scope "thread", "BW (GB/sec)". For inc, fetch_inc, add and fetch_add PE 1 checks at the largest
// size that each word counts every operation.
#include "atomic_common.cuh"

namespace {

using AmoU64 = Amo_uint64;

template <AmoOp Op>
__global__ void atomic_bw_kernel(uint64_t *words, size_t nwords, int peer, int iters, uint64_t *sink) {
  const size_t first = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  uint64_t acc = 0;
  for (int i = 0; i < iters; ++i) {
    const uint64_t operand = Op == AmoOp::kAdd || Op == AmoOp::kFetchAdd ? 1 : static_cast<uint64_t>(i) + 1;
    for (size_t j = first; j < nwords; j += stride) {
      const uint64_t r = amo_call<AmoU64, Op>(words + j, operand, static_cast<uint64_t>(i), peer);
      if constexpr (amo_op_fetches(Op)) acc ^= r;
    }
  }
  amo_sink<uint64_t>(acc, sink);
  __syncthreads();
  if (threadIdx.x == 0) nvshmem_quiet();
}

template <AmoOp Op>
constexpr bool counts_operations() {
  return Op == AmoOp::kInc || Op == AmoOp::kFetchInc || Op == AmoOp::kAdd || Op == AmoOp::kFetchAdd;
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_atomic_bw");
  const PerftestOptions &o = t.opts;
  if (o.bidir && t.mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  const AmoOpInfo &op = amo_op_info(o.atomic_op);
  const size_t max_words = o.max_size / sizeof(uint64_t);
  uint64_t *words = sym_alloc<uint64_t>(t, max_words * sizeof(uint64_t));
  uint64_t *sink = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(uint64_t)));
  nvshmem_barrier_all();

  const std::vector<size_t> sizes = element_sizes(o, sizeof(uint64_t));
  std::vector<double> bw(sizes.size(), 0.0), rate(sizes.size(), 0.0);
  size_t bad = 0;
  with_amo_op(op.op, [&](auto op_constant) {
    constexpr AmoOp Op = decltype(op_constant)::value;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const size_t nwords = sizes[k] / sizeof(uint64_t);
      const bool last = k + 1 == sizes.size();
      if (last && t.mype == 1) CUDA_CHECK(cudaMemset(words, 0, max_words * sizeof(uint64_t)));  // for the check
      CUDA_CHECK(cudaDeviceSynchronize());
      nvshmem_barrier_all();
      if (t.mype == 0) {
        if (o.warmup_iters > 0) {
          atomic_bw_kernel<Op><<<o.ctas, o.threads_per_cta, 0, t.stream>>>(words, nwords, t.peer, o.warmup_iters, sink);
          CUDA_CHECK_LAUNCH();
          CUDA_CHECK(cudaStreamSynchronize(t.stream));
        }
        const float ms = time_launch(t, [&] {
          atomic_bw_kernel<Op><<<o.ctas, o.threads_per_cta, 0, t.stream>>>(words, nwords, t.peer, o.iters, sink);
          CUDA_CHECK_LAUNCH();
        });
        bw[k] = static_cast<double>(sizes[k]) * o.iters / (static_cast<double>(ms) * 1e6);
        rate[k] = static_cast<double>(nwords) * o.iters / (static_cast<double>(ms) * 1e3);
      }
      nvshmem_barrier_all();
      if (last && counts_operations<Op>() && t.mype == 1) {
        std::vector<uint64_t> host(nwords);
        CUDA_CHECK(cudaMemcpy(host.data(), words, nwords * sizeof(uint64_t), cudaMemcpyDeviceToHost));
        const uint64_t expect = static_cast<uint64_t>(o.warmup_iters) + o.iters;
        size_t first = 0;
        for (size_t j = 0; j < nwords; ++j) {
          if (host[j] != expect && bad++ == 0) first = j;
        }
        if (bad != 0) {
          std::fprintf(stderr,
                       "%s: FAILED: %zu of %zu words wrong after uint64_atomic_%s; first at %zu: %llu, expected %llu\n",
                       t.name, bad, nwords, op.name, first, static_cast<unsigned long long>(host[first]),
                       static_cast<unsigned long long>(expect));
        }
      }
    }
  });

  const int errors = total_errors(t, bad);
  if (errors == 0) {
    const std::string job = std::string("shmem_atomic_") + op.name;
    print_table_basic(job.c_str(), "thread", "BW", "GB/sec", '+', sizes.data(), bw.data(),
                      static_cast<int>(sizes.size()));
    if (o.report_msgrate) {
      print_table_basic(job.c_str(), "thread", "msgrate", "MMPS", '+', sizes.data(), rate.data(),
                        static_cast<int>(sizes.size()));
    }
  }
  nvshmem_barrier_all();
  nvshmem_free(words);
  CUDA_CHECK(cudaFree(sink));
  return device_test_finish(&t, errors);
}
