// A reduction on a team with members across the network, on the host: the two steps that replace the
// one-pass algorithm where the members' sources cannot be loaded (a network put or get is not a load).
// Every member's source (its block, for reduce-scatter) is brought into one host buffer, a row per
// member in team order; then the rows are combined in team order (combine_by_value: the same elements,
// in the same order, as the one-pass algorithm, so the results are bit-identical to it). Both backends'
// engines use it: the CPU backend combines into dest, the GPU backend into a host buffer it then copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/collectives.h"

namespace gshmem {

class GatheredSources {
 public:
  // For reduction `c` (reduce or reducescatter) of this PE, member `my_index` of a team of `size`
  // members, whose heap starts at `heap_base` (c.src lies in it).
  GatheredSources(const CollCall& c, int size, int my_index, const char* heap_base);

  // The heap offset of what each member contributes (its source, or its block of it), and its size.
  uint64_t from() const { return from_; }
  size_t bytes() const { return bytes_; }
  // Where member j's contribution goes (16-byte aligned, `bytes()` long).
  char* row(int j) { return data() + stride_ * static_cast<size_t>(j); }

  // Combines the rows into `out` (host memory of bytes() bytes). False for a (type, op) pair that has no
  // reduction.
  bool combine(void* out);

 private:
  char* data() { return reinterpret_cast<char*>(buffer_.data()); }

  CollCall call_;
  int size_, my_index_;
  uint64_t from_;
  size_t bytes_, stride_;
  std::vector<detail::Vec16<uint64_t>> buffer_;
};

}  // namespace gshmem
