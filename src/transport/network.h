// The network transport: how this PE reaches the PEs whose heaps it does not map (PEs on other hosts,
// or every other PE with NVSHMEM_DISABLE_P2P). A plugin library does the work
// (include/gshmem/plugin/transport_v1.h; UCX today), so libgshmem_host links no network library.
// Remote memory is named by PE and heap offset: there is no address of it in this process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gshmem/plugin/transport_v1.h"
#include "transport/transport.h"
#include "util/status.h"

namespace gshmem {

class Bootstrap;

// What a transport does by itself, as its plugin declares it.
struct TransportCaps {
  bool gpu_memory = false;  // registers GPU memory (else a GPU heap needs host staging)
};

// What the network transport needs of this PE's own memory (the core provides it).
struct LocalMemory {
  // Applies an atomic to this PE's heap at a heap offset (the target side of a peer's atomic, which the
  // plugin may carry to this PE; see transport_v1.h). Called from the plugin's threads.
  std::function<Status(uint64_t offset, const Amo& amo, uint64_t* old)> atomic;
  // Copies between host memory and this PE's heap at a heap offset, waiting for it (the target side of
  // a peer's put or get on staged memory). Called from the plugin's threads.
  std::function<Status(uint64_t offset, void* host, size_t bytes, bool to_heap)> copy_heap;
  // Whether the CPU cannot read `p` (GPU memory): with a staged heap, such local buffers of puts and
  // gets go through host buffers.
  std::function<bool(const void* p)> on_gpu;
  // Copies between any two buffers of this process (GPU or host memory), waiting for it.
  std::function<Status(void* dst, const void* src, size_t bytes)> copy;
};

// Told by a thread that has waited inside the plugin for `waited_s` seconds, about once a second (see
// services.waiting in transport_v1.h): `pe` is the PE it waits for (-1: unknown), `what` what it waits for,
// `last_s` the wait's time at the previous report (0: the first). The core warns and may end the job.
using NetworkWaitReport = std::function<void(int pe, const char* what, double waited_s, double last_s)>;

class NetworkTransport {
 public:
  // Loads the plugin `path` on every PE and connects each PE to those with reach[pe] (the rows agree:
  // see transport_v1.h). Collective over all PEs; every PE gets the same result: a PE that cannot load or
  // start the plugin fails the call on all of them, and *why names the PEs and their reasons. `waiting`
  // hears of the waits inside the plugin that last (from connect on).
  static Status open(const std::string& path, Bootstrap* boot, const std::vector<unsigned char>& reach,
                     LocalMemory local, NetworkWaitReport waiting, std::unique_ptr<NetworkTransport>* out,
                     std::string* why);
  ~NetworkTransport();
  NetworkTransport(const NetworkTransport&) = delete;
  NetworkTransport& operator=(const NetworkTransport&) = delete;

  const char* name() const { return plugin_.name; }
  const TransportCaps& caps() const { return caps_; }
  bool reaches(int pe) const { return pe >= 0 && pe < static_cast<int>(reach_.size()) && reach_[pe]; }
  // One line: the library and what it chose to reach `pe`.
  std::string describe(int pe) const;

  // Stages the heap: add_memory registers nothing, and the peers' puts and gets on it travel with their
  // data in the network library's messages, applied here through LocalMemory::copy_heap (for GPU heaps
  // that the library cannot register, or every heap with GSHMEM_NET_STAGING=always). This PE's GPU
  // buffers of puts and gets then go through host buffers. Before add_memory.
  void set_staged(bool staged) { staged_ = staged; }
  bool staged() const { return staged_; }

  // Registers this PE's memory [addr, addr + bytes) as heap offsets [offset, offset + bytes). Collective.
  Status add_memory(void* addr, uint64_t bytes, uint64_t offset, bool gpu_memory);
  // Copies to or from `pe`'s heap at `offset`. kBlocking: the local buffer may be reused (put) or holds
  // the data (get) on return; kNbi: after quiet. The remote side is complete after quiet.
  Status put(int pe, uint64_t offset, const void* src, size_t bytes, Completion completion);
  Status get(void* dst, int pe, uint64_t offset, size_t bytes, Completion completion);
  // `amo` on the word at `offset` of `pe`; with `fetched` the previous value is stored there, on return
  // (kBlocking) or by quiet (kNbi: *fetched must stay valid until then). The operation completes by quiet.
  Status atomic(int pe, uint64_t offset, const Amo& amo, uint64_t* fetched,
                Completion completion = Completion::kBlocking);
  Status fence();
  Status quiet();
  // `bytes` (at most kFlaggedBytes) from host memory `src` to `offset` of `pe`, then `flag` into the 8-byte
  // word at `flag_offset` (one writer, only grows): the peer sees the data when it sees the flag. One message
  // where the plugin has put_flagged (transport_v1.h: no quiet waits for it), else a put, a fence and a put.
  Status put_flagged(int pe, uint64_t offset, const void* src, size_t bytes, uint64_t flag_offset, uint64_t flag);
  static constexpr size_t kFlaggedBytes = 4096;
  // Takes what has arrived off the network on this thread, without waiting (the plugin's optional
  // progress, transport_v1.h); whether something moved. For threads that poll this PE's memory for what
  // a peer writes through the network.
  bool progress() { return plugin_.progress != nullptr && plugin_.progress(&plugin_) != 0; }
  // Disconnects. Called after a quiet and a barrier of every PE; not collective itself (a PE that
  // skipped a collective must be able to leave, so that the others see it go and say so).
  Status finalize();

 private:
  NetworkTransport() = default;
  // A failed call of the plugin: logged with the operation, the PE and the plugin's reason.
  Status failed(const char* what, int pe, const char* why) const;
  // What the failure of an operation on `pe` (-1: on any peer) owes to peers that already left the
  // job: a sentence to append, or "".
  std::string left_note(int pe) const;

  // Issues a put, get or atomic through `call(why, why_len)` (a plugin call): _OK and _IN_PROGRESS are
  // issued; _NO_RESOURCES completes what is outstanding (a quiet) and tries again, at most kTries times;
  // anything else fails with the plugin's reason and "`what` of `bytes` bytes" (the operation, for the message).
  template <class Call>
  Status issue(const char* what, size_t bytes, int pe, Call&& call);
  static constexpr int kTries = 64;

  // A put or get of this PE's GPU buffer through host buffers, in pieces (staged heaps).
  Status put_staged(int pe, uint64_t offset, const void* src, size_t bytes);
  Status get_staged(void* dst, int pe, uint64_t offset, size_t bytes);

  Bootstrap* boot_ = nullptr;
  LocalMemory local_;
  bool staged_ = false;
  bool gpu_heap_ = false;  // some of the heap is GPU memory (add_memory)
  friend int services_allgather(void* ctx, const void* mine, void* all, size_t bytes);
  friend int services_local_atomic(void* ctx, uint64_t offset, int op, int bytes, uint64_t operand, uint64_t compare,
                                   uint64_t* old);
  friend int services_local_copy(void* ctx, uint64_t offset, void* host, size_t bytes, int to_heap);
  friend void services_waiting(void* ctx, int pe, const char* what, double waited_s, double last_s);
  NetworkWaitReport waiting_;
  gshmem_transport_services_v1_t services_{};
  gshmem_transport_plugin_v1_t plugin_{};
  std::vector<unsigned char> reach_;
  TransportCaps caps_;
  bool open_ = false;
};

}  // namespace gshmem
