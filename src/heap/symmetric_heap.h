// The symmetric heap of one PE and its view of the heaps of the PEs on its node.
//
// Layout: one address-space reservation holds a window of `slot` bytes per local PE, in node
// order; this PE's heap is its own window, and each local peer's heap is mapped into that peer's
// window at the same offsets. A PE therefore reaches a peer's copy of a symmetric object at
// window(peer) + (object - base()), with no table lookup per allocation. The windows are sized
// to the heap's limit up front, so growth maps more memory but never moves anything.
//
// Buffers of the program's own (nvshmemx_buffer_register_symmetric) are mapped at the top of
// every window, growing down (heap/registered_regions.h), so the same window arithmetic reaches
// them; the heap grows up to the lowest of them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heap/allocator.h"
#include "heap/fd_exchange.h"
#include "heap/provider.h"
#include "heap/registered_regions.h"

namespace gshmem {

class Bootstrap;

struct HeapOptions {
  uint64_t initial_bytes = 0;  // mapped at init (NVSHMEM_SYMMETRIC_SIZE)
  uint64_t limit_bytes = 0;    // the heap never grows past this (NVSHMEM_MAX_MEMORY_PER_GPU)
  uint64_t growth_step = 0;    // smallest growth (NVSHMEM_CUMEM_GRANULARITY)
  bool map_peers = true;       // map local peers' heaps (false with NVSHMEM_DISABLE_P2P)
  double timeout_s = 120;      // for the descriptor exchange
};

class SymmetricHeap {
 public:
  SymmetricHeap() = default;
  ~SymmetricHeap() { finalize(); }
  SymmetricHeap(const SymmetricHeap&) = delete;
  SymmetricHeap& operator=(const SymmetricHeap&) = delete;

  // Collective over all PEs. `node_pes` are the ranks on this node in order and `node_pids` their
  // process ids; `job_key` and `token` are equal on every PE and unique to the job (the key names
  // the descriptor sockets, the token authenticates their messages).
  Status init(Bootstrap* boot, std::unique_ptr<MemoryProvider> provider, const HeapOptions& options,
              const std::vector<int>& node_pes, const std::vector<int>& node_pids, uint64_t job_key, uint64_t token);
  void finalize();

  char* base() const { return base_; }
  uint64_t mapped() const { return mapped_; }
  uint64_t slot() const { return slot_; }
  // This PE's view of `pe`'s heap, or nullptr when it is not mapped here.
  char* peer_base(int pe) const {
    return pe >= 0 && pe < static_cast<int>(peer_base_.size()) ? peer_base_[pe] : nullptr;
  }
  // Whether [p, p + n) lies inside the mapped part of this PE's heap, or inside one registered
  // buffer's alias: symmetric memory that every operation takes.
  bool contains(const void* p, uint64_t n) const {
    const char* c = static_cast<const char*>(p);
    if (c >= base_ && c <= base_ + mapped_ && n <= static_cast<uint64_t>(base_ + mapped_ - c)) return true;
    return !regions_.empty() && c >= base_ && c < base_ + slot_ && regions_.containing(c - base_, n);
  }
  // Whether `p` lies in the address space reserved for the heaps (this PE's or a local peer's
  // window, mapped or not): memory the program did not get from anyone else.
  bool in_reservation(const void* p) const {
    const char* c = static_cast<const char*>(p);
    return reservation_ && c >= reservation_ && c < reservation_ + reservation_bytes_;
  }
  // Whether [p, p + n) lies inside the mapped part of one window (heap or registered buffer).
  bool in_mapped_window(const void* p, uint64_t n) const {
    if (!in_reservation(p)) return false;
    const uint64_t off = static_cast<uint64_t>(static_cast<const char*>(p) - reservation_) % stride_;
    return (off <= mapped_ && n <= mapped_ - off) || (!regions_.empty() && regions_.containing(off, n));
  }
  MemoryProvider& provider() { return *provider_; }
  const HeapAllocator& allocator() const { return allocator_; }

