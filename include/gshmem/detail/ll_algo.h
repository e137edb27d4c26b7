// Flag-in-data ("LL") exchanges for small collectives, written once for kernels (every scope) and for
// the CPU backend's host code: each member sends its message to every member as 8-byte packets that
// carry 4 bytes of data and a 4-byte flag, stored by one 8-byte store each, so that a packet's data is
// there when its flag is. A receiver waits for the packets in its own memory and needs no barrier: a
// small fcollect, alltoall, reduce or reduce-scatter costs one one-way trip instead of a put, a
// fence and a barrier.
//
// Each member's sync area (team.h) holds packets[2][size][kLLPackets]: buffer b, slot k is where
// member k stores. Collective c of the team that uses packets (every member counts them alike, in
// ll_calls) goes to buffer c % 2 with flag c % period + 1. A member overwrites a buffer only two such
// collectives later, which it reaches only after every member has started the one in between (each of
// these collectives sends from every member to every member, or, in reduce_algo.h's recursive doubling,
// carries every member's contribution to every member through partners: broadcast does not use
// packets), that is after every member has finished reading the buffer. Within a period flags only grow, so a
// packet left from an earlier collective never passes for the current one; every `period`
// collectives (TeamSlot::ll_period) the members reset their packets to zero between two team syncs,
// and flags start again from 1.
//
// Messages: where some member's path does not land an 8-byte store whole (a network put), the same
// slots carry messages instead (Ops::kMessages and ops.messages(), the same on every member): slot
// [buffer][k] holds member k's bytes from its start and, in its last word, the flag, which the sender
// stores after the data through its path (ops.ll_message: the data, a fence, the flag). A receiver waits
// for the flag once, then reads the bytes. Still one one-way trip; the buffers, flags and resets are
// the packets' own.
//
// The caller provides, beyond the collective operations (coll_algo.h, reduce_algo.h):
//   ops.heap()                 this PE's heap base (sync areas are at t.sync and t.sync_of[k] from it)
//   ops.group_sync()           a sync of the group's threads (their stores seen by each other)
//   ops.ll_store(p, word)      one 8-byte store to a packet of a member's area (p from ops.peer)
//   ops.ll_wait(p, target, k)  waits until the packet *p (this PE's, from member k) is >= target,
//                              returns it
//   Ops::kMessages             whether the messages below exist; if true:
//   ops.messages()             whether this team sends messages instead of packets
//   ops.ll_message(i, data, src, bytes, flag_word, flag)  `bytes` from src to `data`, then `flag` into
//                              `flag_word` (both in member i's area, given as the same offsets in this
//                              PE's heap), the flag seen after the data; src reusable on return
//   ops.ll_message_wait(p, flag, k)  waits until *p (this PE's flag word from member k) is >= flag, with
//                              acquire semantics (what the sender put before is then visible)
#ifndef GSHMEM_DETAIL_LL_ALGO_H_
#define GSHMEM_DETAIL_LL_ALGO_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gshmem/detail/team.h"

#if defined(__CUDACC__)
#define GSHMEMI_LL_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_LL_FN inline
#endif

namespace gshmem {
namespace detail {

// Whether a message of `bytes` per member goes in packets on team `t` (every member decides alike).
GSHMEMI_LL_FN bool use_ll(const TeamSlot& t, uint64_t bytes) {
  return t.size > 1 && bytes > 0 && bytes <= t.ll_max_bytes && bytes <= kLLBytes;
}

// One collective's use of the packets: begin() at its start (every thread of the group), end() when
// every thread of the group has read all it needs.
template <class Ops>
struct LLRound {
  Ops& ops;
  const TeamSlot& t;
  char* heap;
  uint64_t packets_at;  // offset of the packets in a sync area
  uint64_t* packets;    // this PE's packets[2][size][kLLPackets]
  uint64_t* calls;      // this PE's ll_calls
  uint64_t count;       // this collective's number
  uint32_t flag;
  int buffer;

  GSHMEMI_LL_FN LLRound(Ops& o, const TeamSlot& team) : ops(o), t(team) {
    ops.group_sync();  // the source may have been written by other threads of the group just before
    const SyncLayout lay(t.size);
    heap = ops.heap();
    char* area = heap + t.sync;
    packets_at = lay.packets;
    packets = reinterpret_cast<uint64_t*>(area + lay.packets);
    calls = reinterpret_cast<uint64_t*>(area + lay.ll_calls);
    count = *const_cast<volatile uint64_t*>(calls);
    buffer = static_cast<int>(count & 1);
    const uint64_t in_period = count % t.ll_period;
    flag = static_cast<uint32_t>(in_period + 1);
    if (in_period == 0 && count != 0) reset(lay);
  }

  // Every member has finished the collectives before this one (sync), zeroes its packets, and starts
  // sending only when every member has (sync).
  GSHMEMI_LL_FN void reset(const SyncLayout& lay) {
    ops.sync();
    const size_t words = static_cast<size_t>((lay.bytes - lay.packets) / 8);
    for (size_t w = static_cast<size_t>(ops.rank()); w < words; w += static_cast<size_t>(ops.threads())) {
      packets[w] = 0;
    }
    ops.sync();
  }

