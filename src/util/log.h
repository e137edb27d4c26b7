// The one logging system of gshmem.
//
// NVSHMEM_DEBUG sets the level (NONE, VERSION, WARN, INFO, TRACE; ABORT = WARN plus abort() on a
// fatal error), NVSHMEM_DEBUG_SUBSYS filters INFO and TRACE messages by subsystem, and
// NVSHMEM_DEBUG_FILE sends the log to a file (%h host, %p pid). Errors are always written. The
// level is tested before any formatting, so disabled messages cost one branch.
#pragma once

#include <cstdint>
#include <string>

#include "util/status.h"

namespace gshmem {

struct Config;

namespace log {

enum class Level : int { None = 0, Version = 1, Warn = 2, Info = 3, Trace = 4 };

enum Subsys : uint32_t {
  kInit = 1u << 0,
  kBootstrap = 1u << 1,
  kMem = 1u << 2,
  kTransport = 1u << 3,
  kP2P = 1u << 4,
  kProxy = 1u << 5,
  kColl = 1u << 6,
  kTeam = 1u << 7,
  kTopo = 1u << 8,
  kUtil = 1u << 9,
};

// Current level and subsystem mask; read without locking on every log call.
extern Level g_level;
extern uint32_t g_subsys_mask;

// Applies NVSHMEM_DEBUG, NVSHMEM_DEBUG_SUBSYS and NVSHMEM_DEBUG_FILE. Safe to call again.
void configure(const Config& config);
// Records this process's PE so that every line names it.
void set_pe(int pe);
// Whether errors abort() (NVSHMEM_DEBUG=ABORT) instead of exiting.
bool abort_on_error();

inline bool enabled(Level level, uint32_t subsys) {
  if (static_cast<int>(level) > static_cast<int>(g_level)) return false;
  return level <= Level::Warn || (g_subsys_mask & subsys) != 0;
}

// Writes one line: "[gshmem host:pid PE n] LEVEL SUBSYS: message".
void write(const char* level_name, uint32_t subsys, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// Writes an ERROR line (always shown), and keeps it as the calling thread's last error.
void error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// The message of this thread's last error() ("" before any).
const char* last_error();

// Called by fatal() to end the job; the core installs one that tells the launcher. The default
// exits the process with status 1.
using FatalHook = void (*)(int exit_code);
void set_fatal_hook(FatalHook hook);

// Writes an ERROR line and ends the job (exit status 1, or abort() under NVSHMEM_DEBUG=ABORT).
// For misuse that cannot be reported through a return value (a void API call with an invalid PE).
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// A caller's misuse, found before the call had any effect (an invalid PE, a pointer outside the heap, a
// count that overflows, a call before init): ends the job as fatal() does, or, once set_misuse_throws(true)
// (a binding for another language), throws gshmem::UsageError with the message and writes nothing.
[[noreturn]] void misuse(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void set_misuse_throws(bool throws);
bool misuse_throws();

// Limits a message that outsiders can provoke (a stranger connecting to a port, stray datagrams)
// to the first few, then one line every `period_s` that counts the ones left out. Not thread-safe:
// one instance per thread that logs it.
class RateLimit {
 public:
  explicit RateLimit(int first = 5, double period_s = 10) : first_(first), period_s_(period_s) {}
  // Whether to log this occurrence; *suppressed receives how many were left out since the last one
  // logged (a line that reports them is due when it is > 0).
  bool allow(uint64_t* suppressed);

 private:
  int first_;
  double period_s_;
  uint64_t seen_ = 0;
  uint64_t dropped_ = 0;
  double last_ = 0;
};

// printf-style formatting into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace log
}  // namespace gshmem

#define GSHMEM_LOG(level, level_name, subsys, ...)                                  \
  do {                                                                              \
    if (::gshmem::log::enabled(::gshmem::log::Level::level, ::gshmem::log::subsys)) \
      ::gshmem::log::write(level_name, ::gshmem::log::subsys, __VA_ARGS__);         \
  } while (0)
#define GSHMEM_WARN(subsys, ...) GSHMEM_LOG(Warn, "WARN", subsys, __VA_ARGS__)
#define GSHMEM_INFO(subsys, ...) GSHMEM_LOG(Info, "INFO", subsys, __VA_ARGS__)
#ifdef GSHMEM_ENABLE_TRACE
#define GSHMEM_TRACE(subsys, ...) GSHMEM_LOG(Trace, "TRACE", subsys, __VA_ARGS__)
#else
#define GSHMEM_TRACE(subsys, ...) \
  do {                            \
  } while (0)
#endif
#define GSHMEM_ERROR(...) ::gshmem::log::error(__VA_ARGS__)
