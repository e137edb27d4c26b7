// The symmetric memory calls of the host API: allocation, release and reallocation (collective over
// all PEs, which must pass the same arguments: a mismatch fails the call on every PE alike, never a
// hang), nvshmem_ptr, and the registration of the program's own GPU buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "util/status.h"

namespace gshmem {

class Bootstrap;
class Runtime;
class SymmetricHeap;

class SymmetricMemory {
 public:
  explicit SymmetricMemory(Runtime& rt) : rt_(rt) {}
  // Collective. On failure *out is nullptr and the reason has been logged.
  Status allocate(size_t size, size_t align, bool zero, void** out, const char* api);
  Status release(void* ptr, const char* api);
  // nvshmem_realloc (collective): a new block of `size` bytes that holds the first min(old, size)
  // bytes of `ptr`'s block, which is freed; `ptr` NULL allocates, `size` 0 frees (*out = NULL).
  Status reallocate(void* ptr, size_t size, void** out, const char* api);
  // nvshmem_ptr: `pe`'s copy of `ptr` in this process, or nullptr where `pe`'s heap is not mapped here.
  void* ptr(const void* ptr, int pe) const;
  // nvshmemx_buffer_register_symmetric (collective, GPU backend): maps the program's cuMemCreate
  // buffer `buf` into the symmetric address space; *out is its alias there, or nullptr on failure
  // (the reason logged). `size` must agree between PEs and `flags` be 0.
  Status register_buffer(void* buf, size_t size, int flags, void** out, const char* api);
  // nvshmemx_buffer_unregister_symmetric (collective): after a barrier, unmaps the alias that
  // register_buffer returned (with the same size) on every PE; the program's buffer stays valid.
  Status unregister_buffer(void* alias, size_t size, const char* api);

 private:
  // Whether every PE passed the same (a, b); else a message listing each PE's describe(a, b), and
  // GSHMEM_ERROR_SYMMETRY on every PE alike. Collective.
  Status check_symmetric(const char* api, uint64_t a, uint64_t b,
                         const std::function<std::string(uint64_t, uint64_t)>& describe);
  SymmetricHeap& heap() const;
  Bootstrap& boot() const;

  Runtime& rt_;
  std::mutex mu_;  // one collective heap change at a time
};

}  // namespace gshmem
