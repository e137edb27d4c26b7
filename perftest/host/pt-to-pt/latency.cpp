// latency: latency of blocking host-initiated puts (--dir write) or gets (--dir read) between two
// PEs.
//
// --issue host: the CPU issues -n nvshmem_putmem / nvshmem_getmem of one size, then nvshmem_quiet();
// the loop is timed with a steady clock.
// --issue on_stream: -n nvshmemx_putmem_on_stream / nvshmemx_getmem_on_stream, each followed by
// cudaStreamSynchronize (so each one is waited for, as a blocking call would be), then
// nvshmemx_quiet_on_stream; timed with CUDA events on the stream.
// Latency (us) = time / iters, after -w untimed iterations. PE 0 transfers with PE 1 and reports;
// PE 1 only takes part in the barriers.
//
// The remote side is a symmetric buffer; the local side is device memory when a GPU is in use and
// malloc'd host memory otherwise (then no CUDA call is made at all). --issue on_stream without a GPU
// falls back to --issue host with a note. A put or get of the largest size is checked at the end.
#include "host_rma.h"

int main(int argc, char **argv) {
  const bool have_gpu = perftest_init();
  PerftestOptions opts;
  perftest_parse_args(argc, argv, &opts);
  perftest_require_npes(2, "latency");
  const int mype = nvshmem_my_pe();
  HostRmaTest test("latency");
  test.setup(opts, have_gpu, /*blocking=*/true);

  if (opts.bidir && mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  const std::vector<size_t> sizes = perftest_sizes(opts);
  std::vector<double> latency_us(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (mype == 0 && opts.warmup_iters > 0) test.t.run(sizes[k], opts.warmup_iters);
    nvshmem_barrier_all();
    if (mype == 0) latency_us[k] = test.t.run(sizes[k], opts.iters) * 1e6 / opts.iters;
    nvshmem_barrier_all();
  }
  const int errors = test.check(opts.max_size);
  if (errors == 0) {
    print_table_basic("Latency", test.t.on_stream ? "stream" : "host", "latency", "us", '-', sizes.data(),
                      latency_us.data(), static_cast<int>(sizes.size()));
  }
  test.teardown();
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
}
