// Where the symmetric heap's memory comes from. Two providers: host shared memory (memfd, the CPU
// backend) and GPU memory through CUDA VMM. Both hand out physical chunks that can be exported as
// a POSIX file descriptor, passed to a PE on the same node, imported there and mapped into its
// address space, which is how each PE sees every local peer's heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "util/status.h"

namespace gshmem {

class MemoryProvider {
 public:
  virtual ~MemoryProvider() = default;
  virtual const char* name() const = 0;
  // Unit of reservation, mapping and growth; every size and address below is a multiple of it.
  virtual uint64_t granularity() const = 0;
  // Reserves `bytes` of address space without backing, starting at a multiple of `align` (a power
  // of two, at least the granularity): the heap's alignment promise rests on it.
  virtual Status reserve(uint64_t bytes, uint64_t align, char** base) = 0;
  virtual void unreserve(char* base, uint64_t bytes) = 0;
  // Creates `bytes` of physical memory. `*fd` is a descriptor for local peers, owned by the caller.
  virtual Status create(uint64_t bytes, uint64_t* handle, int* fd) = 0;
  // Creates a handle for a peer's chunk from the descriptor it sent. Does not take `fd`.
  virtual Status import(int fd, uint64_t bytes, uint64_t* handle) = 0;
  // Maps a chunk at `addr` (inside a reservation) with read/write access for this PE.
  virtual Status map(char* addr, uint64_t bytes, uint64_t handle) = 0;
  virtual void unmap(char* addr, uint64_t bytes) = 0;
  virtual void release(uint64_t handle) = 0;
  // Whether a handle must be kept until its memory is unmapped. A memfd need not be: the mapping
  // keeps the memory, so the heap closes it at once instead of holding a descriptor per chunk.
  virtual bool keeps_handle_while_mapped() const { return true; }
  // Sets `bytes` at `addr` (mapped) to zero and waits until that is done.
  virtual Status zero(char* addr, uint64_t bytes) = 0;
  // Free physical memory where the provider can tell (for out-of-memory messages); 0 if unknown.
  virtual uint64_t free_memory() const { return 0; }

  // A buffer of the program's own that the heap maps into the symmetric windows
  // (nvshmemx_buffer_register_symmetric).
  struct UserBuffer {
    uint64_t handle = 0;  // a reference of the heap's own to the memory: release() it
    int fd = -1;          // the descriptor for local peers, owned by the caller
    uint64_t bytes = 0;   // the whole allocation: a mapping of it takes all of it
    uint64_t align = 0;   // a mapping of it starts at a multiple of this
  };
  // Takes a reference to the allocation that starts at `buf` once `size` bytes of it (not 0) are
  // found to be registrable; otherwise logs why, naming `api`, and returns an error.
  virtual Status adopt(void* buf, uint64_t size, const char* api, UserBuffer* out) = 0;
};

std::unique_ptr<MemoryProvider> make_host_memory_provider();
#ifdef GSHMEM_HAVE_CUDA
// GPU memory of CUDA device `device` (an ordinal of this process), whose context is current.
Status make_gpu_memory_provider(int device, std::unique_ptr<MemoryProvider>* out);
#endif

}  // namespace gshmem
