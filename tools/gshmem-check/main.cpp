// gshmem-check: the main job. Says what the job is (version, PEs, launcher, backend, transport
// between the PEs), has every PE report, measures the bandwidth of host-initiated puts from PE 0 to
// PE 1 across sizes, checks the data every PE received, and exits 0 only if all of it was right.
// It uses only the NVSHMEM API and gshmem_describe, so it works on both backends:
//   gshmrun -n 2 gshmem-check [-b MIN] [-e MAX] [-n ITERS]
#include <nvshmem.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gshmem/describe.h"
#include "gshmem/version.h"

namespace {

constexpr size_t kLine = 512;  // bytes of a PE's report line

struct Options {
  size_t min_size = 8;
  size_t max_size = 64 << 20;
  int iters = 100;  // at most; large sizes use fewer (kBytesPerSize)
};
constexpr size_t kBytesPerSize = size_t{1} << 30;

bool parse_size(const char* text, size_t* out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text) return false;
  size_t mult = 1;
  if (*end == 'K' || *end == 'k') mult = size_t{1} << 10;
  if (*end == 'M' || *end == 'm') mult = size_t{1} << 20;
  if (*end == 'G' || *end == 'g') mult = size_t{1} << 30;
  if (mult != 1) ++end;
  if (*end != '\0' || v == 0) return false;
  *out = static_cast<size_t>(v) * mult;
  return true;
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if ((a == "-b" || a == "-e") && v && parse_size(v, a == "-b" ? &o->min_size : &o->max_size)) {
      ++i;
    } else if (a == "-n" && v && std::atoi(v) > 0) {
      o->iters = std::atoi(v);
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: gshmrun -n 2 gshmem-check [-b MIN] [-e MAX] [-n ITERS]\n"
                   "  -b, -e  smallest and largest transfer (default 8 and 64M; K, M, G suffixes)\n"
                   "  -n      iterations per size (default 100; fewer for sizes above 10 MiB)\n");
      return false;
    }
  }
  return o->min_size <= o->max_size;
}

std::string describe(gshmem_describe_item_t item, int pe = 0) {
  char buf[kLine] = "";
  return gshmem_describe(item, pe, buf, sizeof buf) < 0 ? std::string("?") : std::string(buf);
}

// How PE `me` reaches the others, grouped: "PE 1: shared memory; PEs 2, 3: none".
std::string routes(int me, int npes, bool with_reasons) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int pe = 0; pe < npes; ++pe) {
    if (pe == me) continue;
    std::string route = describe(GSHMEM_DESCRIBE_ROUTE, pe);
    if (with_reasons) route += " (" + describe(GSHMEM_DESCRIBE_ROUTE_REASON, pe) + ")";
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == route; });
    if (g == groups.end()) {
      groups.push_back({route, {pe}});
    } else {
      g->second.push_back(pe);
    }
  }
  std::string text;
  for (const auto& g : groups) {
    std::string pes;
    for (size_t i = 0; i < g.second.size() && i < 8; ++i) pes += (i ? ", " : "") + std::to_string(g.second[i]);
    if (g.second.size() > 8) pes += ", ... (" + std::to_string(g.second.size()) + " PEs)";
    text += (text.empty() ? "" : "; ") + std::string(g.second.size() == 1 ? "PE " : "PEs ") + pes + ": " + g.first;
  }
  return text.empty() ? "no other PE" : text;
}

// Byte i of the pattern PE `pe` sends.
unsigned char pattern(int pe, size_t i) { return static_cast<unsigned char>((i * 131 + pe * 29 + 7) & 0xff); }

}  // namespace

