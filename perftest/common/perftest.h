// Common code of the perftests: command-line options, result tables, start-up and CUDA error checks.
//
// The perftests are NVSHMEM programs: they include only <nvshmem.h>, <nvshmemx.h>, CUDA and standard
// headers, so the same sources build against gshmem and against NVSHMEM. Their flags, defaults and
// output formats are those of NVSHMEM's perftests, so that one command line runs against both
// libraries and the outputs can be compared line by line.
//
// CUDA: PERFTEST_HAVE_CUDA=1 enables every CUDA call. It is on in CUDA translation units (nvcc,
// __CUDACC__) and, for host programs, when the build defines it (CMake does so when the CUDA toolkit
// is found). Without it the host programs make no CUDA call at all and behave as on a machine with
// no GPU. perftest.cpp itself makes no CUDA call, so one build of it serves every program.
#ifndef PERFTEST_COMMON_PERFTEST_H_
#define PERFTEST_COMMON_PERFTEST_H_

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if !defined(PERFTEST_HAVE_CUDA) && defined(__CUDACC__)
#define PERFTEST_HAVE_CUDA 1
#endif
#ifndef PERFTEST_HAVE_CUDA
#define PERFTEST_HAVE_CUDA 0
#endif

#if PERFTEST_HAVE_CUDA
#include <cuda_runtime.h>