  // Allocates `size` bytes aligned to `align`, growing the heap if needed. Collective: every PE
  // must make the same calls in the same order. On exhaustion logs the sizes and the setting to
  // raise (naming `api`) and returns GSHMEM_ERROR_OUT_OF_MEMORY.
  Status allocate(uint64_t size, uint64_t align, uint64_t* offset, const char* api);
  // Frees the block at `offset`; GSHMEM_ERROR_INVALID_VALUE (nothing changed) if none starts there.
  Status free(uint64_t offset);

  // Maps the program's buffer `buf` (the start of a provider allocation; `size` bytes of it, the
  // same on every PE and not 0) into every window at one offset below the registered ones, and
  // returns that offset: base() + *offset is its alias. Collective over all PEs: a PE whose buffer
  // cannot be registered fails the call on every PE, each PE having undone its part.
  Status register_buffer(void* buf, uint64_t size, const char* api, uint64_t* offset);
  // Unmaps the registered buffer at `offset` from this PE's windows (its own and its peers'),
  // which must no longer be accessed by anyone; the program's own mapping of the buffer stays.
  // GSHMEM_ERROR_INVALID_VALUE (nothing changed) if no registered buffer starts there. Local.
  Status unregister_buffer(uint64_t offset);
  const RegisteredRegions& regions() const { return regions_; }

  // Called on every PE at every growth, once the new memory [addr, addr + bytes) (heap offset
  // `offset`) is mapped on every PE and before any of it is allocated: collective. A failure on any PE
  // fails the growth on all of them.
  using GrowthListener = std::function<Status(char* addr, uint64_t offset, uint64_t bytes)>;
  void set_growth_listener(GrowthListener listener) { grown_ = std::move(listener); }

 private:
  // Maps `bytes` more on every PE, or on none. Collective.
  Status grow(uint64_t bytes, const char* api);
  char* window(size_t node_index) const { return reservation_ + stride_ * node_index; }
  // The heap grows up to here: the window's end, or the lowest registered buffer.
  uint64_t growth_limit() const { return regions_.lowest(slot_); }

  struct Mapping {
    char* addr;
    uint64_t bytes;
    uint64_t handle;
    bool has_handle;  // still to be released
  };
  // Unmaps (and releases) mappings, last first: a failed growth's, or all at finalize.
  void undo(const std::vector<Mapping>& added);
  // Sends `fd` (this PE's new memory) to the node's other PEs and maps the memory each one sent at
  // window(i) + offset, bytes_of(i) bytes, appending the mappings to `added`; `what` names the
  // memory in messages. Collective over the node; nothing to do without peer mappings.
  Status map_peer_chunks(int fd, uint64_t offset, const std::function<uint64_t(size_t)>& bytes_of, const char* what,
                         std::vector<Mapping>* added);

  Bootstrap* boot_ = nullptr;
  std::unique_ptr<MemoryProvider> provider_;
  HeapOptions options_;
  std::vector<int> node_pes_;
  size_t my_index_ = 0;
  char* reservation_ = nullptr;
  uint64_t reservation_bytes_ = 0;
  uint64_t slot_ = 0;          // bytes a PE's heap may grow to
  uint64_t window_align_ = 0;  // largest power of two <= slot_: every window starts at a multiple
  uint64_t stride_ = 0;        // from one window to the next: slot_ rounded up to window_align_
  char* base_ = nullptr;
  uint64_t mapped_ = 0;
  uint64_t exchanges_ = 0;  // descriptor exchanges so far (growths and registrations): their tags
  std::vector<char*> peer_base_;
  std::vector<Mapping> mappings_;
  RegisteredRegions regions_;
  std::map<uint64_t, std::vector<Mapping>> region_mappings_;  // registered offset -> its mappings here
  HeapAllocator allocator_;
  LocalFdExchange exchange_;
  GrowthListener grown_;
};

}  // namespace gshmem
