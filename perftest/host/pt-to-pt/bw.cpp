// bw: bandwidth of host-initiated puts (--dir write) or gets (--dir read) between two PEs.
//
// --issue host: the CPU issues -n nvshmem_putmem_nbi / nvshmem_getmem_nbi of one size, then
// nvshmem_quiet(); the loop is timed with a steady clock.
// --issue on_stream: -n nvshmemx_putmem_on_stream / nvshmemx_getmem_on_stream on one stream, then
// nvshmemx_quiet_on_stream; timed with CUDA events on that stream. (NVSHMEM uses the _nbi_on_stream
// forms here; gshmem does not have them yet.)
// Bandwidth (GB/s, decimal) = size * iters / (seconds * 1e9), after -w untimed iterations. PE 0
// transfers with PE 1 and reports; with --bidir both PEs transfer at once and the figure reported is
// the sum of both PEs' bandwidths.
#include "host_rma.h"

int main(int argc, char **argv) {
  const bool have_gpu = perftest_init();
  PerftestOptions opts;
  perftest_parse_args(argc, argv, &opts);
  perftest_require_npes(2, "bw");
  const int mype = nvshmem_my_pe();
  HostRmaTest test("bw");
  test.setup(opts, have_gpu, /*blocking=*/false);

  const bool active = mype == 0 || opts.bidir;
  const std::vector<size_t> sizes = perftest_sizes(opts);
  std::vector<double> bw(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (active && opts.warmup_iters > 0) test.t.run(sizes[k], opts.warmup_iters);
    nvshmem_barrier_all();
    double mine = 0.0;
    if (active) {
      const double seconds = test.t.run(sizes[k], opts.iters);
      mine = seconds > 0.0 ? static_cast<double>(sizes[k]) * opts.iters / (seconds * 1e9) : 0.0;
    }
    nvshmem_barrier_all();
    if (opts.bidir) {
      if (mype == 1) nvshmem_double_p(test.xfer, mine, 0);
      nvshmem_barrier_all();  // includes quiet: PE 1's value has arrived
      if (mype == 0) mine += nvshmem_double_g(test.xfer, 0);
    }
    bw[k] = mine;
  }
  const int errors = test.check(opts.max_size);
  if (errors == 0) {
    print_table_basic("Bandwidth", test.t.on_stream ? "stream" : "host", "BW", "GB/sec", '+', sizes.data(), bw.data(),
                      static_cast<int>(sizes.size()));
  }
  test.teardown();
  nvshmem_finalize();
  return errors == 0 ? 0 : 1;
}
