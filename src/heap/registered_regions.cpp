#include "heap/registered_regions.h"

#include <algorithm>

namespace gshmem {

bool RegisteredRegions::place(uint64_t span, uint64_t align, uint64_t floor, uint64_t top, uint64_t* offset) const {
  if (span == 0 || align == 0) return false;
  // Free gaps from the top down: [end of the region below, start of the one above).
  uint64_t end = top;
  auto fits = [&](uint64_t low) {
    if (end < span) return false;
    const uint64_t start = (end - span) / align * align;
    if (start < std::max(low, floor)) return false;
    *offset = start;
    return true;
  };
  for (auto it = regions_.rbegin(); it != regions_.rend(); ++it) {
    const Region& r = it->second;
    if (fits(r.offset + r.span)) return true;
    end = r.offset;
  }
  return fits(floor);
}

const RegisteredRegions::Region* RegisteredRegions::at(uint64_t offset) const {
  auto it = regions_.find(offset);
  return it == regions_.end() ? nullptr : &it->second;
}

const RegisteredRegions::Region* RegisteredRegions::containing(uint64_t offset, uint64_t n) const {
  auto it = regions_.upper_bound(offset);
  if (it == regions_.begin()) return nullptr;
  const Region& r = std::prev(it)->second;
  const uint64_t into = offset - r.offset;
  return into < r.size && n <= r.size - into ? &r : nullptr;
}

uint64_t RegisteredRegions::span_bytes() const {
  uint64_t total = 0;
  for (const auto& kv : regions_) total += kv.second.span;
  return total;
}

}  // namespace gshmem
