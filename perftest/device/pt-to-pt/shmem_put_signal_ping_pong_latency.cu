// shmem_put_signal_ping_pong_latency: round-trip latency of put-with-signal at thread, warp and block
// scope (see ping_pong.cuh).
//
// One CTA per PE (collective launch) of 1 thread (thread scope), 32 threads (warp) or -t threads
// (block). A message of size / 4 ints: nvshmem_int_put_signal_nbi / nvshmemx_int_put_signal_nbi_warp /
// _block into the peer's buffer, setting the peer's flag to k (NVSHMEM_SIGNAL_SET); the receiver's
// first thread waits with nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k), then the group
// synchronises. -s thread|warp|block measures one scope only (default: all three). Output: one basic
// table per scope, job "shmem_put_ping_lat", scopes "thread", "warp", "block", latency (us) of the
// round trip. Each scope's data received at the largest size is checked on both PEs.
#include "ping_pong.cuh"

namespace {

constexpr int kScopeThread = 0, kScopeWarp = 1, kScopeBlock = 2;

template <int Scope>
__device__ __forceinline__ void wait_for(uint64_t *flag, uint64_t k) {
  if (threadIdx.x == 0) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
  if constexpr (Scope == kScopeWarp) __syncwarp();
  if constexpr (Scope == kScopeBlock) __syncthreads();
}

template <int Scope>
__global__ void put_signal_ping_pong_kernel(int *dest, const int *src, uint64_t *flag, size_t nelems, int mype,
                                            int peer, int rounds, unsigned long long base) {
  for (int r = 1; r <= rounds; ++r) {
    const uint64_t k = base + static_cast<uint64_t>(r);
    if (mype == 1) wait_for<Scope>(flag, k);
    if constexpr (Scope == kScopeThread) {
      nvshmem_int_put_signal_nbi(dest, src, nelems, flag, k, NVSHMEM_SIGNAL_SET, peer);
    } else if constexpr (Scope == kScopeWarp) {
      nvshmemx_int_put_signal_nbi_warp(dest, src, nelems, flag, k, NVSHMEM_SIGNAL_SET, peer);
    } else {
      nvshmemx_int_put_signal_nbi_block(dest, src, nelems, flag, k, NVSHMEM_SIGNAL_SET, peer);
    }
    if (mype == 0) wait_for<Scope>(flag, k);
  }
}

// One scope's sweep; prints its table. Returns the errors of its check (on every PE).
template <int Scope>
int put_signal_scope(const DeviceTest &t, const char *subjob, PingPongData &data, uint64_t *flag,
                     unsigned long long *round) {
  const PerftestOptions &o = t.opts;
  const int threads = Scope == kScopeThread ? 1 : Scope == kScopeWarp ? 32 : o.threads_per_cta;
  const std::vector<size_t> sizes = element_sizes(o, sizeof(int));
  std::vector<double> latency_us(sizes.size(), 0.0);
  int mype = t.mype, peer = t.peer;
  data.clear(t);
  for (size_t k = 0; k < sizes.size(); ++k) {
    size_t nelems = sizes[k] / sizeof(int);
    latency_us[k] = ping_pong_measure(t, round, [&](int rounds, unsigned long long base) {
      void *args[] = {&data.dest, &data.src, &flag, &nelems, &mype, &peer, &rounds, &base};
      collective_launch(t, reinterpret_cast<const void *>(put_signal_ping_pong_kernel<Scope>), threads, args);
    });
  }
  const int errors = sizes.empty() ? 0 : data.check(t, "the put-signal ping-pong", sizes.back() / sizeof(int));
  if (errors == 0) {
    print_table_basic("shmem_put_ping_lat", subjob, "latency", "us", '-', sizes.data(), latency_us.data(),
                      static_cast<int>(sizes.size()));
  }
  return errors;
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_put_signal_ping_pong_latency");
  const PerftestOptions &o = t.opts;
  PingPongData data;
  data.alloc(t);
  uint64_t *flag = sym_alloc<uint64_t>(t, sizeof(uint64_t));
  nvshmem_barrier_all();

  unsigned long long round = 0;
  int errors = 0;
  if (scope_selected(o, PerftestScope::kThread))
    errors += put_signal_scope<kScopeThread>(t, "thread", data, flag, &round);
  if (scope_selected(o, PerftestScope::kWarp)) errors += put_signal_scope<kScopeWarp>(t, "warp", data, flag, &round);
  if (scope_selected(o, PerftestScope::kBlock)) errors += put_signal_scope<kScopeBlock>(t, "block", data, flag, &round);

  nvshmem_barrier_all();
  nvshmem_free(flag);
  data.release();
  return device_test_finish(&t, errors);
}
