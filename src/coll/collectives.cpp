#include "coll/collectives.h"

#include <atomic>
#include <cstring>
#include <vector>

#include "coll/gathered.h"
#include "gshmem/detail/flag_barrier.h"
#include "gshmem/detail/ll_algo.h"
#include "heap/symmetric_heap.h"
#include "team/teams.h"
#include "transport/manager.h"
#include "util/log.h"

namespace gshmem {

namespace {

using detail::CollOp;
using detail::TeamSlot;

const char* op_name(CollOp op) {
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
    case CollOp::kReduce:
      return "reduce";
    case CollOp::kReducescatter:
      return "reducescatter";
  }
  return "?";
}

// The CPU backend: copies into the members' heaps through their paths (memcpy where the heap is mapped
// here, puts across the network), and the team's flag barrier (stores into mapped heaps, puts of flags
// across the network).
//
// A team with a member that is not mapped here sends no packets (a packet's flag and data must land as
// one store, which a network put does not promise): its small collectives send messages in the packets'
// slots instead (ll_algo.h: the data, a fence, a flag; PeerPath::put_flagged), and its larger reductions
// go in two steps: every member gets every member's source (its block, for reduce-scatter) between two
// syncs, then combines them itself in team order (combine_by_value). Either way the members' values are
// combined in team order, as in the one-pass algorithm, so the results are bit-identical to it.
class HostCollEngine final : public CollEngine {
 public:
  HostCollEngine(const SymmetricHeap& heap, TransportManager& transports, FlagWait wait)
      : heap_(heap), transports_(transports), wait_(std::move(wait)) {}

  Status run(const CollCall& c, const TeamSlot& t, const TeamInfo&, bool, void*, const char* api) override {
    Ops ops{this, &t, c.team, api, false, true};
    for (int i = 0; i < t.size; ++i) {
      const PeerPath& path = transports_.path(t.pe(i));
      if (path.kind() == PathKind::kUnreachable) {
        GSHMEM_ERROR("%s: team %d has PE %d, which PE %d cannot reach: %s", api, c.team, t.pe(i), t.pe(t.my_index),
                     path.reason().c_str());
        return GSHMEM_ERROR_NOT_SUPPORTED;
      }
      if (!path.caps().load_store) ops.across = true;
      if (!path.caps().packets) ops.all_packets = false;
    }
    if (c.op == CollOp::kBarrier || c.op == CollOp::kSync) {
      ops.barrier();
      return GSHMEM_SUCCESS;
    }
    if (ops.across && (c.op == CollOp::kReduce || c.op == CollOp::kReducescatter) && !detail::use_ll(t, c.bytes)) {
      return gathered_reduce(ops, t, c);
    }
    return run_data_collective(ops, t, c) ? GSHMEM_SUCCESS : GSHMEM_ERROR_INVALID_VALUE;
  }

 private:
  // Fails the job: a collective that lost a step cannot be completed, and its members wait for it.
  static void check(Status s, const char* api) {
    if (!ok(s)) log::fatal("%s: the collective's transfer through the network transport failed", api);
  }
  PeerPath& member(const TeamSlot* t, int i) const { return transports_.path(t->pe(i)); }
  uint64_t offset_of(const void* p) const { return static_cast<uint64_t>(static_cast<const char*>(p) - heap_.base()); }
  struct Flags {
    const HostCollEngine* e;
    const TeamSlot* t;
    int team;
    const char* api;
    void arrive(int i, uint64_t seq) const {
      const uint64_t at = t->sync_of[i] + sizeof(uint64_t) * static_cast<uint64_t>(t->my_index);
      check(e->member(t, i).store_flag(at, seq), api);
    }
    void wait(int i, uint64_t seq) const {
      const uint64_t* flag = reinterpret_cast<const uint64_t*>(e->heap_.base() + t->sync) + i;
      if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= seq) return;
      e->wait_(flag, seq, team, t->pe(i), false, api);
    }
  };
  struct Ops {
    const HostCollEngine* e;
    const TeamSlot* t;
    int team;
    const char* api;
    bool across;       // some member's heap is not mapped here
    bool all_packets;  // every member's path lands an 8-byte store whole, data and flag together
    void put(int i, char* dest, const char* src, size_t bytes) {
      // Complete by the barrier that follows every put of the algorithms (its quiet).
      check(e->member(t, i).put(e->offset_of(dest), src, bytes, Completion::kNbi, nullptr), api);
    }
    // Member i's copy of `p`, where its heap is mapped here (the algorithms load through it only when no
    // member is across the network).
    template <class T>
    T* peer(int i, T* p) const {
      const char* c = reinterpret_cast<const char*>(p);
      return reinterpret_cast<T*>(e->member(t, i).base() + (c - e->heap_.base()));
    }
    template <class T>
    T load(const T* p) const {
      return *p;
    }
    int rank() const { return 0; }
    int threads() const { return 1; }
    // The flag-in-data packets of ll_algo.h, on the host: 8-byte atomic stores and loads; where some
    // member's path does not land them whole, messages through the paths.
    static constexpr bool kPackets = true;
    static constexpr bool kMessages = true;
    bool packets() const { return true; }
    bool messages() const { return !all_packets; }
    void ll_message(int i, uint64_t* data, const char* src, size_t bytes, uint64_t* flag_word, uint64_t flag) const {
      check(e->member(t, i).put_flagged(e->offset_of(data), src, bytes, e->offset_of(flag_word), flag), api);
    }
    void ll_message_wait(const uint64_t* p, uint64_t flag, int k) const {
      if (__atomic_load_n(p, __ATOMIC_ACQUIRE) >= flag) return;
      e->wait_(p, flag, team, t->pe(k), false, api);
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    char* heap() const { return e->heap_.base(); }
    void group_sync() const {}
    void ll_store(uint64_t* p, uint64_t word) const { __atomic_store_n(p, word, __ATOMIC_RELAXED); }
    uint64_t ll_wait(const uint64_t* p, uint64_t target, int k) const {
      uint64_t w = __atomic_load_n(p, __ATOMIC_RELAXED);
      if (w >= target) return w;
      e->wait_(p, target, team, t->pe(k), true, api);
      return __atomic_load_n(p, __ATOMIC_RELAXED);
    }
    void sync() { barrier(); }
    void barrier() {
      auto* seq = reinterpret_cast<uint64_t*>(e->heap_.base() + t->sync + detail::SyncLayout(t->size).seq);
      const uint64_t n = ++*seq;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (across) check(e->transports_.quiet(), api);  // this PE's puts land before it arrives
      Flags flags{e, t, team, api};
      // Across the network each arrival is a message: fewer of them in rounds (flag_barrier.h). Every member
      // must choose alike, as for packets or messages (`across` is `messages()`): heaps are mapped per host,
      // all of a host's PEs or none, so a team spans hosts for all its members or for none (which assumes
      // NVSHMEM_DISABLE_P2P set alike on a host's PEs, as a launcher's environment does).
      if (across) {
        detail::dissemination_barrier(flags, t->my_index, t->size, n);
      } else {
        detail::flag_barrier(flags, t->my_index, t->size, n);
      }
    }
  };

