// Merging copies for the copy engines (see copy_merge.h).
#include "transport/copy_merge.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace gshmem {
namespace {

// A point where a chain ends: the next piece must start there in both address spaces.
struct End {
  uint64_t dst, src;
  bool operator==(const End& o) const { return dst == o.dst && src == o.src; }
};
struct EndHash {
  size_t operator()(const End& e) const { return std::hash<uint64_t>()(e.dst * 0x9e3779b97f4a7c15ull ^ e.src); }
};

}  // namespace

std::vector<CopyChain> merge_copies(std::vector<CopyRange> copies) {
  copies.erase(std::remove_if(copies.begin(), copies.end(), [](const CopyRange& c) { return c.bytes == 0; }),
               copies.end());
  // In destination order, every copy that can come before another in a chain (it ends where the
  // other starts, so it starts lower) is placed before that one is looked at.
  std::sort(copies.begin(), copies.end());
  std::vector<CopyChain> chains;
  // The chains still open at each end point; equal copies continue different chains.
  std::unordered_map<End, std::vector<size_t>, EndHash> open;
  for (const CopyRange& c : copies) {
    size_t k;
    auto it = open.find(End{c.dst, c.src});
    if (it != open.end()) {
      k = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) open.erase(it);
      chains[k].merged.bytes += c.bytes;
    } else {
      k = chains.size();
      chains.push_back(CopyChain{c, {}});
    }
    chains[k].pieces.push_back(c);
    open[End{c.dst + c.bytes, c.src + c.bytes}].push_back(k);
  }
  return chains;
}

}  // namespace gshmem
