// Local buffers registered for RMA (NVSHMEM's nvshmemx_buffer_register, _unregister, _unregister_all): memory
// of this PE, outside the symmetric heap, that the program names as the local side (source of a put,
// destination of a get) of operations to other PEs.
//
// gshmem's transports take any local buffer without registration (a mapped peer's copy reads and writes it
// directly; the network transport stages what its library cannot reach), so a registration changes no
// operation: this room keeps the registrations as NVSHMEM defines them, so that programs get the same answers
// (a buffer inside the heap, one that overlaps a registered one, an unregistration of an address that does not
// start a registered buffer: INVALID_VALUE).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "util/status.h"

namespace gshmem {

class SymmetricHeap;

class LocalBuffers {
 public:
  explicit LocalBuffers(const SymmetricHeap& heap) : heap_(heap) {}
  Status add(void* addr, size_t bytes, const char* api);
  Status remove(void* addr, const char* api);
  void clear();
  size_t size() const;

 private:
  const SymmetricHeap& heap_;
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> buffers_;  // start -> bytes
};

}  // namespace gshmem
