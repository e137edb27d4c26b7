// Helpers of the team and collective tests (mp_team, mp_coll, mp_reduce): member lists, a ring of
// destination areas, and the runner of a test's named parts.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "mp_test.h"

namespace mp {

using Members = std::vector<int>;  // the world PE of each member, in the team's numbering

inline int index_of(const Members& m, int pe) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] == pe) return static_cast<int>(i);
  }
  return -1;
}

inline Members world_members(int npes) {
  Members m(static_cast<size_t>(npes));
  std::iota(m.begin(), m.end(), 0);
  return m;
}

inline Members strided(const Members& parent, int start, int stride, int size) {
  Members m;
  for (int i = 0; i < size; ++i) m.push_back(parent[static_cast<size_t>(start + i * stride)]);
  return m;
}

inline std::string describe(const Members& m) {
  std::string s = "{";
  for (size_t i = 0; i < m.size() && i < 16; ++i) s += (i ? "," : "") + std::to_string(m[i]);
  if (m.size() > 16) s += ",...";
  return s + "}";
}

// Destination areas of symmetric memory: each call takes the next area, the same on every PE, with
// `guard` bytes after it. When the ring is full all PEs meet (every PE is done reading its peers'
// areas), refill it with `fill` and meet again (no PE writes into an area another still fills).
class DestRing {
 public:
  void init(size_t cap, unsigned char fill, size_t guard) {
    cap_ = cap;
    fill_ = fill;
    guard_ = guard;
    base_ = static_cast<char*>(nvshmem_align(4096, cap));
    MP_CHECK(base_, "nvshmem_align of %zu bytes failed", cap);
    used_ = cap;
    reset();
  }
  void done() { nvshmem_free(base_); }
  // The same sequence of sizes on every PE.
  char* next(size_t bytes) {
    const size_t need = (bytes + guard_ + 63) / 64 * 64;
    MP_CHECK(need <= cap_, "a destination of %zu bytes does not fit the ring of %zu", bytes, cap_);
    if (pos_ + need > cap_) reset();
    char* p = base_ + pos_;
    pos_ += need;
    used_ = std::max(used_, pos_);
    return p;
  }

 private:
  void reset() {
    nvshmem_barrier_all();
    std::memset(base_, fill_, used_);
    used_ = 0;
    pos_ = 0;
    nvshmem_barrier_all();
  }
  char* base_ = nullptr;
  unsigned char fill_ = 0;
  size_t cap_ = 0, pos_ = 0, used_ = 0, guard_ = 0;
};

// A part of a test program, run by name (argv[1]) or with all the others ("all").
struct Part {
  const char* name;
  void (*run)();
};

// Runs the parts that `what` names, each followed by a barrier (PE 0 prints each part's time when
// all run); *secs gets the time of all. False, after a usage line naming `program`'s parts, when
// `what` names none.
template <size_t N>
bool run_parts(const char* program, const std::string& what, const Part (&parts)[N], double* secs) {
  bool known = what == "all";
  const auto t0 = std::chrono::steady_clock::now();
  for (const Part& part : parts) {
    if (what != "all" && what != part.name) continue;
    known = true;
    const auto p0 = std::chrono::steady_clock::now();
    part.run();
    nvshmem_barrier_all();
    if (nvshmem_my_pe() == 0 && what == "all") {
      std::printf("  %s: %.2f s\n", part.name,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count());
    }
  }
  *secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!known && nvshmem_my_pe() == 0) {
    std::string names;
    for (const Part& part : parts) names += (names.empty() ? "" : "|") + std::string(part.name);
    std::fprintf(stderr, "usage: %s [%s]\n", program, names.c_str());
  }
  return known;
}

}  // namespace mp
