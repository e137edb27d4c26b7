#include "core/local_buffers.h"

#include <iterator>

#include "heap/symmetric_heap.h"
#include "util/log.h"

namespace gshmem {

Status LocalBuffers::add(void* addr, size_t bytes, const char* api) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(addr);
  if (addr == nullptr || bytes == 0 || start + bytes < start) {
    GSHMEM_ERROR("%s: %p (%zu bytes) is not a buffer: give its start and a size above 0", api, addr, bytes);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (heap_.in_reservation(addr) || heap_.contains(addr, 1)) {
    GSHMEM_ERROR(
        "%s: %p lies in the symmetric heap, which every operation takes already: register only other "
        "memory",
        api, addr);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto next = buffers_.lower_bound(start);
  const bool overlaps_next = next != buffers_.end() && next->first < start + bytes;
  const bool overlaps_prev = next != buffers_.begin() && std::prev(next)->first + std::prev(next)->second > start;
  if (overlaps_next || overlaps_prev) {
    const auto& other = overlaps_next ? *next : *std::prev(next);
    GSHMEM_ERROR("%s: %p (%zu bytes) overlaps the registered buffer at %p (%zu bytes): unregister it first", api, addr,
                 bytes, reinterpret_cast<void*>(other.first), other.second);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  buffers_.emplace(start, bytes);
  return GSHMEM_SUCCESS;
}

Status LocalBuffers::remove(void* addr, const char* api) {
  std::lock_guard<std::mutex> lock(mu_);
  if (buffers_.erase(reinterpret_cast<uintptr_t>(addr)) == 0) {
    GSHMEM_ERROR("%s: %p does not start a registered buffer (give the address that nvshmemx_buffer_register got)", api,
                 addr);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

void LocalBuffers::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  buffers_.clear();
}

size_t LocalBuffers::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return buffers_.size();
}

}  // namespace gshmem
