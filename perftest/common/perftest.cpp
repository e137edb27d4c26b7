// Common code of the perftests: option parsing and result tables. No CUDA calls here (see perftest.h).
#include "perftest.h"

#include <getopt.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace {

bool is_pe0() { return nvshmem_my_pe() == 0; }

// Ends every PE with `status`. All PEs run the same parser on the same argv, so all of them get here
// together and the collective nvshmem_finalize() does not wait for a PE that went elsewhere.
[[noreturn]] void finish(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  nvshmem_finalize();
  std::exit(status);
}

[[noreturn]] void usage_error(const char *fmt, const char *arg) {
  if (is_pe0()) {
    std::fprintf(stderr, "error: ");
    std::fprintf(stderr, fmt, arg);
    std::fprintf(stderr, " (-h lists the options)\n");
  }
  finish(1);
}

void print_usage(const char *prog) {
  std::printf(
      "Usage: %s [options]\n"
      "  -b, --min_size SIZE         smallest message size in bytes [4]\n"
      "  -e, --max_size SIZE         largest message size in bytes [4M]\n"
      "                              (SIZE accepts the suffixes k, m, g: powers of 1024)\n"
      "  -f, --step N                factor between consecutive sizes [2]\n"
      "  -n, --iters N               timed iterations [10]\n"
      "  -w, --warmup_iters N        warm-up iterations [5]\n"
      "  -c, --ctas N                CTAs of device kernels [32]\n"
      "  -t, --threads_per_cta N     threads per CTA of device kernels [256]\n"
      "  -d, --datatype T            int, long, longlong, ulonglong, size, ptrdiff, float, double, uint,\n"
      "                              int32, uint32, int64, uint64, fp16, bf16 [int]\n"
      "  -o, --reduce_op OP          min, max, sum, prod, and, or, xor [sum]\n"
      "  -s, --scope S               thread, warp, block, all [all] (a number is ignored, as NVSHMEM does)\n"
      "  -i, --stride N              stride between elements [1]\n"
      "  -a, --atomic_op OP          inc, fetch_inc, set, add, fetch_add, and, fetch_and, or, fetch_or,\n"
      "                              xor, fetch_xor, swap, compare_swap [inc]\n"
      "      --bidir                 transfer in both directions at once\n"
      "      --dir read|write        get (read) or put (write) [write]\n"
      "      --issue on_stream|host  host operations ordered on a CUDA stream or issued by the CPU [on_stream]\n"
      "      --cudagraph             capture the on-stream operations in a CUDA graph\n"
      "      --report_msgrate        bandwidth tests also print the message rate (MMPS)\n"
      "      --use_smem 0|1          device bandwidth tests: each CTA lends the library shared memory\n"
      "                              (nvshmemx_give_smem) for the TMA path (NVSHMEM_TMA_POLICY) [0]\n"
      "  -h, --help                  this text\n"
      "Each test uses only the options that apply to it.\n",
      prog);
}

// A size in bytes: a decimal number, optionally followed by k, m or g (powers of 1024, any case).
bool parse_size(const char *s, size_t *out) {
  if (s == nullptr || *s == '\0' || *s == '-') return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || end == s) return false;
  unsigned shift = 0;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    default:
      return false;
  }
  if (*end != '\0' && end[1] != '\0') return false;
  if (shift != 0 && v > (UINT64_MAX >> shift)) return false;
  *out = static_cast<size_t>(v << shift);
  return true;
}

