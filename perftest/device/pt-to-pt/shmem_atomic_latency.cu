// shmem_atomic_latency: one-sided latency of the device atomic operation -a [inc] on every NVSHMEM
// type that has it (see atomic_common.cuh).
//
// One thread on PE 0 applies the operation -n times to a word of PE 1. Each iteration is one complete
// operation: a fetching operation returns the old value, which the next operation waits for (its
// address depends on it); a non-fetching one is followed by nvshmem_quiet(). Operands: add 1, set and swap i+1,
// compare_swap from i to i+1 (so that it succeeds), and/or/xor i+1. Latency (us) = time of the launch / -n, timed with
// CUDA events after an untimed launch of -w iterations. -b/-e do not apply: the size is that of the type. Output: per
// type one basic table "shmem_at_<type>_<op>_ping_lat" (NVSHMEM's job name), scope "thread", latency in us, one row.
// For inc, fetch_inc, add, fetch_add and compare_swap PE 1 checks that its word counts every operation.
#include "atomic_common.cuh"

namespace {

// base: the number of operations the word has seen before this launch (compare_swap's comparand).
// never: a value the word never holds (all ones). A fetching operation's address depends on the value
// the previous one returned (compared with `never`, which the compiler cannot know), so that it is
// issued only once that value is back: the operations do not overlap.
template <class A, AmoOp Op>
__global__ void atomic_latency_kernel(typename A::Type *word, int peer, int iters, unsigned long long base,
                                      AmoWord<typename A::Type> never, AmoWord<typename A::Type> *sink) {
  using T = typename A::Type;
  AmoWord<T> acc = 0;
  T *target = word;
  for (int i = 0; i < iters; ++i) {
    const unsigned long long k = base + static_cast<unsigned long long>(i);
    const T operand = Op == AmoOp::kAdd || Op == AmoOp::kFetchAdd ? T(1) : static_cast<T>(k + 1);
    const T r = amo_call<A, Op>(target, operand, static_cast<T>(k), peer);
    if constexpr (amo_op_fetches(Op)) {
      acc ^= amo_bits(r);
      target = word + (amo_bits(r) == never ? 1 : 0);
    } else {
      nvshmem_quiet();
    }
  }
  amo_sink<T>(acc, sink);
}

// Whether the final value of the word after `count` operations is known, and which it is.
template <AmoOp Op>
constexpr bool counts_operations() {
  return Op == AmoOp::kInc || Op == AmoOp::kFetchInc || Op == AmoOp::kAdd || Op == AmoOp::kFetchAdd ||
         Op == AmoOp::kCompareSwap;
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_atomic_latency");
  const PerftestOptions &o = t.opts;
  const AmoOpInfo &op = amo_op_info(o.atomic_op);
  // One 8-byte word per type, so that each type starts from 0.
  uint64_t *words = sym_alloc<uint64_t>(t, kAmoTypeCount * sizeof(uint64_t));
  uint64_t *sink = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(uint64_t)));
  nvshmem_barrier_all();

  int errors = 0;
  for_each_amo_type([&](auto a, int index) {
    using A = decltype(a);
    using T = typename A::Type;
    with_amo_op(op.op, [&](auto op_constant) {
      constexpr AmoOp Op = decltype(op_constant)::value;
      if constexpr (kAmoHas<A, Op>) {
        T *word = reinterpret_cast<T *>(words + index);
        auto *out = reinterpret_cast<AmoWord<T> *>(sink);
        const AmoWord<T> never = ~AmoWord<T>(0);
        double latency_us = 0.0;
        if (t.mype == 0) {
          if (o.warmup_iters > 0) {
            atomic_latency_kernel<A, Op><<<1, 1, 0, t.stream>>>(word, t.peer, o.warmup_iters, 0, never, out);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaStreamSynchronize(t.stream));
          }
          const float ms = time_launch(t, [&] {
            atomic_latency_kernel<A, Op><<<1, 1, 0, t.stream>>>(word, t.peer, o.iters, o.warmup_iters, never, out);
            CUDA_CHECK_LAUNCH();
          });
          latency_us = ms * 1e3 / o.iters;
        }
        nvshmem_barrier_all();
        size_t bad = 0;
        if (counts_operations<Op>() && t.mype == 1) {
          T value;
          CUDA_CHECK(cudaMemcpy(&value, word, sizeof(T), cudaMemcpyDeviceToHost));
          const T expect = static_cast<T>(static_cast<unsigned long long>(o.warmup_iters) + o.iters);
          if (value != expect) {
            std::fprintf(stderr, "%s: FAILED: %s_atomic_%s: PE 1's word is %g after %d operations\n", t.name, A::kName,
                         op.name, static_cast<double>(value), o.warmup_iters + o.iters);
            bad = 1;
          }
        }
        const int type_errors = total_errors(t, bad);
        errors += type_errors;
        if (type_errors == 0) {
          const std::string job = std::string("shmem_at_") + A::kName + "_" + op.name + "_ping_lat";
          const size_t size = sizeof(T);
          print_table_basic(job.c_str(), "thread", "latency", "us", '-', &size, &latency_us, 1);
        }
      }
    });
  });

  nvshmem_barrier_all();
  nvshmem_free(words);
  CUDA_CHECK(cudaFree(sink));
  return device_test_finish(&t, errors);
}