// Checks the cudaError_t of `call`; on failure prints file:line, the call and the error string, and
// ends the process with status 1 (the launcher then stops the other PEs).
#define CUDA_CHECK(call)                                                                    \
  do {                                                                                      \
    cudaError_t perftest_err_ = (call);                                                     \
    if (perftest_err_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: CUDA error in %s: %s (%s)\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(perftest_err_), cudaGetErrorName(perftest_err_));     \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

// After a kernel launch: checks the launch error (configuration, resources) without waiting for
// the kernel.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

// Collective: `bytes` of zeroed symmetric memory (at least 16 bytes); ends the job, naming `program`,
// when the heap cannot give it.
static inline void *perftest_sym_alloc(const char *program, size_t bytes) {
  if (bytes < 16) bytes = 16;
  void *p = nvshmem_malloc(bytes);
  if (p == nullptr) {
    std::fprintf(stderr, "%s: PE %d: nvshmem_malloc of %zu bytes failed\n", program, nvshmem_my_pe(), bytes);
    nvshmem_global_exit(1);
  }
  CUDA_CHECK(cudaMemset(p, 0, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  return p;
}

// Collective: every PE says whether it found errors, through `verdict` (symmetric int[n_pes], from
// perftest_sym_alloc); returns the number of PEs that found some, on every PE.
static inline int perftest_failed_pes(int *verdict, bool failed) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  for (int pe = 0; pe < npes; ++pe) nvshmem_int_p(verdict + me, failed ? 1 : 0, pe);
  nvshmem_barrier_all();  // includes quiet: every value has arrived
  std::vector<int> flags(static_cast<size_t>(npes));
  CUDA_CHECK(cudaMemcpy(flags.data(), verdict, flags.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int sum = 0;
  for (int f : flags) sum += f;
  nvshmem_barrier_all();  // nobody writes the slots again before everyone read them
  return sum;
}
#endif

// Ends this PE with `status` after finalizing (every PE takes the same path, so none waits for it).
[[noreturn]] static inline void perftest_exit(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  nvshmem_finalize();
  std::exit(status);
}

// Thread-group scope of a device-initiated operation (-s). kAll means "the test's default" for tests
// that measure one scope, and "every scope" for tests that measure all of them.
enum class PerftestScope { kAll, kThread, kWarp, kBlock };
// Direction of a point-to-point transfer (--dir): write = put, read = get.
enum class PerftestDir { kWrite, kRead };
// Who issues host-side operations (--issue): the CPU directly, or ordered on a CUDA stream.
enum class PerftestIssue { kOnStream, kHost };

// The parsed command line. Defaults are NVSHMEM's (shown in brackets by -h).
struct PerftestOptions {
  size_t min_size = 4;                             // -b, bytes
  size_t max_size = 4u << 20;                      // -e, bytes
  size_t step = 2;                                 // -f, multiplicative step between sizes
  int iters = 10;                                  // -n, timed iterations
  int warmup_iters = 5;                            // -w, untimed iterations before the timed ones
  int ctas = 32;                                   // -c, CTAs of device kernels
  int threads_per_cta = 256;                       // -t, threads per CTA of device kernels
  std::string datatype = "int";                    // -d
  size_t datatype_size = sizeof(int);              // bytes of one element of `datatype`
  std::string reduce_op = "sum";                   // -o
  PerftestScope scope = PerftestScope::kAll;       // -s
  int stride = 1;                                  // -i
  std::string atomic_op = "inc";                   // -a
  bool bidir = false;                              // --bidir
  PerftestDir dir = PerftestDir::kWrite;           // --dir
  PerftestIssue issue = PerftestIssue::kOnStream;  // --issue
  bool use_graph = false;                          // --cudagraph
  bool report_msgrate = false;                     // --report_msgrate: bandwidth tests also print MMPS
  int use_smem = 0;                                // --use_smem 0|1 (NVSHMEM 3.7): CTAs lend shared memory
};

// Starts the library the way NVSHMEM's perftests do: nvshmem_init(); then, if CUDA reports at least
// one device, selects device (PE number within the node) % (device count); then nvshmem_barrier_all()
// (which binds the GPU). Returns whether a GPU was selected; false without CUDA support or when
// cudaGetDeviceCount fails or reports none (the CPU backend is used then), and false under gshmem's
// GSHMEM_BACKEND=cpu, whose heap is host memory even where a GPU is present (the tests then keep
// their local buffers in host memory too; NVSHMEM does not know the variable).
// Internal linkage on purpose: each translation unit compiles it with its own PERFTEST_HAVE_CUDA.
static inline bool perftest_init() {
  nvshmem_init();
  bool have_gpu = false;
#if PERFTEST_HAVE_CUDA
  const char *backend = std::getenv("GSHMEM_BACKEND");
  const bool cpu_backend = backend != nullptr && std::strcmp(backend, "cpu") == 0;
  int ndev = 0;
  if (!cpu_backend && cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) {
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % ndev));
    have_gpu = true;
  } else {
    (void)cudaGetLastError();  // "no device" / "no driver" is not an error here
  }
#endif
  nvshmem_barrier_all();
  return have_gpu;
}

// Parses argv (after perftest_init: only PE 0 prints). On success PE 0 echoes the options. On -h
// every PE finalizes and exits 0 after PE 0 printed the usage; on an invalid argument likewise with
// status 1 and a message. Every PE parses the same argv, so all of them take the same path.
void perftest_parse_args(int argc, char **argv, PerftestOptions *opts);

// Prints the options the way NVSHMEM echoes them (PE 0 only); perftest_parse_args calls it.
void perftest_print_options(const PerftestOptions &opts);

// Ends the job with a message (from PE 0) and status 1 unless it has exactly `npes` PEs.
void perftest_require_npes(int npes, const char *program);

// The message sizes: min_size, min_size*step, ... up to and including max_size.
std::vector<size_t> perftest_sizes(const PerftestOptions &opts);

// Name of a scope as printed in the tables: "thread", "warp", "block" or "all".
const char *perftest_scope_name(PerftestScope scope);

// Prints a result table on PE 0 (other PEs print nothing): "#<job>", a header
// "size(B)  scope  <var_name> (<units>)", then one row per entry, skipping entries whose size or
// value is 0. With NVSHMEM_MACHINE_READABLE_OUTPUT=1 it prints instead the job name and one line
// "&&&& PERF <job>___<subjob>___size__<bytes>___<var_name> <value> <plus_minus><units>" per entry,
// where plus_minus is '+' when higher values are better and '-' when lower ones are.
void print_table_basic(const char *job_name, const char *subjob_name, const char *var_name, const char *units,
                       char plus_minus, const size_t *sizes, const double *values, int num_entries);

// Prints a latency table of NVSHMEM's "v1" layout on PE 0 (the device collectives' table, also used
// by shmem_atomic_ping_pong_latency): "#<job>", a header
// "size(B)  count  type  [redop]  scope  latency(us)  algbw(GB/s)  busbw(GB/s)", then one row per
// entry (skipping size or latency 0), where count = size / elem_size, algbw = size / latency in
// GB/s (decimal) and busbw = algbw * busbw_factor. The redop column is printed only when `redop` is
// not null. With NVSHMEM_MACHINE_READABLE_OUTPUT=1 it prints instead the job name and, per entry,
// the "&&&& PERF" lines of latency (us, lower is better), algbw and busbw (GB/s, higher is better)
// with the subjob "<type>[-<redop>]-<scope>".
void print_table_v1(const char *job_name, const char *type_name, const char *redop, const char *scope, size_t elem_size,
                    double busbw_factor, const size_t *sizes, const double *latency_us, int num_entries);

// Prints a latency table of NVSHMEM's "v2" layout on PE 0 (the host on-stream collectives' table):
// "#<job>", a header "size(B)  count  type  [redop]  latency(us)  min_lat(us)  max_lat(us)  algbw(GB/s)
// busbw(GB/s)", then one row per entry (skipping size or average latency 0), where count = size /
// elem_size, algbw = size / average latency in GB/s (decimal) and busbw = algbw * busbw_factor. The
// redop column is printed only when `redop` is not null. With NVSHMEM_MACHINE_READABLE_OUTPUT=1 it
// prints instead the job name and, per entry, the "&&&& PERF" lines of latency, min_lat and max_lat
// (us, lower is better), algbw and busbw (GB/s, higher is better) with the subjob "<type>[-<redop>]".
void print_table_v2(const char *job_name, const char *type_name, const char *redop, size_t elem_size,
                    double busbw_factor, const size_t *sizes, const double *avg_us, const double *min_us,
                    const double *max_us, int num_entries);

// The factor from algorithm bandwidth to bus bandwidth of a collective job among `npes` PEs, by the
// job's name: 2(n-1)/n for a reduction (a name with "reduction"), (n-1)/n for alltoall, fcollect and
// reducescatter, 1 for a broadcast ("bcast", "broadcast"). For another name PE 0 prints a note and
// the factor is 1.
double perftest_busbw_factor(const char *job_name, int npes);

// Average, smallest and largest of the non-zero samples (all 0 when there is none).
void perftest_latency_stats(const std::vector<double> &samples, double *avg, double *min, double *max);

// ---- the collectives that move data (device/coll/data_coll.cuh, host/coll/host_coll.h) ----------

// The collective a data-moving perftest measures.
enum PerftestColl : int { kBcast, kFcollect, kAlltoall, kReduce, kReducescatter };

constexpr bool perftest_is_reduction(int kind) { return kind == kReduce || kind == kReducescatter; }

// The shape of a collective of nelems elements per PE among npes PEs, in blocks of nelems elements:
// its source holds one block per PE for alltoall and reducescatter (PE p gets block p), one block
// otherwise; its destination one block per PE for fcollect and alltoall, one block otherwise; and
// NVSHMEM's collective size (the tables' size column, in bytes) counts one block per PE for
// fcollect, alltoall and reducescatter, one block for broadcast and reduce.
constexpr size_t perftest_src_blocks(int kind, int npes) {
  return kind == kAlltoall || kind == kReducescatter ? static_cast<size_t>(npes) : 1;
}
constexpr size_t perftest_dest_blocks(int kind, int npes) {
  return kind == kFcollect || kind == kAlltoall ? static_cast<size_t>(npes) : 1;
}
constexpr size_t perftest_size_blocks(int kind, int npes) {
  return kind == kBcast || kind == kReduce ? 1 : static_cast<size_t>(npes);
}

// The reduction operations of -o, in the order of its help text.
enum class PerftestReduceOp { kMin, kMax, kSum, kProd, kAnd, kOr, kXor };

// The operation -o names (perftest_parse_args admits only the names of PerftestReduceOp).
PerftestReduceOp perftest_reduce_op(const PerftestOptions &opts);

// The name of `op` as the API spells it: "min", "max", "sum", "prod", "and", "or", "xor".
const char *perftest_reduce_op_name(PerftestReduceOp op);

// Element i of PE pe's source in a reduction of `op` among npes PEs. The values are small
// non-negative integers chosen per operation so that the reduction, in any order of its partial
// results, is exact in every -d type (half and bfloat16 included) for up to 256 PEs: every partial
// sum stays within 256, a product is a power of two of at most 2^14, minima and maxima lie in
// 1 .. 256, and bitwise values use the low 15 bits (and/or/xor are defined for integer types only).
double perftest_reduce_source(PerftestReduceOp op, int pe, int npes, size_t i);

// The reduction of `op` over element i of the sources of PEs 0 .. npes-1.
double perftest_reduce_expected(PerftestReduceOp op, int npes, size_t i);

#endif  // PERFTEST_COMMON_PERFTEST_H_
