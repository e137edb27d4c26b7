// Merging the copies that kernels hand to the copy engines (see proxy.h): the engines move one
// large copy much faster than many small ones, and _nbi copies may be issued in any order until the
// next quiet.
//
// Contract of merge_copies: every input copy of one or more bytes is in exactly one chain; a chain's
// pieces continue one another on both sides (piece k + 1 starts where piece k ends, in the
// destination and in the source), and its merged copy spans them all. Copies of zero bytes are
// dropped. Among copies that overlap (a kernel that puts the same buffer again before a quiet), each
// chain takes one of every run of equal copies, so that a loop that puts one buffer in shares,
// iteration after iteration, becomes one chain per iteration instead of one copy per share.
#pragma once

#include <cstdint>
#include <vector>

namespace gshmem {

struct CopyRange {
  uint64_t dst = 0, src = 0, bytes = 0;
  bool operator==(const CopyRange& o) const { return dst == o.dst && src == o.src && bytes == o.bytes; }
  // Destination first, then source, then size.
  bool operator<(const CopyRange& o) const {
    return dst != o.dst ? dst < o.dst : src != o.src ? src < o.src : bytes < o.bytes;
  }
};

struct CopyChain {
  CopyRange merged;               // the whole chain as one copy
  std::vector<CopyRange> pieces;  // the input copies it joins, in address order
};

std::vector<CopyChain> merge_copies(std::vector<CopyRange> copies);

}  // namespace gshmem
