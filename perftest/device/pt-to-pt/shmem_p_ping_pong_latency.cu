// shmem_p_ping_pong_latency: round-trip latency of messages written with nvshmem_int_p and announced
// with a signal (see ping_pong.cuh).
//
// One CTA of -t threads per PE (collective launch). A message of size / 4 ints: thread j writes
// elements j, j + t, ... with nvshmem_int_p; the CTA synchronises; one thread calls nvshmem_fence()
// and sets the peer's flag to k with nvshmemx_signal_op. The receiver's thread 0 waits with
// nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k), then the CTA synchronises. Output: basic table
// "shmem_ping_pong_lat", scope "thread", latency (us) of the round trip. The data each PE received at
// the largest size is checked.
#include "ping_pong.cuh"

namespace {

__global__ void p_ping_pong_kernel(int *data, uint64_t *flag, size_t nelems, int mype, int peer, int rounds,
                                   unsigned long long base) {
  for (int r = 1; r <= rounds; ++r) {
    const uint64_t k = base + static_cast<uint64_t>(r);
    if (mype == 1) {
      if (threadIdx.x == 0) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
      __syncthreads();
    }
    for (size_t j = threadIdx.x; j < nelems; j += blockDim.x) nvshmem_int_p(data + j, pattern_value<int>(j), peer);
    __syncthreads();
    if (threadIdx.x == 0) {
      nvshmem_fence();
      nvshmemx_signal_op(flag, k, NVSHMEM_SIGNAL_SET, peer);
    }
    if (mype == 0) {
      if (threadIdx.x == 0) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
      __syncthreads();
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_p_ping_pong_latency");
  const PerftestOptions &o = t.opts;
  PingPongData data;
  data.alloc(t);
  uint64_t *flag = sym_alloc<uint64_t>(t, sizeof(uint64_t));
  nvshmem_barrier_all();

  const std::vector<size_t> sizes = element_sizes(o, sizeof(int));
  std::vector<double> latency_us(sizes.size(), 0.0);
  unsigned long long round = 0;
  int mype = t.mype, peer = t.peer;
  data.clear(t);
  for (size_t k = 0; k < sizes.size(); ++k) {
    size_t nelems = sizes[k] / sizeof(int);
    latency_us[k] = ping_pong_measure(t, &round, [&](int rounds, unsigned long long base) {
      void *args[] = {&data.dest, &flag, &nelems, &mype, &peer, &rounds, &base};
      collective_launch(t, reinterpret_cast<const void *>(p_ping_pong_kernel), o.threads_per_cta, args);
    });
  }
  const int errors = sizes.empty() ? 0 : data.check(t, "the p ping-pong", sizes.back() / sizeof(int));
  if (errors == 0) {
    print_table_basic("shmem_ping_pong_lat", "thread", "latency", "us", '-', sizes.data(), latency_us.data(),
                      static_cast<int>(sizes.size()));
  }
  nvshmem_barrier_all();
  nvshmem_free(flag);
  data.release();
  return device_test_finish(&t, errors);
}
