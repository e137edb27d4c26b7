// Symmetric memory: allocation, release and reallocation (collective over all PEs), nvshmem_ptr, and
// the registration of the program's own GPU buffers.
#include "core/memory.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/activity.h"
#include "core/runtime.h"
#include "transport/manager.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {

namespace {
bool is_power_of_two(size_t v) { return v && !(v & (v - 1)); }
}  // namespace

SymmetricHeap& SymmetricMemory::heap() const { return rt_.mutable_heap(); }
Bootstrap& SymmetricMemory::boot() const { return rt_.bootstrap(); }

Status SymmetricMemory::check_symmetric(const char* api, uint64_t a, uint64_t b,
                                        const std::function<std::string(uint64_t, uint64_t)>& describe) {
  struct Pair {
    uint64_t a, b;
  };
  Pair mine{a, b};
  std::vector<Pair> all(static_cast<size_t>(boot().size()));
  GSHMEM_CHECK(boot().allgather(&mine, all.data(), sizeof mine));
  for (int pe = 1; pe < boot().size(); ++pe) {
    if (all[pe].a != all[0].a || all[pe].b != all[0].b) {
      std::string detail;
      for (int q = 0; q < boot().size() && q < 8; ++q) {
        detail += log::format("%sPE %d: %s", q ? ", " : "", q, describe(all[q].a, all[q].b).c_str());
      }
      GSHMEM_ERROR("%s is collective and must be called with the same arguments on every PE, but %s", api,
                   detail.c_str());
      return GSHMEM_ERROR_SYMMETRY;
    }
  }
  return GSHMEM_SUCCESS;
}

