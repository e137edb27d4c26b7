// shmem_put_ping_pong_latency: round-trip latency of a put followed by a signal (see ping_pong.cuh).
//
// One thread per PE (collective launch). A message of size / 4 ints: nvshmem_int_put_nbi into the
// peer's buffer, nvshmem_fence(), then nvshmemx_signal_op setting the peer's flag to k; the receiver
// waits with nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k). Output: basic table
// "shmem_put_ping_lat", scope "thread", latency (us) of the round trip. The data each PE received at
// the largest size is checked.
#include "ping_pong.cuh"

namespace {

__global__ void put_ping_pong_kernel(int *dest, const int *src, uint64_t *flag, size_t nelems, int mype, int peer,
                                     int rounds, unsigned long long base) {
  for (int r = 1; r <= rounds; ++r) {
    const uint64_t k = base + static_cast<uint64_t>(r);
    if (mype == 1) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
    nvshmem_int_put_nbi(dest, src, nelems, peer);
    nvshmem_fence();
    nvshmemx_signal_op(flag, k, NVSHMEM_SIGNAL_SET, peer);
    if (mype == 0) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
  }
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_put_ping_pong_latency");
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
      void *args[] = {&data.dest, &data.src, &flag, &nelems, &mype, &peer, &rounds, &base};
      collective_launch(t, reinterpret_cast<const void *>(put_ping_pong_kernel), 1, args);
    });
  }
  const int errors = sizes.empty() ? 0 : data.check(t, "the put ping-pong", sizes.back() / sizeof(int));
  if (errors == 0) {
    print_table_basic("shmem_put_ping_lat", "thread", "latency", "us", '-', sizes.data(), latency_us.data(),
                      static_cast<int>(sizes.size()));
  }
  nvshmem_barrier_all();
  nvshmem_free(flag);
  data.release();
  return device_test_finish(&t, errors);
}