int main(int argc, char** argv) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  Options opt;
  if (!parse_args(argc, argv, &opt)) {
    nvshmem_finalize();
    return 2;
  }

  // Every PE writes its report line into PE 0's copy of `lines`; PE 0 prints them in order.
  char* lines = static_cast<char*>(nvshmem_calloc(static_cast<size_t>(npes), kLine));
  if (me == 0) {
    std::printf("gshmem %s (NVSHMEM %d.%d.%d API)\n", GSHMEM_VERSION_STRING, GSHMEM_NVSHMEM_API_MAJOR,
                GSHMEM_NVSHMEM_API_MINOR, GSHMEM_NVSHMEM_API_PATCH);
    std::printf("PEs:       %d, started by %s\n", npes, describe(GSHMEM_DESCRIBE_STARTED_BY).c_str());
    std::printf("backend:   %s (%s)\n", describe(GSHMEM_DESCRIBE_BACKEND).c_str(),
                describe(GSHMEM_DESCRIBE_BACKEND_REASON).c_str());
    std::printf("transport: from PE 0 to %s\n", routes(0, npes, true).c_str());
  }
  char mine[kLine];
  std::snprintf(mine, sizeof mine, "PE %d of %d on %s: heap in %s; reaches %s", me, npes,
                describe(GSHMEM_DESCRIBE_HOST).c_str(), describe(GSHMEM_DESCRIBE_MEMORY).c_str(),
                routes(me, npes, false).c_str());
  nvshmem_putmem(lines + static_cast<size_t>(me) * kLine, mine, kLine, 0);
  nvshmem_barrier_all();
  if (me == 0) {
    std::vector<char> all(static_cast<size_t>(npes) * kLine);
    nvshmem_getmem(all.data(), lines, all.size(), 0);
    for (int pe = 0; pe < npes; ++pe) {
      const char* line = all.data() + static_cast<size_t>(pe) * kLine;
      std::printf("%s\n", line[0] ? line : "(this PE did not report)");
    }
    std::fflush(stdout);
  }

  // Bandwidth: PE 0 puts to PE 1, -n non-blocking puts of one size and a quiet, timed on PE 0.
  const size_t bytes = opt.max_size;
  char* src = static_cast<char*>(nvshmem_malloc(bytes));
  char* dst = static_cast<char*>(nvshmem_malloc(bytes));
  std::vector<unsigned char> host(bytes);
  for (size_t i = 0; i < bytes; ++i) host[i] = pattern(me, i);
  nvshmem_putmem(src, host.data(), bytes, me);  // this PE's own copy: works wherever the heap lives
  nvshmem_barrier_all();
  if (npes >= 2) {
    if (me == 0) {
      std::printf("#put bandwidth, PE 0 to PE 1 (nvshmem_putmem_nbi from the host, then nvshmem_quiet)\n");
      std::printf("%-12s  %-12s  %-10s\n", "size(B)", "iterations", "BW(GB/sec)");
      for (size_t size = opt.min_size; size <= opt.max_size; size *= 2) {
        const int iters = static_cast<int>(std::max<size_t>(1, std::min<size_t>(opt.iters, kBytesPerSize / size)));
        nvshmem_putmem_nbi(dst, src, size, 1);  // warm-up
        nvshmem_quiet();
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < iters; ++k) nvshmem_putmem_nbi(dst, src, size, 1);
        nvshmem_quiet();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-12zu  %-12d  %-10.6f\n", size, iters,
                    s > 0 ? static_cast<double>(size) * iters / (s * 1e9) : 0.0);
        std::fflush(stdout);
        if (size > opt.max_size / 2) break;  // the next doubling would overflow past the last size
      }
    }
    nvshmem_barrier_all();
  }

  // Every PE puts its whole pattern to the next PE, then checks what it received from the previous.
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  nvshmem_putmem(dst, src, bytes, next);
  nvshmem_barrier_all();
  std::fill(host.begin(), host.end(), 0);
  nvshmem_getmem(host.data(), dst, bytes, me);
  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i) wrong += host[i] != pattern(prev, i);
  int* verdicts = static_cast<int*>(nvshmem_calloc(static_cast<size_t>(npes), sizeof(int)));
  const int verdict = wrong == 0 ? 1 : -1;
  nvshmem_int_p(verdicts + me, verdict, 0);
  nvshmem_barrier_all();
  int bad = 0;
  if (me == 0) {
    std::vector<int> all(static_cast<size_t>(npes));
    nvshmem_getmem(all.data(), verdicts, all.size() * sizeof(int), 0);
    std::string failed;
    for (int pe = 0; pe < npes; ++pe) {
      if (all[pe] != 1) failed += (failed.empty() ? "" : ", ") + std::to_string(pe);
    }
    bad = failed.empty() ? 0 : 1;
    if (bad) {
      std::printf("check: FAILED: PEs %s received wrong data from the PE before them\n", failed.c_str());
    } else {
      std::printf("check: passed: each of the %d PEs received %zu bytes from the PE before it, all correct\n", npes,
                  bytes);
    }
    std::fflush(stdout);
  }
  if (wrong) std::fprintf(stderr, "PE %d: %zu of %zu bytes from PE %d were wrong\n", me, wrong, bytes, prev);
  nvshmem_free(verdicts);
  nvshmem_free(dst);
  nvshmem_free(src);
  nvshmem_free(lines);
  nvshmem_finalize();
  return bad || wrong ? 1 : 0;
}
