#include "util/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "gshmem/error.hpp"
#include "util/config.h"

namespace gshmem {
namespace log {

Level g_level = Level::Warn;
uint32_t g_subsys_mask = ~0u;

namespace {

std::mutex g_mutex;
FILE* g_file = nullptr;  // nullptr: stderr
int g_pe = -1;
bool g_abort = false;
FatalHook g_fatal_hook = nullptr;
std::atomic<bool> g_misuse_throws{false};
thread_local char t_last_error[4096] = "";
char g_host[64] = "";

const char* host_name() {
  if (g_host[0] == '\0') {
    if (gethostname(g_host, sizeof g_host - 1) != 0) std::strcpy(g_host, "?");
    g_host[sizeof g_host - 1] = '\0';
    if (char* dot = std::strchr(g_host, '.')) *dot = '\0';
  }
  return g_host;
}

uint32_t subsys_bit(const std::string& name) {
  if (name == "INIT") return kInit;
  if (name == "BOOTSTRAP") return kBootstrap;
  if (name == "MEM") return kMem;
  if (name == "TRANSPORT") return kTransport;
  if (name == "P2P") return kP2P;
  if (name == "PROXY") return kProxy;
  if (name == "COLL") return kColl;
  if (name == "TEAM") return kTeam;
  if (name == "TOPO") return kTopo;
  if (name == "UTIL") return kUtil;
  if (name == "ALL") return ~0u;
  return 0;
}

void vwrite(const char* level_name, const char* subsys_name, const char* fmt, va_list ap) {
  char body[4096];
  std::vsnprintf(body, sizeof body, fmt, ap);
  char line[4400];
  char pe[24] = "";
  if (g_pe >= 0) std::snprintf(pe, sizeof pe, " PE %d", g_pe);
  std::snprintf(line, sizeof line, "[gshmem %s:%d%s] %s%s%s: %s\n", host_name(), static_cast<int>(getpid()), pe,
                level_name, subsys_name[0] ? " " : "", subsys_name, body);
  std::lock_guard<std::mutex> lock(g_mutex);
  FILE* out = g_file ? g_file : stderr;
  std::fputs(line, out);
  std::fflush(out);
}

const char* subsys_name(uint32_t subsys) {
  switch (subsys) {
    case kInit:
      return "INIT";
    case kBootstrap:
      return "BOOTSTRAP";
    case kMem:
      return "MEM";
    case kTransport:
      return "TRANSPORT";
    case kP2P:
      return "P2P";
    case kProxy:
      return "PROXY";
    case kColl:
      return "COLL";
    case kTeam:
      return "TEAM";
    case kTopo:
      return "TOPO";
    case kUtil:
      return "UTIL";
    default:
      return "";
  }
}

}  // namespace

void configure(const Config& config) {
  const std::string& d = config.debug;
  g_abort = d == "ABORT";
  if (d == "NONE")
    g_level = Level::None;
  else if (d == "VERSION")
    g_level = Level::Version;
  else if (d == "INFO")
    g_level = Level::Info;
  else if (d == "TRACE")
    g_level = Level::Trace;
  else
    g_level = Level::Warn;

  uint32_t include = 0, exclude = 0;
  bool any_include = false;
  for (const std::string& item : config.debug_subsys) {
    if (!item.empty() && item[0] == '^') {
      exclude |= subsys_bit(item.substr(1));
    } else {
      include |= subsys_bit(item);
      any_include = true;
    }
  }
  g_subsys_mask = (any_include ? include : ~0u) & ~exclude;

  if (!config.debug_file.empty()) {
    std::string path;
    for (size_t i = 0; i < config.debug_file.size(); ++i) {
      char c = config.debug_file[i];
      if (c == '%' && i + 1 < config.debug_file.size()) {
        char n = config.debug_file[++i];
        if (n == 'h')
          path += host_name();
        else if (n == 'p')
          path += std::to_string(getpid());
        else
          path += std::string("%") + n;
      } else {
        path += c;
      }
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    FILE* f = std::fopen(path.c_str(), "a");
    if (f) {
      if (g_file) std::fclose(g_file);
      g_file = f;
    } else {
      std::fprintf(stderr, "[gshmem %s:%d] WARN: cannot open NVSHMEM_DEBUG_FILE '%s' (%s); logging to stderr\n",
                   host_name(), static_cast<int>(getpid()), path.c_str(), std::strerror(errno));
    }
  }
}

void set_pe(int pe) { g_pe = pe; }
bool abort_on_error() { return g_abort; }

void write(const char* level_name, uint32_t subsys, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwrite(level_name, subsys_name(subsys), fmt, ap);
  va_end(ap);
}

void error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwrite("ERROR", "", fmt, ap);
  va_end(ap);
  va_start(ap, fmt);
  std::vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
  va_end(ap);
  if (g_file) {
    // Errors always reach the terminal too, even when the log goes to a file.
    std::fprintf(stderr, "[gshmem %s:%d PE %d] ERROR: %s\n", host_name(), static_cast<int>(getpid()), g_pe,
                 t_last_error);
  }
}

void set_fatal_hook(FatalHook hook) { g_fatal_hook = hook; }

void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char body[4096];
  std::vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  error("%s", body);
  if (g_abort) std::abort();
  if (g_fatal_hook) g_fatal_hook(1);
  std::exit(1);
}

void misuse(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char body[4096];
  std::vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  if (g_misuse_throws.load(std::memory_order_relaxed)) throw UsageError(body);
  fatal("%s", body);
}

const char* last_error() { return t_last_error; }

void set_misuse_throws(bool throws) { g_misuse_throws.store(throws, std::memory_order_relaxed); }
bool misuse_throws() { return g_misuse_throws.load(std::memory_order_relaxed); }

std::string format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[4096];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

bool RateLimit::allow(uint64_t* suppressed) {
  const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  *suppressed = 0;
  if (seen_++ < static_cast<uint64_t>(first_)) {
    last_ = now;
    return true;
  }
  if (now - last_ < period_s_) {
    ++dropped_;
    return false;
  }
  *suppressed = dropped_;
  dropped_ = 0;
  last_ = now;
  return true;
}

}  // namespace log
}  // namespace gshmem