Status SymmetricMemory::allocate(size_t size, size_t align, bool zero, void** out, const char* api) {
  *out = nullptr;
  if (rt_.init_state() == kNotInitialized) rt_.not_ready(api);
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(rt_.ensure_bound(api));
  std::lock_guard<std::mutex> lock(mu_);
  GSHMEM_CHECK(check_symmetric(api, size, align, [](uint64_t sz, uint64_t al) {
    return log::format("%llu bytes aligned to %llu", static_cast<unsigned long long>(sz),
                       static_cast<unsigned long long>(al));
  }));
  if (size == 0) return GSHMEM_SUCCESS;
  if (!is_power_of_two(align)) {
    GSHMEM_ERROR("%s: alignment %zu is not a power of two", api, align);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  uint64_t off = 0;
  GSHMEM_CHECK(heap().allocate(size, align, &off, api));
  if (zero) GSHMEM_CHECK(heap().provider().zero(heap().base() + off, size));
  GSHMEM_TRACE(kMem, "%s(%zu) -> offset %llu", api, size, static_cast<unsigned long long>(off));
  // Every PE has its block before anyone writes into a peer's.
  GSHMEM_CHECK(rt_.world_barrier(api));
  *out = heap().base() + off;
  return GSHMEM_SUCCESS;
}

Status SymmetricMemory::release(void* p, const char* api) {
  if (!p) return GSHMEM_SUCCESS;
  if (rt_.init_state() == kNotInitialized) rt_.not_ready(api);
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(rt_.ensure_bound(api));
  // No PE may still use the block when it is freed.
  GSHMEM_CHECK(rt_.world_barrier(api));
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t kOutside = ~0ull;
  const bool inside = heap().contains(p, 1);
  const uint64_t off = inside ? static_cast<uint64_t>(static_cast<char*>(p) - heap().base()) : kOutside;
  // Agree first, so that a bad pointer on one PE fails the call on every PE instead of hanging.
  GSHMEM_CHECK(check_symmetric(api, off, 0, [&](uint64_t o, uint64_t) {
    return o == kOutside ? std::string("a pointer outside the heap")
                         : log::format("heap offset %llu", static_cast<unsigned long long>(o));
  }));
  if (!inside) {
    GSHMEM_ERROR(
        "%s: %p is not inside the symmetric heap [%p, %p): only pointers returned by nvshmem_malloc, "
        "nvshmem_calloc or nvshmem_align can be freed",
        api, p, static_cast<void*>(heap().base()), static_cast<void*>(heap().base() + heap().mapped()));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!ok(heap().free(off))) {
    uint64_t start = 0, size = 0;
    if (heap().allocator().find(off, &start, &size)) {
      GSHMEM_ERROR("%s: %p points into the symmetric allocation at %p (%s) but not to its start; nothing was freed",
                   api, p, static_cast<void*>(heap().base() + start), format_size(size).c_str());
    } else if (heap().regions().containing(off, 1)) {
      GSHMEM_ERROR(
          "%s: %p lies in a buffer registered with nvshmemx_buffer_register_symmetric, which "
          "nvshmemx_buffer_unregister_symmetric releases; nothing was freed",
          api, p);
    } else {
      GSHMEM_ERROR("%s: %p is not a live symmetric allocation (freed twice?); nothing was freed", api, p);
    }
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

Status SymmetricMemory::reallocate(void* p, size_t size, void** out, const char* api) {
  *out = nullptr;
  if (!p) return allocate(size, 1, false, out, api);
  if (size == 0) return release(p, api);
  if (rt_.init_state() == kNotInitialized) rt_.not_ready(api);
  uint64_t start = 0, old_size = 0;
  const bool live =
      heap().contains(p, 1) &&
      heap().allocator().find(static_cast<uint64_t>(static_cast<char*>(p) - heap().base()), &start, &old_size) &&
      heap().base() + start == p;
  // Agree first, so that a bad pointer on one PE fails the call on every PE instead of hanging.
  GSHMEM_CHECK(check_symmetric(api, live ? start : ~0ull, size, [](uint64_t o, uint64_t sz) {
    return o == ~0ull ? std::string("a pointer that is not a live symmetric allocation")
                      : log::format("heap offset %llu, new size %llu", static_cast<unsigned long long>(o),
                                    static_cast<unsigned long long>(sz));
  }));
  if (!live) {
    GSHMEM_ERROR("%s: %p is not the start of a live symmetric allocation; nothing was changed", api, p);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  void* fresh = nullptr;
  GSHMEM_CHECK(allocate(size, 1, false, &fresh, api));
  // Both blocks are this PE's own memory: a local copy, which the transport does on either backend.
  GSHMEM_CHECK(
      rt_.transports().memory().copy(fresh, p, std::min<uint64_t>(old_size, size), Completion::kBlocking, nullptr));
  GSHMEM_CHECK(release(p, api));
  *out = fresh;
  return GSHMEM_SUCCESS;
}

void* SymmetricMemory::ptr(const void* p, int pe) const {
  if (!rt_.initialized() || pe < 0 || pe >= rt_.n_pes() || !heap().contains(p, 1)) return nullptr;
  // Only a heap mapped here has an address in this process.
  char* base = rt_.transports().path(pe).base();
  return base ? base + (static_cast<const char*>(p) - heap().base()) : nullptr;
}

Status SymmetricMemory::register_buffer(void* buf, size_t size, int flags, void** out, const char* api) {
  *out = nullptr;
  if (rt_.init_state() == kNotInitialized) rt_.not_ready(api);
  if (rt_.backend() == Backend::kCpu) {
    GSHMEM_ERROR(
        "%s: this job runs on the CPU backend (%s), whose symmetric heap is host shared memory: there is no GPU "
        "memory to register. Allocate symmetric memory with nvshmem_malloc instead",
        api, rt_.backend_reason().c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(rt_.ensure_bound(api));
  std::lock_guard<std::mutex> lock(mu_);
  GSHMEM_CHECK(
      check_symmetric(api, size, static_cast<uint64_t>(static_cast<int64_t>(flags)), [](uint64_t sz, uint64_t fl) {
        return log::format("%llu bytes, flags %d", static_cast<unsigned long long>(sz), static_cast<int>(fl));
      }));
  // The arguments agree, so every PE fails these checks alike.
  if (flags != 0) {
    GSHMEM_ERROR("%s: flags must be 0 (the argument is reserved), not %d", api, flags);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (size == 0) {
    GSHMEM_ERROR("%s: the size is 0: there is nothing to register", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  uint64_t off = 0;
  // Every PE has mapped every node peer's buffer when this returns: peers may access the alias at once.
  GSHMEM_CHECK(heap().register_buffer(buf, size, api, &off));
  *out = heap().base() + off;
  return GSHMEM_SUCCESS;
}

Status SymmetricMemory::unregister_buffer(void* alias, size_t size, const char* api) {
  if (rt_.init_state() == kNotInitialized) rt_.not_ready(api);
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(rt_.ensure_bound(api));
  // No PE may still access the buffer through its alias when it is unmapped.
  GSHMEM_CHECK(rt_.world_barrier(api));
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t kNone = ~0ull;
  const char* c = static_cast<const char*>(alias);
  const bool in_window = c >= heap().base() && c < heap().base() + heap().slot();
  const RegisteredRegions::Region* r =
      in_window ? heap().regions().at(static_cast<uint64_t>(c - heap().base())) : nullptr;
  const uint64_t off = r ? r->offset : kNone;
  // Agree first, so that a bad pointer on one PE fails the call on every PE instead of hanging.
  GSHMEM_CHECK(check_symmetric(api, off, size, [&](uint64_t o, uint64_t sz) {
    return o == kNone ? log::format("a pointer that is not a registered buffer, %llu bytes",
                                    static_cast<unsigned long long>(sz))
                      : log::format("the registered buffer at heap offset %llu, %llu bytes",
                                    static_cast<unsigned long long>(o), static_cast<unsigned long long>(sz));
  }));
  if (!r) {
    GSHMEM_ERROR(
        "%s: %p is not an address that nvshmemx_buffer_register_symmetric returned (or it was unregistered "
        "already); nothing was unregistered",
        api, alias);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (r->size != size) {
    GSHMEM_ERROR("%s: the buffer at %p was registered with %llu bytes, not %zu; nothing was unregistered", api, alias,
                 static_cast<unsigned long long>(r->size), size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return heap().unregister_buffer(off);
}

}  // namespace gshmem
