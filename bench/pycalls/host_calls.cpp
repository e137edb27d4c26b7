// The C++ side of bench/pycalls: the host calls that python_calls.py makes, timed the same way (mean of
// `iters` calls after `warmup`, PE 0 to PE 1 for the one-sided ones). Prints "op us_per_call" lines on PE 0.
// The on-stream forms (on the CUDA default stream; on the CPU backend they run at once) are timed by what the
// call costs the host: batches of kBatch calls, the stream drained between them and not timed, so that a full
// launch queue does not time the GPU instead.
//   gshmrun -n 2 host_calls [iters] [warmup]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "gshmem/host.hpp"

namespace host = gshmem::host;

template <class F>
double time_us(int iters, int warmup, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  host::barrier_all();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) f();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}

constexpr int kBatch = 100;

template <class F>
double time_stream_us(int iters, int warmup, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  host::synchronize(nullptr);
  host::barrier_all();
  std::chrono::duration<double, std::micro> spent{0};
  int done = 0;
  for (; done < iters; done += kBatch) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) f();
    spent += std::chrono::steady_clock::now() - t0;
    host::synchronize(nullptr);
  }
  return spent.count() / done;
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 1000;
  if (host::init() != GSHMEM_SUCCESS) return 1;
  const int me = host::my_pe(), n = host::n_pes();
  auto* box = static_cast<int64_t*>(host::calloc(1, sizeof(int64_t)));
  auto* src = static_cast<int64_t*>(host::calloc(1, sizeof(int64_t)));
  auto* dst = static_cast<int64_t*>(host::calloc(1, sizeof(int64_t)));
  int64_t local = 7;
  const int peer = (me + 1) % n;
  struct Row {
    const char* op;
    double us;
  } rows[12];
  int k = 0;
  // One-sided calls from PE 0 only; the others wait in the barrier inside time_us.
  auto one_sided = [&](const char* op, auto f, bool stream = false) {
    double us = 0;
    if (me == 0) {
      us = stream ? time_stream_us(iters, warmup, f) : time_us(iters, warmup, f);
    } else {
      host::barrier_all();
    }
    host::barrier_all();
    rows[k++] = {op, us};
  };
  one_sided("put_8B", [&] { host::putmem(box, &local, 8, peer); });
  one_sided("put_nbi_8B", [&] { host::putmem(box, &local, 8, peer, host::kNbi); });
  host::quiet();
  one_sided("get_8B", [&] { host::getmem(&local, box, 8, peer); });
  one_sided("p_8B", [&] { host::p<int64_t>(box, 5, peer); });
  one_sided("atomic_fetch_add_8B", [&] { host::atomic_fetch_add<int64_t>(box, 1, peer); });
  rows[k++] = {"barrier_all", time_us(iters / 4, warmup / 4, [] { host::barrier_all(); })};
  rows[k++] = {"reduce_sum_8B", time_us(iters / 4, warmup / 4, [&] {
                 host::reduce<int64_t>(GSHMEM_TEAM_WORLD, gshmem::ReduceOp::kSum, dst, src, 1);
               })};
  // On the default stream (null: CUDA's legacy stream), from a symmetric source.
  one_sided(
      "put_on_stream_8B", [&] { host::putmem(box, src, 8, peer, host::on(nullptr)); }, true);
  rows[k++] = {"barrier_all_on_stream",
               time_stream_us(iters / 4, warmup / 4, [] { host::barrier_all_on_stream(nullptr); })};
  rows[k++] = {"reduce_sum_on_stream_8B", time_stream_us(iters / 4, warmup / 4, [&] {
                 host::reduce<int64_t>(GSHMEM_TEAM_WORLD, gshmem::ReduceOp::kSum, dst, src, 1, host::on(nullptr));
               })};
  host::synchronize(nullptr);
  if (me == 0) {
    std::printf("backend %s\n", host::cuda_device() >= 0 ? "gpu" : "cpu");
    for (int i = 0; i < k; ++i) std::printf("%s %.3f\n", rows[i].op, rows[i].us);
  }
  host::barrier_all();
  host::free(dst);
  host::free(src);
  host::free(box);
  host::finalize();
  return 0;
}
