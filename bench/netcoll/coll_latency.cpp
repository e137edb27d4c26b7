// Latency of a barrier and of an 8-byte sum reduction over all PEs: gshmem (nvshmem_barrier_all,
// nvshmem_long_sum_reduce on NVSHMEM_TEAM_WORLD), or, built with GSHMEM_BENCH_MPI, MPI (MPI_Barrier,
// MPI_Allreduce of one long on MPI_COMM_WORLD): the same loop, so that bench/net_collectives.py
// compares the two on one path. Host memory: run gshmem with GSHMEM_BACKEND=cpu.
//
//   coll_latency [-n iterations] [-w warm-up iterations]
// Every PE times its own calls (a steady clock around the -n calls after -w untimed ones, all PEs
// starting together after a barrier); rank 0 prints, per operation, the mean over its calls and the
// slowest rank's mean:
//   <library> <operation> <ranks> mean_us <mean> max_rank_mean_us <max>
// The reduction's result is checked on every rank (the sum of rank + 1 over the ranks, changing each
// call): a wrong result ends the program with status 1.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef GSHMEM_BENCH_MPI
#include <mpi.h>
#else
#include <nvshmem.h>
#endif

namespace {

#ifdef GSHMEM_BENCH_MPI
const char* kLibrary = "mpi";
int g_rank = 0, g_size = 1;
void start(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
}
void stop() { MPI_Finalize(); }
int rank() { return g_rank; }
int size() { return g_size; }
void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
long* g_src = nullptr;
long* g_dst = nullptr;
void prepare_reduce() {
  g_src = new long[1];
  g_dst = new long[1];
}
void reduce() { MPI_Allreduce(g_src, g_dst, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); }
// Gathers every rank's mean at rank 0: the largest.
double slowest(double mine) {
  double max = 0;
  MPI_Reduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return max;
}
#else
const char* kLibrary = "gshmem";
void start(int*, char***) { nvshmem_init(); }
void stop() { nvshmem_finalize(); }
int rank() { return nvshmem_my_pe(); }
int size() { return nvshmem_n_pes(); }
void barrier() { nvshmem_barrier_all(); }
long* g_src = nullptr;
long* g_dst = nullptr;
void prepare_reduce() {
  g_src = static_cast<long*>(nvshmem_malloc(sizeof(long)));
  g_dst = static_cast<long*>(nvshmem_malloc(sizeof(long)));
}
void reduce() { nvshmem_long_sum_reduce(NVSHMEM_TEAM_WORLD, g_dst, g_src, 1); }
double slowest(double mine) {
  auto* means = static_cast<double*>(nvshmem_malloc(sizeof(double) * static_cast<size_t>(size())));
  auto* all = static_cast<double*>(nvshmem_malloc(sizeof(double) * static_cast<size_t>(size())));
  means[0] = mine;
  nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, all, means, sizeof(double));
  double max = 0;
  for (int i = 0; i < size(); ++i) max = all[i] > max ? all[i] : max;
  nvshmem_free(all);
  nvshmem_free(means);
  return max;
}
#endif

template <class F>
double mean_us(int warm, int iters, F&& call) {
  for (int i = 0; i < warm; ++i) call(i);
  barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) call(warm + i);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}

void report(const char* op, double mine) {
  const double max = slowest(mine);
  if (rank() == 0) {
    std::printf("%s %s %d mean_us %.2f max_rank_mean_us %.2f\n", kLibrary, op, size(), mine, max);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int iters = 500, warm = 50;
  start(&argc, &argv);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "-n")) iters = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "-w")) warm = std::atoi(argv[i + 1]);
  }
  if (iters < 1 || warm < 0) {
    std::fprintf(stderr, "usage: coll_latency [-n iterations >= 1] [-w warm-up >= 0]\n");
    return 2;
  }
  report("barrier", mean_us(warm, iters, [](int) { barrier(); }));
  prepare_reduce();
  const int n = size();
  bool wrong = false;
  const double red = mean_us(warm, iters, [&](int call) {
    g_src[0] = static_cast<long>(rank() + 1) * (call + 1);
    reduce();
    if (g_dst[0] != static_cast<long>(n) * (n + 1) / 2 * (call + 1)) wrong = true;
  });
  if (wrong) {
    std::fprintf(stderr, "coll_latency: rank %d: a reduction gave a wrong sum\n", rank());
    return 1;
  }
  report("reduce_long_sum_8B", red);
  stop();
  return 0;
}