  // The members' sources (reduce) or blocks (reduce-scatter), gathered here, a row per member.
  Status gathered_reduce(Ops& ops, const TeamSlot& t, const CollCall& c) {
    GatheredSources g(c, t.size, t.my_index, heap_.base());
    ops.sync();  // every member's source is ready
    for (int j = 0; j < t.size && c.bytes > 0; ++j) {
      check(member(&t, j).get(g.row(j), g.from(), c.bytes, Completion::kNbi, nullptr), ops.api);
    }
    check(transports_.quiet(), ops.api);
    ops.sync();  // no member reads this PE's source any more: dest may overwrite it (in place)
    return g.combine(c.dest) ? GSHMEM_SUCCESS : GSHMEM_ERROR_INVALID_VALUE;
  }

  const SymmetricHeap& heap_;
  TransportManager& transports_;
  FlagWait wait_;
};

}  // namespace

std::unique_ptr<CollEngine> make_host_coll_engine(const SymmetricHeap& heap, TransportManager& transports,
                                                  FlagWait wait) {
  return std::make_unique<HostCollEngine>(heap, transports, std::move(wait));
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
  if ((c.op == CollOp::kFcollect || c.op == CollOp::kAlltoall || c.op == CollOp::kReducescatter) &&
      __builtin_mul_overflow(c.bytes, n, &total)) {
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
    case CollOp::kReduce:
    case CollOp::kReducescatter: {
      if (!detail::reduce_op_allowed(c.dtype, c.redop)) {
        GSHMEM_ERROR("%s: this operation is not defined for this element type", api);
        return GSHMEM_ERROR_INVALID_VALUE;
      }
      const bool scatter = c.op == CollOp::kReducescatter;
      const uint64_t src_bytes = scatter ? total : c.bytes;
      if (!check_buffer(c.dest, c.bytes, "destination", api) || !check_buffer(c.src, src_bytes, "source", api)) {
        return GSHMEM_ERROR_INVALID_VALUE;
      }
      const char* d = static_cast<const char*>(c.dest);
      const char* s = static_cast<const char*>(c.src);
      const bool overlap = c.bytes > 0 && d < s + src_bytes && s < d + c.bytes;
      if (overlap && (scatter || d != s)) {
        GSHMEM_ERROR("%s: the destination [%p, +%llu bytes) overlaps the source [%p, +%llu bytes); %s", api, c.dest,
                     static_cast<unsigned long long>(c.bytes), c.src, static_cast<unsigned long long>(src_bytes),
                     scatter ? "dest and source must not overlap" : "only dest == source (in place) is allowed");
        return GSHMEM_ERROR_INVALID_VALUE;
      }
      break;
    }
    default:
      break;
  }
  if (check_arguments_ && c.op != CollOp::kBarrier && c.op != CollOp::kSync) {
    const int32_t what =
        static_cast<int32_t>(c.op) | static_cast<int32_t>(c.dtype) << 8 | static_cast<int32_t>(c.redop) << 16;
    const int32_t root = c.op == CollOp::kBroadcast ? c.root : 0;
    GSHMEM_CHECK(
        teams_.same_arguments(c.team, what, root, c.bytes, "arguments", api, [](int32_t w, int32_t r, uint64_t bytes) {
          const auto op = static_cast<CollOp>(w & 0xff);
          std::string s = log::format("%s of %llu bytes", op_name(op), static_cast<unsigned long long>(bytes));
          if (op == CollOp::kBroadcast) s += log::format(" from root %d", r);
          if (op == CollOp::kReduce || op == CollOp::kReducescatter) {
            static const char* const types[] = {"int8",  "uint8",  "int16", "uint16",   "int32", "uint32",
                                                "int64", "uint64", "half",  "bfloat16", "float", "double"};
            static const char* const ops[] = {"and", "or", "xor", "min", "max", "sum", "prod", "maxloc"};
            s += log::format(" (%s %s)", types[((w >> 8) & 0xff) % 12], ops[((w >> 16) & 0xff) % 8]);
          }
          return s;
        }));
  }
  GSHMEM_TRACE(kColl, "%s on team %d: %s of %llu bytes", api, c.team, op_name(c.op),
               static_cast<unsigned long long>(c.bytes));
  return engine_->run(c, *slot, *info, on_stream, stream, api);
}

}  // namespace gshmem
