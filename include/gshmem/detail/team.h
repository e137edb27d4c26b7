// A team as every part of gshmem sees it: the host library, kernels, and the CPU backend's host
// algorithms. Plain C++ (no CUDA headers), so that the host library fills it and device code reads it.
//
// Memory of a team, per member: one *sync area* in the member's own symmetric heap, whose size grows
// with the team (sync_area_bytes), allocated when the team is made, without any step of the other PEs
// (the area's heap offset differs between members, so each member keeps every member's offset). The
// area holds, in this order (all offsets from the area's start):
//   flags[size]    uint64: slot k holds the last barrier number member k reached (written by member k)
//   seq            uint64: the number of this member's barriers on the team so far
//   sync_of[size]  uint64: heap offset of member k's sync area
//   members[size]  int32:  world PE of member k (teams that are not strided; rounded up to 8 bytes)
//   exchange[2][size] ExchangeRecord: what the members tell each other when a team is split from this
//                  one (two buffers used in turn, so that a split never overwrites what a member may
//                  still read of the one before)
//   ll_calls       uint64: the number of this member's collectives on the team that used packets
//   packets[2][size][kLLPackets] uint64: flag-in-data packets (ll_algo.h) that member k stored here
//                  for the small collectives, in two buffers used in turn
//   scratch        TeamSlot::scratch_bytes (16-byte aligned; 0 unless the GPU backend reaches PEs through
//                  the network): where the members put their sources for a kernel's reduction across the
//                  network (reduce_algo.h, staged_reduce), one slot per member
// Kernels find a team by its id in DeviceState::teams (a TeamSlot per id).
#ifndef GSHMEM_DETAIL_TEAM_H_
#define GSHMEM_DETAIL_TEAM_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GSHMEMI_TEAM_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_TEAM_FN inline
#endif

namespace gshmem {
namespace detail {

struct TeamSlot {
  int32_t size;             // members; 0 when no team has this id
  int32_t my_index;         // this PE's index in the team
  int32_t start;            // world PE of member i is start + i * stride ...
  int32_t stride;           // ... unless `members` is set
  const int32_t* members;   // [size] world PEs in team order, or nullptr for a strided team
  const uint64_t* sync_of;  // [size] heap offset of each member's sync area (in this PE's area)
  uint64_t sync;            // heap offset of this PE's sync area
  uint64_t ll_period;       // packet collectives between two resets of the packet buffers (ll_algo.h)
  uint32_t ll_max_bytes;    // the largest message per member sent in packets (at most kLLBytes; 0: never)
  uint32_t scratch_bytes;   // bytes of the scratch at the end of each member's sync area (the same on all)
  uint64_t reserved;

  // World PE of member i (0 <= i < size).
  GSHMEMI_TEAM_FN int pe(int i) const { return members ? members[i] : start + i * stride; }
  // Index of world PE `world` in the team, or -1.
  GSHMEMI_TEAM_FN int index_of(int world) const {
    if (members) {
      for (int i = 0; i < size; ++i) {
        if (members[i] == world) return i;
      }
      return -1;
    }
    const int d = world - start;
    if (stride == 0) return (d == 0 && size > 0) ? 0 : -1;
    if (d % stride != 0) return -1;
    const int i = d / stride;
    return i >= 0 && i < size ? i : -1;
  }
};
static_assert(sizeof(TeamSlot) == 64, "TeamSlot is 64 bytes");

// What a member tells the others when a team is split from this one (32 bytes).
struct ExchangeRecord {
  int32_t serial;   // the split's number on the parent + 1 (0: not written)
  int32_t a, b, c;  // the arguments (split_strided: start, stride, size; split_2d: xrange, 0, 0)
  uint64_t sync1;   // heap offset of the member's sync area in the first new team (~0: not a member)
  uint64_t sync2;   // ... in the second (split_2d's y team)
};
static_assert(sizeof(ExchangeRecord) == 32, "ExchangeRecord is 32 bytes");

constexpr uint64_t kNoArea = ~0ull;

// The data bytes that one member sends to another in one flag-in-data collective (ll_algo.h): 4 in
// each 8-byte packet.
constexpr uint64_t kLLBytes = 64;
constexpr uint64_t kLLPackets = kLLBytes / 4;

// Offsets within a sync area of a team of `n` members.
struct SyncLayout {
  uint64_t flags, seq, sync_of, members, exchange, ll_calls, packets, scratch;
  uint64_t bytes;  // up to the scratch (the area takes bytes + TeamSlot::scratch_bytes)
  GSHMEMI_TEAM_FN explicit SyncLayout(int n) {
    const uint64_t un = static_cast<uint64_t>(n);
    flags = 0;
    seq = un * 8;
    sync_of = seq + 8;
    members = sync_of + un * 8;
    exchange = members + ((un * 4 + 7) & ~7ull);
    ll_calls = exchange + 2 * un * sizeof(ExchangeRecord);
    packets = ll_calls + 8;
    scratch = (packets + 2 * un * kLLPackets * 8 + 15) & ~15ull;
    bytes = scratch;
  }
};

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_TEAM_FN

#endif  // GSHMEM_DETAIL_TEAM_H_
