#include "heap/allocator.h"

#include <algorithm>

namespace gshmem {
namespace {
inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

uint64_t HeapAllocator::round_size(uint64_t size) const { return align_up(size == 0 ? 1 : size, min_align_); }

void HeapAllocator::insert_free(uint64_t offset, uint64_t size) {
  if (size == 0) return;
  auto next = free_.lower_bound(offset);
  // Merge with the block that ends where this one starts.
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  // Merge with the block that starts where this one ends.
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    free_.erase(next);
  }
  free_[offset] = size;
}

void HeapAllocator::grow(uint64_t bytes) {
  uint64_t start = capacity_;
  capacity_ += bytes;
  insert_free(start, bytes);
}

// Sizes and alignments beyond this are refused, so that no sum below can wrap around.
constexpr uint64_t kLargest = 1ull << 60;

bool HeapAllocator::allocate(uint64_t size, uint64_t align, uint64_t* offset) {
  if (size > kLargest || align > kLargest) return false;
  align = std::max(align, min_align_);
  uint64_t need = round_size(size);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t block = it->first, block_size = it->second;
    uint64_t start = align_up(block, align);
    if (start + need > block + block_size) continue;
    free_.erase(it);
    if (start > block) free_[block] = start - block;  // cannot touch a neighbour: neighbours are live
    if (start + need < block + block_size) free_[start + need] = block + block_size - (start + need);
    live_[start] = need;
    used_ += need;
    *offset = start;
    return true;
  }
  return false;
}

uint64_t HeapAllocator::growth_needed(uint64_t size, uint64_t align) const {
  if (size > kLargest || align > kLargest) return kLargest;
  align = std::max(align, min_align_);
  uint64_t need = round_size(size);
  uint64_t start = align_up(capacity_, align);
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second == capacity_) start = align_up(last->first, align);
  }
  return start + need > capacity_ ? start + need - capacity_ : 0;
}

bool HeapAllocator::free(uint64_t offset, uint64_t* size) {
  auto it = live_.find(offset);
  if (it == live_.end()) return false;
  uint64_t s = it->second;
  live_.erase(it);
  used_ -= s;
  insert_free(offset, s);
  if (size) *size = s;
  return true;
}

bool HeapAllocator::find(uint64_t offset, uint64_t* start, uint64_t* size) const {
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) return false;
  --it;
  if (offset >= it->first + it->second) return false;
  *start = it->first;
  *size = it->second;
  return true;
}

uint64_t HeapAllocator::largest_free() const {
  uint64_t m = 0;
  for (const auto& kv : free_) m = std::max(m, kv.second);
  return m;
}

}  // namespace gshmem
