// A network transport plugin for the unit tests (fake_transport.cpp): one peer, PE 1, whose heap is a
// buffer in this process. It records every put and get and what add_memory was told, so that the tests
// can check what the core hands the plugin; fake_transport_state() (looked up with dlsym) exposes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gshmem/plugin/transport_v1.h"

struct FakeTransportCall {
  bool put = false;  // else a get
  int pe = -1;
  uint64_t offset = 0;
  const void* local = nullptr;
  size_t bytes = 0;
  int blocking = 0;
};

struct FakeTransportState {
  gshmem_transport_services_v1_t services{};
  std::vector<char> remote;  // PE 1's heap
  std::vector<FakeTransportCall> calls;
  int mem_type = -1;  // of the last add_memory
  // The results of the next puts, gets and atomics: this many return GSHMEM_TRANSPORT_NO_RESOURCES (and
  // issue nothing) before the others are issued; non-blocking ones return _IN_PROGRESS when set.
  int no_resources = 0;
  bool in_progress = false;
  int quiets = 0;  // quiet calls so far
  // progress: whether the plugin offers it (read by init), its calls so far, and how many of the next
  // calls report that something moved.
  bool has_progress = true;
  int progress_calls = 0;
  int progress_moves = 0;
  // put_flagged: whether the plugin offers it (read by init), the messages it sent (data, then the flag
  // into the 8-byte word at flag_offset of PE 1's heap), and fences so far.
  bool has_put_flagged = true;
  int flagged = 0;
  int fences = 0;
};

using FakeTransportStateFn = FakeTransportState* (*)();
#define FAKE_TRANSPORT_STATE_SYMBOL "fake_transport_state"
