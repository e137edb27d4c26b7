#include "coll/collectives.h"

#include <atomic>
#include <cstring>

#include "gshmem/detail/flag_barrier.h"
#include "heap/symmetric_heap.h"
#include "team/teams.h"
#include "util/log.h"

namespace gshmem {

namespace {

using detail::CollOp;
using detail::TeamSlot;

[[maybe_unused]] const char* op_name(CollOp op) {
  switch (op) {
    case CollOp::kBarrier:
      return "barrier";
    case CollOp::kSync:
      return "sync";
    case CollOp::kBroadcast:
      return "broadcast";
    case CollOp::kFcollect:
      return "fcollect";
    case CollOp::kAlltoall:
      return "alltoall";
  }
  return "?";
}

// The CPU backend: memcpy into the members' heaps, mapped here, and the team's flag barrier on host atomics.
class HostCollEngine final : public CollEngine {
 public:
  HostCollEngine(const SymmetricHeap& heap, FlagWait wait) : heap_(heap), wait_(std::move(wait)) {}

  Status run(const CollCall& c, const TeamSlot& t, bool, void*, const char* api) override {
    Ops ops{this, &t, c.team, api};
    char* dest = static_cast<char*>(c.dest);
    const char* src = static_cast<const char*>(c.src);
    switch (c.op) {
      case CollOp::kBarrier:
      case CollOp::kSync:
        ops.barrier();
        break;
      case CollOp::kBroadcast:
        detail::broadcast(ops, t, dest, src, c.bytes, c.root);
        break;
      case CollOp::kFcollect:
        detail::fcollect(ops, t, dest, src, c.bytes);
        break;
      case CollOp::kAlltoall:
        detail::alltoall(ops, t, dest, src, c.bytes);
        break;
    }
    return GSHMEM_SUCCESS;
  }

 private:
  struct Ops;
  struct Flags {
    const HostCollEngine* e;
    const TeamSlot* t;
    int team;
    const char* api;
    void arrive(int i, uint64_t seq) const {
      auto* slot = reinterpret_cast<uint64_t*>(e->heap_.peer_base(t->pe(i)) + t->sync_of[i]) + t->my_index;
      __atomic_store_n(slot, seq, __ATOMIC_RELEASE);
    }
    void wait(int i, uint64_t seq) const {
      const uint64_t* flag = reinterpret_cast<const uint64_t*>(e->heap_.base() + t->sync) + i;
      if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= seq) return;
      e->wait_(flag, seq, team, t->pe(i), api);
    }
  };
  struct Ops {
    const HostCollEngine* e;
    const TeamSlot* t;
    int team;
    const char* api;
    void put(int i, char* dest, const char* src, size_t bytes) {
      char* to = e->heap_.peer_base(t->pe(i)) + (dest - e->heap_.base());
      std::memmove(to, src, bytes);
    }
    void barrier() {
      auto* seq = reinterpret_cast<uint64_t*>(e->heap_.base() + t->sync + detail::SyncLayout(t->size).seq);
      const uint64_t n = ++*seq;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      Flags flags{e, t, team, api};
      detail::flag_barrier(flags, t->my_index, t->size, n);
    }
  };

  const SymmetricHeap& heap_;
  FlagWait wait_;
};

}  // namespace

std::unique_ptr<CollEngine> make_host_coll_engine(const SymmetricHeap& heap, FlagWait wait) {
  return std::make_unique<HostCollEngine>(heap, std::move(wait));
}

bool Collectives::check_buffer(const void* p, uint64_t bytes, const char* what, const char* api) const {
  if (bytes == 0 || heap_.contains(p, bytes)) return true;
  GSHMEM_ERROR(
      "%s: the %s %p (%llu bytes) is not inside the symmetric heap [%p, %p): collectives take memory from "
      "nvshmem_malloc, nvshmem_calloc or nvshmem_align",
      api, what, p, static_cast<unsigned long long>(bytes), static_cast<void*>(heap_.base()),
      static_cast<void*>(heap_.base() + heap_.mapped()));
  return false;
}

Status Collectives::run(const CollCall& c, bool on_stream, void* stream, const char* api) {
  const TeamInfo* info = teams_.find(c.team);
  const TeamSlot* slot = teams_.slot(c.team);
  if (!info || !slot) {
    GSHMEM_ERROR("%s: team %d is not a valid team (never made, destroyed, or NVSHMEM_TEAM_INVALID)", api, c.team);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const uint64_t n = static_cast<uint64_t>(info->size());
  uint64_t total = c.bytes;
  if ((c.op == CollOp::kFcollect || c.op == CollOp::kAlltoall) && __builtin_mul_overflow(c.bytes, n, &total)) {
    GSHMEM_ERROR("%s: %llu bytes per PE for %llu PEs overflow the address space", api,
                 static_cast<unsigned long long>(c.bytes), static_cast<unsigned long long>(n));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  switch (c.op) {
    case CollOp::kBroadcast:
      if (c.root < 0 || c.root >= info->size()) {
        GSHMEM_ERROR("%s: PE_root %d is not a PE of team %d, which has %d PEs (numbered 0 to %d)", api, c.root, c.team,
                     info->size(), info->size() - 1);
        return GSHMEM_ERROR_INVALID_VALUE;
      }
      if (!check_buffer(c.dest, c.bytes, "destination", api)) return GSHMEM_ERROR_INVALID_VALUE;
      if (info->my_index == c.root && !check_buffer(c.src, c.bytes, "source", api)) return GSHMEM_ERROR_INVALID_VALUE;
      break;
    case CollOp::kFcollect:
      if (!check_buffer(c.dest, total, "destination", api)) return GSHMEM_ERROR_INVALID_VALUE;
      break;
    case CollOp::kAlltoall:
      if (!check_buffer(c.dest, total, "destination", api)) return GSHMEM_ERROR_INVALID_VALUE;
      break;
    default:
      break;
  }
  GSHMEM_TRACE(kColl, "%s on team %d: %s of %llu bytes", api, c.team, op_name(c.op),
               static_cast<unsigned long long>(c.bytes));
  return engine_->run(c, *slot, on_stream, stream, api);
}

}  // namespace gshmem
