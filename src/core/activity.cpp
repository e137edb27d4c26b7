#include "core/activity.h"

#include <atomic>

#include "util/log.h"

namespace gshmem {
namespace activity {
namespace {

std::atomic<const char*> g_api{nullptr};
std::atomic<const char*> g_detail{""};
std::atomic<uint64_t> g_n{0};

}  // namespace

Scope::Scope(const char* api, const char* detail, uint64_t n)
    : api_(g_api.load(std::memory_order_relaxed)),
      detail_(g_detail.load(std::memory_order_relaxed)),
      n_(g_n.load(std::memory_order_relaxed)) {
  g_n.store(n, std::memory_order_relaxed);
  g_detail.store(detail, std::memory_order_relaxed);
  g_api.store(api, std::memory_order_relaxed);
}

Scope::~Scope() {
  g_api.store(api_, std::memory_order_relaxed);
  g_detail.store(detail_, std::memory_order_relaxed);
  g_n.store(n_, std::memory_order_relaxed);
}

std::string describe() {
  const char* api = g_api.load(std::memory_order_relaxed);
  if (!api) return "not in a gshmem call";
  const char* detail = g_detail.load(std::memory_order_relaxed);
  std::string s = std::string("in ") + api;
  if (detail && *detail) {
    s += " (";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
    s += log::format(detail, static_cast<unsigned long long>(g_n.load(std::memory_order_relaxed)));
#pragma GCC diagnostic pop
    s += ")";
  }
  return s;
}

}  // namespace activity
}  // namespace gshmem
