// Wire format between PEs and the TCP bootstrap root (the hub). Little-endian hosts only.
//
// A connection starts with a challenge: the hub sends Hello with a random nonce; the PE answers
// Auth with its rank, the job size and SipHash(secret, nonce | rank | size | "pe"); the hub
// answers Welcome with SipHash(secret, nonce | rank | "hub") so that the PE knows the hub holds
// the secret too, or Reject with a reason. The secret never crosses the wire.
//
// After that each collective is one Collective message from every PE (seq counts from 1 on
// every PE) and one Result from the hub once every PE has sent it, or Error with a reason.
//
// Liveness: the hub sends Gone to every PE still in the job when a PE's connection closes before
// its Fin (or the PE announced with Exiting that it ends without nvshmem_finalize), and when a PE
// ends the job without a launcher to do it. A PE reads its connection from a thread of its own, so
// it learns this whatever it is doing. QueryLeft asks which PEs have already finalized (a PE that
// waits in a barrier for one of them waits forever); its answer carries the query's seq, which
// counts from 2^63 so that it never meets a collective's.
//
// Sessions: a PE that calls nvshmem_finalize sends Park and keeps its connection, so that the process
// may initialise again (Rejoin) in the same job; steps keep waiting for a parked PE, since it may come
// back. A parked PE whose connection closes (its process ended) has left cleanly, as after Fin. The
// seq of collectives goes on counting across sessions.
#pragma once

#include <cstdint>

namespace gshmem {
namespace tcp {

constexpr uint32_t kMagic = 0x42485347;  // "GSHB"
constexpr uint16_t kVersion = 3;
// Largest payload after authentication (bootstrap exchanges are small; alltoall of a large job is
// the biggest), and before it: only an Auth message, whose size is fixed.
constexpr uint64_t kMaxPayload = 256ull << 20;
// At most this many connections may be waiting to authenticate; more are closed at once.
constexpr int kMaxPendingHandshakes = 1024;
// First seq of QueryLeft messages.
constexpr uint64_t kQuerySeqBase = 1ull << 63;

enum class MsgType : uint16_t {
  kHello = 1,       // hub -> PE: payload = 16-byte nonce
  kAuth = 2,        // PE -> hub: payload = AuthBody
  kWelcome = 3,     // hub -> PE: payload = uint64 hub MAC
  kReject = 4,      // hub -> PE: payload = reason text
  kCollective = 5,  // PE -> hub: op, arg, seq; payload = contribution
  kResult = 6,      // hub -> PE: seq; payload = result
  kError = 7,       // hub -> PE: arg = gshmem status; payload = reason text
  kAbort = 8,       // PE -> hub: arg = exit code; payload = reason text
  kFin = 9,         // PE -> hub: leaving cleanly
  kExiting = 10,    // PE -> hub: arg = exit code; the process ends without nvshmem_finalize
  kGone = 11,       // hub -> PE: arg = the rank that is gone, op = exit code for the receiver; payload = why
  kQueryLeft = 12,  // PE -> hub: seq; which PEs have finalized and left
  kLeftList = 13,   // hub -> PE: seq; payload = int32 ranks that have finalized
  kPark = 14,       // PE -> hub: finalized this session, stays in the job (may Rejoin)
  kRejoin = 15,     // PE -> hub: initialises again after Park
};

enum class CollOp : uint32_t { kAllgather = 1, kAlltoall = 2, kBarrier = 3, kBroadcast = 4 };

inline const char* coll_name(uint32_t op) {
  switch (static_cast<CollOp>(op)) {
    case CollOp::kAllgather:
      return "allgather";
    case CollOp::kAlltoall:
      return "alltoall";
    case CollOp::kBarrier:
      return "barrier";
    case CollOp::kBroadcast:
      return "broadcast";
  }
  return "unknown operation";
}

struct MsgHeader {
  uint32_t magic;
  uint16_t type;
  uint16_t version;
  uint64_t seq;
  uint64_t len;  // payload bytes that follow
  uint32_t op;   // CollOp for kCollective; kGone: the exit code the receiver ends with
  int32_t arg;   // kCollective: broadcast root; kError: status; kAbort, kExiting: exit code; kGone: rank
};
static_assert(sizeof(MsgHeader) == 32, "MsgHeader is 32 bytes on the wire");

struct AuthBody {
  int32_t rank;
  int32_t size;
  uint64_t mac;
};
static_assert(sizeof(AuthBody) == 16, "AuthBody is 16 bytes on the wire");

}  // namespace tcp
}  // namespace gshmem

#include <cstring>

#include "util/socket.h"

namespace gshmem {
namespace tcp {

// MAC a PE proves the secret with.
inline uint64_t pe_mac(const uint8_t secret[16], const uint8_t nonce[16], int32_t rank, int32_t size) {
  uint8_t buf[16 + 8 + 2];
  std::memcpy(buf, nonce, 16);
  std::memcpy(buf + 16, &rank, 4);
  std::memcpy(buf + 20, &size, 4);
  buf[24] = 'p';
  buf[25] = 'e';
  return siphash24(secret, buf, sizeof buf);
}

// MAC the hub proves the secret with.
inline uint64_t hub_mac(const uint8_t secret[16], const uint8_t nonce[16], int32_t rank) {
  uint8_t buf[16 + 4 + 3];
  std::memcpy(buf, nonce, 16);
  std::memcpy(buf + 16, &rank, 4);
  std::memcpy(buf + 20, "hub", 3);
  return siphash24(secret, buf, sizeof buf);
}

}  // namespace tcp
}  // namespace gshmem
