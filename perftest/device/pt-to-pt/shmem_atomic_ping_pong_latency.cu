// shmem_atomic_ping_pong_latency: round-trip latency of the device atomic operation -a [inc] used as
// the message, on every NVSHMEM type that has it (see atomic_common.cuh and ping_pong.cuh).
//
// One thread per PE (collective launch). In round k the sender applies the operation to the peer's
// word so that it takes a value known to both sides, and the receiver waits for exactly that value
// with nvshmem_uint32/uint64_wait_until(NVSHMEM_CMP_EQ) on the word's bits:
//  - inc, fetch_inc, add, fetch_add (of 1), set, swap (of k), compare_swap (k-1 to k), xor, fetch_xor
//    (of (k-1) ^ k): the word becomes k;
//  - or, fetch_or: bit (k-1) mod w of one of two words (w = bits of the type) is set, so the word
//    holds the lowest bits set; and, fetch_and: that bit is cleared from a word of ones. Once all of
//    a word's bits are used its owner resets it (a local store) and the pair alternates, so the reset
//    precedes the word's next use by w round trips.
// A fetching operation's old value is consumed after the wait. Output: per type a table of
// NVSHMEM's "v1" layout, job "shmem_at_<type>_<op>_ping_lat", one row: size = the type's size,
// count 1, the type, scope "thread", latency (us) of the round trip, algbw and busbw (size / latency).
#include "atomic_common.cuh"
#include "ping_pong.cuh"

namespace {

// What round k sends and waits for.
template <class A, AmoOp Op>
struct PingPongStep {
  using T = typename A::Type;
  using W = AmoWord<T>;
  static constexpr bool kBitwise =
      Op == AmoOp::kAnd || Op == AmoOp::kFetchAnd || Op == AmoOp::kOr || Op == AmoOp::kFetchOr;

  int word = 0;         // which word of the pair
  T operand{}, cond{};  // for amo_call
  W expect = 0;         // the word's bits after the operation
  bool reset = false;   // the receiver resets the word after seeing it
  W reset_to = 0;

  // The value both words start at.
  __host__ __device__ static constexpr W initial() {
    return Op == AmoOp::kAnd || Op == AmoOp::kFetchAnd ? ~W(0) : W(0);
  }

  __device__ __forceinline__ explicit PingPongStep(uint64_t k) {
    if constexpr (kBitwise) {
      constexpr int kBits = 8 * sizeof(T);
      const uint64_t n = k - 1;
      word = static_cast<int>((n / kBits) & 1);
      const int b = static_cast<int>(n % kBits);
      const W bit = W(1) << b;
      const W low = b == kBits - 1 ? ~W(0) : (bit << 1) - 1;  // bits 0..b
      if constexpr (Op == AmoOp::kOr || Op == AmoOp::kFetchOr) {
        operand = amo_from_bits<T>(bit);
        expect = low;
      } else {
        operand = amo_from_bits<T>(static_cast<W>(~bit));
        expect = static_cast<W>(~low);
      }
      reset = b == kBits - 1;
      reset_to = initial();
    } else {
      if constexpr (Op == AmoOp::kAdd || Op == AmoOp::kFetchAdd) {
        operand = T(1);
      } else if constexpr (Op == AmoOp::kXor || Op == AmoOp::kFetchXor) {
        operand = static_cast<T>((k - 1) ^ k);
      } else {
        operand = static_cast<T>(k);
      }
      cond = static_cast<T>(k - 1);
      expect = amo_bits(static_cast<T>(k));
    }
  }
};

template <class T>
__device__ __forceinline__ void wait_word(AmoWord<T> *w, AmoWord<T> value) {
  if constexpr (sizeof(T) == 4) {
    nvshmem_uint32_wait_until(w, NVSHMEM_CMP_EQ, value);
  } else {
    nvshmem_uint64_wait_until(w, NVSHMEM_CMP_EQ, value);
  }
}

// slot: two 8-byte words, the pair this type uses.
template <class A, AmoOp Op>
__global__ void atomic_ping_pong_kernel(uint64_t *slot, int mype, int peer, int rounds, unsigned long long base,
                                        AmoWord<typename A::Type> *sink) {
  using T = typename A::Type;
  using Step = PingPongStep<A, Op>;
  AmoWord<T> acc = 0;
  for (int r = 1; r <= rounds; ++r) {
    const Step s(base + static_cast<uint64_t>(r));
    auto *mine = reinterpret_cast<AmoWord<T> *>(slot + s.word);
    if (mype == 1) {
      wait_word<T>(mine, s.expect);
      if (s.reset) *reinterpret_cast<volatile AmoWord<T> *>(mine) = s.reset_to;
    }
    const T old = amo_call<A, Op>(reinterpret_cast<T *>(slot + s.word), s.operand, s.cond, peer);
    if (mype == 0) {
      wait_word<T>(mine, s.expect);
      if (s.reset) *reinterpret_cast<volatile AmoWord<T> *>(mine) = s.reset_to;
    }
    if constexpr (amo_op_fetches(Op)) acc ^= amo_bits(old);
  }
  amo_sink<T>(acc, sink);
}

// Fills both words of this PE's slot (16 bytes) with `initial` (of T's size).
template <class T>
void init_slot(uint64_t *slot, AmoWord<T> initial) {
  AmoWord<T> host[2 * sizeof(uint64_t) / sizeof(AmoWord<T>)];
  for (AmoWord<T> &w : host) w = initial;
  CUDA_CHECK(cudaMemcpy(slot, host, sizeof host, cudaMemcpyHostToDevice));
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_atomic_ping_pong_latency");
  const AmoOpInfo &op = amo_op_info(t.opts.atomic_op);
  uint64_t *slots = sym_alloc<uint64_t>(t, 2 * kAmoTypeCount * sizeof(uint64_t));
  uint64_t *sink = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(uint64_t)));
  nvshmem_barrier_all();

  int errors = 0;
  int mype = t.mype, peer = t.peer;
  for_each_amo_type([&](auto a, int index) {
    using A = decltype(a);
    using T = typename A::Type;
    with_amo_op(op.op, [&](auto op_constant) {
      constexpr AmoOp Op = decltype(op_constant)::value;
      if constexpr (kAmoHas<A, Op>) {
        uint64_t *slot = slots + 2 * index;
        auto *out = reinterpret_cast<AmoWord<T> *>(sink);
        init_slot<T>(slot, PingPongStep<A, Op>::initial());
        nvshmem_barrier_all();
        unsigned long long round = 0;
        double latency_us = ping_pong_measure(t, &round, [&](int rounds, unsigned long long base) {
          void *args[] = {&slot, &mype, &peer, &rounds, &base, &out};
          collective_launch(t, reinterpret_cast<const void *>(atomic_ping_pong_kernel<A, Op>), 1, args);
        });
        // Completing the rounds is the check: each wait needs the exact value. Report only if every
        // PE got here (a wrong value would have hung the kernel instead).
        const int type_errors = total_errors(t, 0);
        errors += type_errors;
        if (type_errors == 0) {
          const std::string job = std::string("shmem_at_") + A::kName + "_" + op.name + "_ping_lat";
          const size_t size = sizeof(T);
          print_table_v1(job.c_str(), A::kName, nullptr, "thread", sizeof(T), 1.0, &size, &latency_us, 1);
        }
      }
    });
  });

  nvshmem_barrier_all();
  nvshmem_free(slots);
  CUDA_CHECK(cudaFree(sink));
  return device_test_finish(&t, errors);
}
