// The deterministic allocator behind the symmetric heap.
//
// It manages offsets in [0, capacity). Given the same sequence of calls it returns the same
// offsets on every PE, which is what makes the heap symmetric: no PE has to ask another where an
// object lives. First fit by address; freed blocks are merged with free neighbours at once.
// Not thread-safe: the heap serialises calls (they are collective anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace gshmem {

class HeapAllocator {
 public:
  // Every block starts at a multiple of `min_align` and its size is rounded up to it.
  explicit HeapAllocator(uint64_t min_align = 512) : min_align_(min_align) {}

  // Appends [capacity(), capacity() + bytes) to the managed range.
  void grow(uint64_t bytes);

  // Finds a block of `size` bytes aligned to `align` (a power of two). Returns false when no free
  // block fits; growth_needed() then says by how much the range must grow.
  bool allocate(uint64_t size, uint64_t align, uint64_t* offset);

  // Bytes to append at the end of the range so that allocate(size, align) succeeds.
  uint64_t growth_needed(uint64_t size, uint64_t align) const;

  // Frees the block that starts at `offset`. Returns false, changing nothing, when `offset` is not
  // the start of a live block.
  bool free(uint64_t offset, uint64_t* size = nullptr);

  // Size of the live block that contains `offset` and its start; false if none does.
  bool find(uint64_t offset, uint64_t* start, uint64_t* size) const;

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }
  uint64_t largest_free() const;
  size_t live_blocks() const { return live_.size(); }
  uint64_t min_align() const { return min_align_; }
  // Free ranges as (offset, size), in address order.
  std::vector<std::pair<uint64_t, uint64_t>> free_ranges() const {
    return std::vector<std::pair<uint64_t, uint64_t>>(free_.begin(), free_.end());
  }

 private:
  uint64_t round_size(uint64_t size) const;
  void insert_free(uint64_t offset, uint64_t size);

  uint64_t min_align_;
  uint64_t capacity_ = 0;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> size
  std::map<uint64_t, uint64_t> live_;  // offset -> size
};

}  // namespace gshmem