// A decimal integer in [lo, hi].
bool parse_int(const char *s, long lo, long hi, int *out) {
  if (s == nullptr || *s == '\0') return false;
  errno = 0;
  char *end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

struct DatatypeInfo {
  const char *name;
  size_t size;
};

// Sizes of the -d types as NVSHMEM's typed APIs define them (fp16/bf16: 2 bytes).
const DatatypeInfo kDatatypes[] = {
    {"int", sizeof(int)},
    {"long", sizeof(long)},
    {"longlong", sizeof(long long)},
    {"ulonglong", sizeof(unsigned long long)},
    {"size", sizeof(size_t)},
    {"ptrdiff", sizeof(ptrdiff_t)},
    {"float", sizeof(float)},
    {"double", sizeof(double)},
    {"uint", sizeof(unsigned int)},
    {"int32", 4},
    {"uint32", 4},
    {"int64", 8},
    {"uint64", 8},
    {"fp16", 2},
    {"bf16", 2},
};

const char *const kReduceOps[] = {"min", "max", "sum", "prod", "and", "or", "xor"};
const char *const kAtomicOps[] = {"inc", "fetch_inc", "set", "add",       "fetch_add", "and",         "fetch_and",
                                  "or",  "fetch_or",  "xor", "fetch_xor", "swap",      "compare_swap"};

template <size_t N>
bool one_of(const char *s, const char *const (&names)[N]) {
  for (const char *n : names) {
    if (std::strcmp(s, n) == 0) return true;
  }
  return false;
}

const char *dir_name(PerftestDir d) { return d == PerftestDir::kWrite ? "write" : "read"; }
const char *issue_name(PerftestIssue i) { return i == PerftestIssue::kHost ? "host" : "on_stream"; }

// Long-only options get values above any character.
enum LongOnly { kOptBidir = 256, kOptDir, kOptIssue, kOptCudagraph, kOptReportMsgrate, kOptUseSmem };

bool all_digits(const char *s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

}  // namespace

const char *perftest_scope_name(PerftestScope scope) {
  switch (scope) {
    case PerftestScope::kThread:
      return "thread";
    case PerftestScope::kWarp:
      return "warp";
    case PerftestScope::kBlock:
      return "block";
    default:
      return "all";
  }
}

void perftest_parse_args(int argc, char **argv, PerftestOptions *opts) {
  static const struct option kLongOptions[] = {
      {"min_size", required_argument, nullptr, 'b'},
      {"max_size", required_argument, nullptr, 'e'},
      {"step", required_argument, nullptr, 'f'},
      {"iters", required_argument, nullptr, 'n'},
      {"warmup_iters", required_argument, nullptr, 'w'},
      {"ctas", required_argument, nullptr, 'c'},
      {"threads_per_cta", required_argument, nullptr, 't'},
      {"datatype", required_argument, nullptr, 'd'},
      {"reduce_op", required_argument, nullptr, 'o'},
      {"scope", required_argument, nullptr, 's'},
      {"stride", required_argument, nullptr, 'i'},
      {"atomic_op", required_argument, nullptr, 'a'},
      {"bidir", no_argument, nullptr, kOptBidir},
      {"dir", required_argument, nullptr, kOptDir},
      {"issue", required_argument, nullptr, kOptIssue},
      {"cudagraph", no_argument, nullptr, kOptCudagraph},
      {"report_msgrate", no_argument, nullptr, kOptReportMsgrate},
      {"use_smem", required_argument, nullptr, kOptUseSmem},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  opterr = 0;  // errors are reported below, by PE 0 only
  int c;
  while ((c = getopt_long(argc, argv, ":b:e:f:n:w:c:t:d:o:s:i:a:h", kLongOptions, nullptr)) != -1) {
    switch (c) {
      case 'b':
        if (!parse_size(optarg, &opts->min_size) || opts->min_size == 0) usage_error("bad -b/--min_size '%s'", optarg);
        break;
      case 'e':
        if (!parse_size(optarg, &opts->max_size) || opts->max_size == 0) usage_error("bad -e/--max_size '%s'", optarg);
        break;
      case 'f': {
        size_t step = 0;
        if (!parse_size(optarg, &step) || step < 2) usage_error("bad -f/--step '%s' (an integer >= 2)", optarg);
        opts->step = step;
        break;
      }
      case 'n':
        if (!parse_int(optarg, 1, INT32_MAX, &opts->iters)) usage_error("bad -n/--iters '%s' (>= 1)", optarg);
        break;
      case 'w':
        if (!parse_int(optarg, 0, INT32_MAX, &opts->warmup_iters)) usage_error("bad -w/--warmup_iters '%s'", optarg);
        break;
      case 'c':
        if (!parse_int(optarg, 1, INT32_MAX, &opts->ctas)) usage_error("bad -c/--ctas '%s' (>= 1)", optarg);
        break;
      case 't':
        if (!parse_int(optarg, 1, 1024, &opts->threads_per_cta)) {
          usage_error("bad -t/--threads_per_cta '%s' (1 to 1024)", optarg);
        }
        break;
      case 'd': {
        bool found = false;
        for (const DatatypeInfo &d : kDatatypes) {
          if (std::strcmp(optarg, d.name) == 0) {
            opts->datatype = d.name;
            opts->datatype_size = d.size;
            found = true;
          }
        }
        if (!found) usage_error("unknown -d/--datatype '%s'", optarg);
        break;
      }
      case 'o':
        if (!one_of(optarg, kReduceOps)) usage_error("unknown -o/--reduce_op '%s'", optarg);
        opts->reduce_op = optarg;
        break;
      case 's':
        if (std::strcmp(optarg, "thread") == 0) {
          opts->scope = PerftestScope::kThread;
        } else if (std::strcmp(optarg, "warp") == 0) {
          opts->scope = PerftestScope::kWarp;
        } else if (std::strcmp(optarg, "block") == 0) {
          opts->scope = PerftestScope::kBlock;
        } else if (std::strcmp(optarg, "all") == 0) {
          opts->scope = PerftestScope::kAll;
        } else if (all_digits(optarg)) {
          // NVSHMEM's shmem_p_bw.args passes "-s 1", which NVSHMEM's parser ignores: so does this one.
          if (is_pe0()) std::printf("Note: -s %s is not a scope and is ignored\n", optarg);
        } else {
          usage_error("unknown -s/--scope '%s' (thread, warp, block or all)", optarg);
        }
        break;
      case 'i':
        if (!parse_int(optarg, 1, INT32_MAX, &opts->stride)) usage_error("bad -i/--stride '%s' (>= 1)", optarg);
        break;
      case 'a':
        if (!one_of(optarg, kAtomicOps)) usage_error("unknown -a/--atomic_op '%s'", optarg);
        opts->atomic_op = optarg;
        break;
      case kOptBidir:
        opts->bidir = true;
        break;
      case kOptDir:
        if (std::strcmp(optarg, "write") == 0) {
          opts->dir = PerftestDir::kWrite;
        } else if (std::strcmp(optarg, "read") == 0) {
          opts->dir = PerftestDir::kRead;
        } else {
          usage_error("unknown --dir '%s' (read or write)", optarg);
        }
        break;
      case kOptIssue:
        if (std::strcmp(optarg, "on_stream") == 0) {
          opts->issue = PerftestIssue::kOnStream;
        } else if (std::strcmp(optarg, "host") == 0) {
          opts->issue = PerftestIssue::kHost;
        } else {
          usage_error("unknown --issue '%s' (on_stream or host)", optarg);
        }
        break;
      case kOptCudagraph:
        opts->use_graph = true;
        break;
      case kOptReportMsgrate:
        opts->report_msgrate = true;
        break;
      case kOptUseSmem:
        if (!parse_int(optarg, 0, 1, &opts->use_smem)) usage_error("bad --use_smem '%s' (0 or 1)", optarg);
        break;
      case 'h':
        if (is_pe0()) print_usage(argv[0]);
        finish(0);
      case ':':
        usage_error("option '%s' needs a value", argv[optind - 1]);
      default:
        usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind < argc) {
    // NVSHMEM's shmem_atomic_ping_pong_latency.args names operations without -a (and NVSHMEM ignores
    // them): say how to choose one rather than measuring another in silence.
    if (one_of(argv[optind], kAtomicOps))
      usage_error("unexpected argument '%s' (to choose the atomic operation, use -a)", argv[optind]);
    usage_error("unexpected argument '%s'", argv[optind]);
  }
  if (opts->min_size > opts->max_size) usage_error("%s", "-b/--min_size is larger than -e/--max_size");
  perftest_print_options(*opts);
}

void perftest_print_options(const PerftestOptions &o) {
  if (!is_pe0()) return;
  std::printf("Runtime options after parsing command line arguments\n");
  std::printf(
      "min_size: %zu, max_size: %zu, step_factor: %zu, iterations: %d, warmup iterations: %d, number of ctas: %d, "
      "threads per cta: %d, stride: %d, datatype: %s, reduce_op: %s, threadgroup_scope: %s, atomic_op: %s, dir: %s, "
      "bidirectional: %d, putget_issue: %s, use_graph: %d\n",
      o.min_size, o.max_size, o.step, o.iters, o.warmup_iters, o.ctas, o.threads_per_cta, o.stride, o.datatype.c_str(),
      o.reduce_op.c_str(), perftest_scope_name(o.scope), o.atomic_op.c_str(), dir_name(o.dir), o.bidir ? 1 : 0,
      issue_name(o.issue), o.use_graph ? 1 : 0);
  std::printf("Note: above is the full list of options; any given test uses only a subset of them.\n");
  std::fflush(stdout);
}

void perftest_require_npes(int npes, const char *program) {
  int have = nvshmem_n_pes();
  if (have == npes) return;
  if (is_pe0()) {
    std::fprintf(stderr, "%s: this test needs exactly %d PEs, but the job has %d (start it with e.g. -n %d)\n", program,
                 npes, have, npes);
  }
  finish(1);
}

std::vector<size_t> perftest_sizes(const PerftestOptions &opts) {
  std::vector<size_t> sizes;
  for (size_t s = opts.min_size; s <= opts.max_size; s *= opts.step) {
    sizes.push_back(s);
    if (s > SIZE_MAX / opts.step) break;  // the next size would overflow
  }
  return sizes;
}

void print_table_basic(const char *job_name, const char *subjob_name, const char *var_name, const char *units,
                       char plus_minus, const size_t *sizes, const double *values, int num_entries) {
  if (!is_pe0()) return;
  const char *mro = std::getenv("NVSHMEM_MACHINE_READABLE_OUTPUT");
  if (mro != nullptr && std::atoi(mro) != 0) {
    std::printf("%s\n", job_name);
    for (int i = 0; i < num_entries; ++i) {
      if (sizes[i] == 0 || values[i] == 0.0) continue;
      std::printf("&&&& PERF %s___%s___size__%zu___%s %lf %c%s\n", job_name, subjob_name, sizes[i], var_name, values[i],
                  plus_minus, units);
    }
  } else {
    std::string column = std::string(var_name) + " (" + units + ")";
    std::printf("#%10s\n", job_name);
    std::printf("%-10s  %-8s  %-16s\n", "size(B)", "scope", column.c_str());
    for (int i = 0; i < num_entries; ++i) {
      if (sizes[i] == 0 || values[i] == 0.0) continue;
      std::printf("%-10lu  %-8s  %-16.6lf\n", static_cast<unsigned long>(sizes[i]), subjob_name, values[i]);
    }
  }
  std::fflush(stdout);
}

void print_table_v1(const char *job_name, const char *type_name, const char *redop, const char *scope, size_t elem_size,
                    double busbw_factor, const size_t *sizes, const double *latency_us, int num_entries) {
  if (!is_pe0()) return;
  const char *mro = std::getenv("NVSHMEM_MACHINE_READABLE_OUTPUT");
  if (mro != nullptr && std::atoi(mro) != 0) {
    std::string subjob = std::string(type_name) + (redop != nullptr ? std::string("-") + redop : "") + "-" + scope;
    const char *prefix = "&&&& PERF";
    std::printf("%s\n", job_name);
    for (int i = 0; i < num_entries; ++i) {
      if (sizes[i] == 0 || latency_us[i] == 0.0) continue;
      const double algbw = static_cast<double>(sizes[i]) / (latency_us[i] * 1e3);
      std::printf("%s %s___%s___size__%zu___latency %lf -us\n", prefix, job_name, subjob.c_str(), sizes[i],
                  latency_us[i]);
      std::printf("%s %s___%s___size__%zu___algbw %lf +GB/s\n", prefix, job_name, subjob.c_str(), sizes[i], algbw);
      std::printf("%s %s___%s___size__%zu___busbw %lf +GB/s\n", prefix, job_name, subjob.c_str(), sizes[i],
                  algbw * busbw_factor);
    }
  } else {
    std::printf("#%10s\n", job_name);
    std::printf("%-10s  %-8s  %-8s  ", "size(B)", "count", "type");
    if (redop != nullptr) std::printf("%-8s  ", "redop");
    std::printf("%-8s  %-16s  %-12s  %-12s\n", "scope", "latency(us)", "algbw(GB/s)", "busbw(GB/s)");
    for (int i = 0; i < num_entries; ++i) {
      if (sizes[i] == 0 || latency_us[i] == 0.0) continue;
      const double algbw = static_cast<double>(sizes[i]) / (latency_us[i] * 1e3);
      std::printf("%-10lu  %-8lu  %-8s  ", static_cast<unsigned long>(sizes[i]),
                  static_cast<unsigned long>(elem_size != 0 ? sizes[i] / elem_size : 0), type_name);
      if (redop != nullptr) std::printf("%-8s  ", redop);
      std::printf("%-8s  %-16.6lf  %-12.3lf  %-12.3lf\n", scope, latency_us[i], algbw, algbw * busbw_factor);
    }
  }
  std::fflush(stdout);
}

void print_table_v2(const char *job_name, const char *type_name, const char *redop, size_t elem_size,
                    double busbw_factor, const size_t *sizes, const double *avg_us, const double *min_us,
                    const double *max_us, int num_entries) {
  if (!is_pe0()) return;
  const char *mro = std::getenv("NVSHMEM_MACHINE_READABLE_OUTPUT");
  if (mro != nullptr && std::atoi(mro) != 0) {
    const std::string subjob = std::string(type_name) + (redop != nullptr ? std::string("-") + redop : "");
    const char *prefix = "&&&& PERF";
    std::printf("%s\n", job_name);
    for (int i = 0; i < num_entries; ++i) {
      if (sizes[i] == 0 || avg_us[i] == 0.0) continue;
      const double algbw = static_cast<double>(sizes[i]) / (avg_us[i] * 1e3);
      const char *sj = subjob.c_str();
      std::printf("%s %s___%s___size__%zu___latency %lf -us\n", prefix, job_name, sj, sizes[i], avg_us[i]);
      std::printf("%s %s___%s___size__%zu___min_lat %lf -us\n", prefix, job_name, sj, sizes[i], min_us[i]);
      std::printf("%s %s___%s___size__%zu___max_lat %lf -us\n", prefix, job_name, sj, sizes[i], max_us[i]);
      std::printf("%s %s___%s___size__%zu___algbw %lf +GB/s\n", prefix, job_name, sj, sizes[i], algbw);
      std::printf("%s %s___%s___size__%zu___busbw %lf +GB/s\n", prefix, job_name, sj, sizes[i], algbw * busbw_factor);
    }
  } else {
    std::printf("#%10s\n", job_name);
    std::printf("%-10s  %-8s  %-8s  ", "size(B)", "count", "type");
    if (redop != nullptr) std::printf("%-8s  ", "redop");
    std::printf("%-16s  %-16s  %-16s  %-12s  %-12s\n", "latency(us)", "min_lat(us)", "max_lat(us)", "algbw(GB/s)",
                "busbw(GB/s)");
    for (int i = 0; i < num_entries; ++i) {
      if (sizes[i] == 0 || avg_us[i] == 0.0) continue;
      const double algbw = static_cast<double>(sizes[i]) / (avg_us[i] * 1e3);
      std::printf("%-10.1lu  %-8lu  %-8s  ", static_cast<unsigned long>(sizes[i]),
                  static_cast<unsigned long>(elem_size != 0 ? sizes[i] / elem_size : 0), type_name);
      if (redop != nullptr) std::printf("%-8s  ", redop);
      std::printf("%-16.6lf  %-16.3lf  %-16.3lf  %-12.3lf  %-12.3lf\n", avg_us[i], min_us[i], max_us[i], algbw,
                  algbw * busbw_factor);
    }
  }
  std::fflush(stdout);
}

double perftest_busbw_factor(const char *job_name, int npes) {
  const double n = npes > 0 ? static_cast<double>(npes) : 1.0;
  const std::string job = job_name;
  const auto has = [&job](const char *part) { return job.find(part) != std::string::npos; };
  // reducescatter before reduction: its name contains "reduc" too, but it moves (n-1)/n.
  if (has("reducescatter") || has("alltoall") || has("fcollect")) return (n - 1.0) / n;
  if (has("reduction")) return 2.0 * (n - 1.0) / n;
  if (has("bcast") || has("broadcast")) return 1.0;
  if (is_pe0()) std::printf("Note: no bus bandwidth factor is known for job '%s': busbw = algbw\n", job_name);
  return 1.0;
}

void perftest_latency_stats(const std::vector<double> &samples, double *avg, double *min, double *max) {
  double sum = 0.0, lo = 0.0, hi = 0.0;
  size_t count = 0;
  for (double s : samples) {
    if (s == 0.0) continue;
    sum += s;
    lo = count == 0 || s < lo ? s : lo;
    hi = count == 0 || s > hi ? s : hi;
    ++count;
  }
  *avg = count != 0 ? sum / static_cast<double>(count) : 0.0;
  *min = lo;
  *max = hi;
}

PerftestReduceOp perftest_reduce_op(const PerftestOptions &opts) {
  // kReduceOps lists the names in the order of PerftestReduceOp.
  for (size_t i = 0; i < sizeof kReduceOps / sizeof kReduceOps[0]; ++i) {
    if (opts.reduce_op == kReduceOps[i]) return static_cast<PerftestReduceOp>(i);
  }
  return PerftestReduceOp::kSum;  // the default of -o; the parser admits no other name
}

const char *perftest_reduce_op_name(PerftestReduceOp op) { return kReduceOps[static_cast<int>(op)]; }

double perftest_reduce_source(PerftestReduceOp op, int pe, int npes, size_t i) {
  const size_t p = static_cast<size_t>(pe);
  switch (op) {
    case PerftestReduceOp::kSum: {
      // 1 .. 256/npes: the sum over all PEs (and every partial sum) is at most 256.
      const size_t top = npes > 0 && npes < 256 ? 256 / static_cast<size_t>(npes) : 1;
      return static_cast<double>((p * 131 + i) % top + 1);
    }
    case PerftestReduceOp::kProd:
      // 1 or 2, with a 2 from at most 14 PEs (those below 42, every third one per element).
      return (p + i) % 3 == 0 && pe < 42 ? 2.0 : 1.0;
    case PerftestReduceOp::kAnd:
      // All of the low 15 bits but one, which moves with the PE and the element.
      return static_cast<double>(0x7fffu & ~(1u << ((p + i) % 15)));
    case PerftestReduceOp::kOr:
      return static_cast<double>(1u << ((p * 3 + i) % 15));
    case PerftestReduceOp::kXor:
      return static_cast<double>(((p * 131 + i) & 0xff) + 1);
    default:  // kMin, kMax
      return static_cast<double>(((p * 131 + i * 7) & 0xff) + 1);
  }
}

double perftest_reduce_expected(PerftestReduceOp op, int npes, size_t i) {
  double acc = perftest_reduce_source(op, 0, npes, i);
  for (int pe = 1; pe < npes; ++pe) {
    const double v = perftest_reduce_source(op, pe, npes, i);
    const uint32_t a = static_cast<uint32_t>(acc), b = static_cast<uint32_t>(v);
    switch (op) {
      case PerftestReduceOp::kMin:
        acc = v < acc ? v : acc;
        break;
      case PerftestReduceOp::kMax:
        acc = v > acc ? v : acc;
        break;
      case PerftestReduceOp::kSum:
        acc += v;
        break;
      case PerftestReduceOp::kProd:
        acc *= v;
        break;
      case PerftestReduceOp::kAnd:
        acc = static_cast<double>(a & b);
        break;
      case PerftestReduceOp::kOr:
        acc = static_cast<double>(a | b);
        break;
      case PerftestReduceOp::kXor:
        acc = static_cast<double>(a ^ b);
        break;
    }
  }
  return acc;
}
