// Where buffers of the program's own (nvshmemx_buffer_register_symmetric) lie in a symmetric heap's
// window: at the top of the window, growing down, while the heap's own memory grows up from the
// bottom; the heap may grow up to the lowest region. Offsets only: the heap maps and unmaps.
//
// Registration is collective and every PE makes the same calls in the same order on windows of
// the same size, so every PE places a buffer at the same offset: the alias address is symmetric
// without any exchange of addresses. Not thread-safe: the heap serialises calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace gshmem {

class RegisteredRegions {
 public:
  struct Region {
    uint64_t offset;  // start in the window
    uint64_t span;    // bytes of the window it takes: at least the largest PE's mapping
    uint64_t size;    // bytes the program registered; [offset, offset + size) is mapped in every window
  };

  // The highest offset, a multiple of `align`, at which `span` bytes lie inside [floor, top) and
  // overlap no region; false if there is none.
  bool place(uint64_t span, uint64_t align, uint64_t floor, uint64_t top, uint64_t* offset) const;
  // Records a region that place() found.
  void add(const Region& r) { regions_[r.offset] = r; }
  // Forgets the region that starts at `offset`; false (nothing changed) when none does.
  bool remove(uint64_t offset) { return regions_.erase(offset) == 1; }
  // The region that starts at `offset`, or nullptr.
  const Region* at(uint64_t offset) const;
  // The region whose registered bytes hold all of [offset, offset + n), or nullptr.
  const Region* containing(uint64_t offset, uint64_t n) const;
  // The lowest offset a region takes, or `top` when there is none: the heap may grow up to it.
  uint64_t lowest(uint64_t top) const { return regions_.empty() ? top : regions_.begin()->first; }
  // Bytes of the window the regions take, together.
  uint64_t span_bytes() const;
  size_t count() const { return regions_.size(); }
  bool empty() const { return regions_.empty(); }

 private:
  std::map<uint64_t, Region> regions_;  // by offset
};

}  // namespace gshmem
