// shmem_signal_ping_pong_latency: round-trip latency of a signal (see ping_pong.cuh).
//
// One thread per PE (collective launch): nvshmemx_signal_op sets the peer's flag to k; the receiver
// waits with nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k). -b/-e do not apply: the message is
// the 8-byte signal. Output: basic table "shmem_sig_ping_lat", scope "thread", one row of 8 bytes,
// latency (us) of the round trip.
#include "ping_pong.cuh"

namespace {

__global__ void signal_ping_pong_kernel(uint64_t *flag, int mype, int peer, int rounds, unsigned long long base) {
  for (int r = 1; r <= rounds; ++r) {
    const uint64_t k = base + static_cast<uint64_t>(r);
    if (mype == 1) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
    nvshmemx_signal_op(flag, k, NVSHMEM_SIGNAL_SET, peer);
    if (mype == 0) nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, k);
  }
}

}  // namespace

int main(int argc, char **argv) {
  DeviceTest t;
  device_test_start(&t, argc, argv, "shmem_signal_ping_pong_latency");
  uint64_t *flag = sym_alloc<uint64_t>(t, sizeof(uint64_t));
  nvshmem_barrier_all();

  unsigned long long round = 0;
  int mype = t.mype, peer = t.peer;
  double latency_us = ping_pong_measure(t, &round, [&](int rounds, unsigned long long base) {
    void *args[] = {&flag, &mype, &peer, &rounds, &base};
    collective_launch(t, reinterpret_cast<const void *>(signal_ping_pong_kernel), 1, args);
  });
  // Both flags end at the number of rounds made.
  uint64_t last = 0;
  CUDA_CHECK(cudaMemcpy(&last, flag, sizeof last, cudaMemcpyDeviceToHost));
  size_t bad = 0;
  if (last != round) {
    std::fprintf(stderr, "%s: FAILED: PE %d's flag is %llu after %llu rounds\n", t.name, t.mype,
                 static_cast<unsigned long long>(last), round);
    bad = 1;
  }
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    const size_t size = sizeof(uint64_t);
    print_table_basic("shmem_sig_ping_lat", "thread", "latency", "us", '-', &size, &latency_us, 1);
  }
  nvshmem_barrier_all();
  nvshmem_free(flag);
  return device_test_finish(&t, errors);
}
