// The barrier algorithm, written once for the device barrier (every scope), the GPU backend's host
// barrier (a kernel that runs the device one) and the CPU backend's host barrier.
//
// Each PE of the group keeps a sequence number per barrier, stores it into its own slot of every
// other member's flag array (a release), then waits until every other member's slot in its own
// array has reached it (an acquire). Slots only grow, so a PE that is already in the next barrier
// cannot be mistaken for one that is not there yet. The caller provides the memory operations:
//   ops.arrive(i, seq)  store seq into this PE's slot on member i (release, visible to member i)
//   ops.wait(i, seq)    return once member i's slot here is at least seq (acquire)
// Members are numbered 0..n-1 in the group; `me` is this PE's number. The threads of a cooperating
// group split the members between them: thread `rank` of `size` takes every size-th member.
#ifndef GSHMEM_DETAIL_FLAG_BARRIER_H_
#define GSHMEM_DETAIL_FLAG_BARRIER_H_

#include <stdint.h>

#if defined(__CUDACC__)
#define GSHMEMI_BARRIER_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_BARRIER_FN inline
#endif

namespace gshmem {
namespace detail {

template <class Ops>
GSHMEMI_BARRIER_FN void flag_barrier(Ops& ops, int me, int n, uint64_t seq, int rank = 0, int size = 1) {
  for (int i = rank; i < n; i += size) {
    if (i != me) ops.arrive(i, seq);
  }
  for (int i = rank; i < n; i += size) {
    if (i != me) ops.wait(i, seq);
  }
}

// The same barrier where each arrival is a message that costs its sender and its target CPU time (across
// the network): the dissemination algorithm, ceil(log2 n) rounds; in round d (1, 2, 4, ... below n) this PE
// arrives at member me + d and waits for member me - d (mod n). n * ceil(log2 n) arrivals in all instead of
// n * (n - 1) (8 instead of 12 at 4 members, 24 instead of 56 at 8), in rounds that follow one another. A
// sender reaches a given member in one round only (their distance is one power of two), so the slots and
// sequence numbers are flag_barrier's. A PE leaves once it has heard, directly or through the members it
// heard from, from every member in this barrier. Every member of a group runs the same one of the two.
template <class Ops>
GSHMEMI_BARRIER_FN void dissemination_barrier(Ops& ops, int me, int n, uint64_t seq) {
  for (int d = 1; d < n; d <<= 1) {
    ops.arrive((me + d) % n, seq);
    ops.wait((me - d + n) % n, seq);
  }
}

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_BARRIER_FN

#endif  // GSHMEM_DETAIL_FLAG_BARRIER_H_