  GSHMEMI_LL_FN size_t index(int sender, size_t p) const {
    return (static_cast<size_t>(buffer) * static_cast<size_t>(t.size) + static_cast<size_t>(sender)) * kLLPackets + p;
  }

  // Sends `bytes` (at most kLLBytes) from `src` to member i; the group's threads share the packets.
  // Member i's sync area is at its own offset (t.sync_of[i]) in its heap.
  GSHMEMI_LL_FN void send(int i, const char* src, size_t bytes) {
    uint64_t* theirs = reinterpret_cast<uint64_t*>(heap + t.sync_of[i] + packets_at);
    if constexpr (Ops::kMessages) {
      if (ops.messages()) {
        if (ops.rank() == 0) {
          ops.ll_message(i, theirs + index(t.my_index, 0), src, bytes, theirs + index(t.my_index, kLLPackets - 1),
                         flag);
        }
        return;
      }
    }
    uint64_t* to = ops.peer(i, theirs + index(t.my_index, 0));
    const size_t n = (bytes + 3) / 4;
    for (size_t p = static_cast<size_t>(ops.rank()); p < n; p += static_cast<size_t>(ops.threads())) {
      uint32_t data = 0;
      const size_t at = p * 4;
      memcpy(&data, src + at, bytes - at < 4 ? bytes - at : 4);
      ops.ll_store(to + p, (static_cast<uint64_t>(flag) << 32) | data);
    }
  }

  // The 4 data bytes of packet p from member k (waiting for it; in a message, bytes 4p to 4p + 3).
  GSHMEMI_LL_FN uint32_t packet(int k, size_t p) {
    if constexpr (Ops::kMessages) {
      if (ops.messages()) {
        const uint64_t* slot = packets + index(k, 0);
        ops.ll_message_wait(slot + kLLPackets - 1, flag, k);
        uint32_t data;
        memcpy(&data, reinterpret_cast<const char*>(slot) + p * 4, 4);
        return data;
      }
    }
    const uint64_t w = ops.ll_wait(packets + index(k, p), static_cast<uint64_t>(flag) << 32, k);
    return static_cast<uint32_t>(w);
  }

  // Copies the `bytes` that member k sent into `dest`; the group's threads share the packets.
  GSHMEMI_LL_FN void receive(int k, char* dest, size_t bytes) {
    const size_t n = (bytes + 3) / 4;
    for (size_t p = static_cast<size_t>(ops.rank()); p < n; p += static_cast<size_t>(ops.threads())) {
      const uint32_t data = packet(k, p);
      const size_t at = p * 4;
      memcpy(dest + at, &data, bytes - at < 4 ? bytes - at : 4);
    }
  }

  // Element e (of `size` bytes, at most 16) of what member k sent, into `out`, by one thread.
  GSHMEMI_LL_FN void element(int k, size_t e, size_t size, void* out) {
    const size_t first = e * size / 4, last = (e * size + size - 1) / 4;
    uint32_t words[5];
    for (size_t p = first; p <= last; ++p) words[p - first] = packet(k, p);
    memcpy(out, reinterpret_cast<const char*>(words) + (e * size - first * 4), size);
  }

  // After every thread of the group has read what it needs: the next collective uses the other buffer.
  GSHMEMI_LL_FN void end() {
    ops.group_sync();
    if (ops.rank() == 0) *calls = count + 1;
    ops.group_sync();
  }
};

// Each member sends to itself last: when it reads its own packet p, its threads have read packet p's
// bytes of `src` for every member, so that `dest` may overlap `src` (in place).

// fcollect in packets: member k's `src` lands at dest + k * bytes on every member.
template <class Ops>
GSHMEMI_LL_FN void ll_fcollect(Ops& ops, const TeamSlot& t, char* dest, const char* src, size_t bytes) {
  LLRound<Ops> r(ops, t);
  for (int k = 1; k <= t.size; ++k) r.send((t.my_index + k) % t.size, src, bytes);
  for (int k = 0; k < t.size; ++k) r.receive(k, dest + static_cast<size_t>(k) * bytes, bytes);
  r.end();
}

// alltoall in packets: block j of member i's `src` lands as block i of member j's `dest`.
template <class Ops>
GSHMEMI_LL_FN void ll_alltoall(Ops& ops, const TeamSlot& t, char* dest, const char* src, size_t bytes) {
  LLRound<Ops> r(ops, t);
  for (int k = 1; k <= t.size; ++k) {
    const int i = (t.my_index + k) % t.size;
    r.send(i, src + static_cast<size_t>(i) * bytes, bytes);
  }
  for (int k = 0; k < t.size; ++k) r.receive(k, dest + static_cast<size_t>(k) * bytes, bytes);
  r.end();
}

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_LL_FN

#endif  // GSHMEM_DETAIL_LL_ALGO_H_
