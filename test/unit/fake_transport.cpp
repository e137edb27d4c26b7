// The unit tests' network transport plugin (fake_transport.h).
#include "fake_transport.h"

#include <cstdio>
#include <cstring>

namespace {

FakeTransportState g_state;

int fake_connect(gshmem_transport_plugin_v1_t*, const unsigned char*, char*, size_t) { return 0; }
void fake_describe(gshmem_transport_plugin_v1_t*, int, char* out, size_t len) { std::snprintf(out, len, "fake"); }
int fake_add_memory(gshmem_transport_plugin_v1_t*, void*, size_t, uint64_t, int mem_type, char*, size_t) {
  g_state.mem_type = mem_type;
  return 0;
}
// The result of an operation that was issued: _IN_PROGRESS for a non-blocking one when asked to.
int issued(int blocking) {
  return !blocking && g_state.in_progress ? GSHMEM_TRANSPORT_IN_PROGRESS : GSHMEM_TRANSPORT_OK;
}

bool out_of_resources() {
  if (g_state.no_resources <= 0) return false;
  --g_state.no_resources;
  return true;
}

int fake_put(gshmem_transport_plugin_v1_t*, int pe, uint64_t offset, const void* src, size_t bytes, int blocking,
             char* why, size_t len) {
  if (out_of_resources()) return GSHMEM_TRANSPORT_NO_RESOURCES;
  g_state.calls.push_back({true, pe, offset, src, bytes, blocking});
  if (offset + bytes > g_state.remote.size()) return std::snprintf(why, len, "outside PE 1's heap") > 0;
  std::memcpy(g_state.remote.data() + offset, src, bytes);
  return issued(blocking);
}
int fake_get(gshmem_transport_plugin_v1_t*, void* dst, int pe, uint64_t offset, size_t bytes, int blocking, char* why,
             size_t len) {
  if (out_of_resources()) return GSHMEM_TRANSPORT_NO_RESOURCES;
  g_state.calls.push_back({false, pe, offset, dst, bytes, blocking});
  if (offset + bytes > g_state.remote.size()) return std::snprintf(why, len, "outside PE 1's heap") > 0;
  std::memcpy(dst, g_state.remote.data() + offset, bytes);
  return issued(blocking);
}
int fake_atomic(gshmem_transport_plugin_v1_t*, int, uint64_t, int, int, uint64_t, uint64_t, uint64_t*, int blocking,
                char*, size_t) {
  if (out_of_resources()) return GSHMEM_TRANSPORT_NO_RESOURCES;
  return issued(blocking);
}
int fake_fence(gshmem_transport_plugin_v1_t*, char*, size_t) {
  ++g_state.fences;
  return 0;
}
int fake_put_flagged(gshmem_transport_plugin_v1_t*, int, uint64_t offset, const void* src, size_t bytes,
                     uint64_t flag_offset, uint64_t flag, char* why, size_t len) {
  if (out_of_resources()) return GSHMEM_TRANSPORT_NO_RESOURCES;
  if (offset + bytes > g_state.remote.size() || flag_offset + 8 > g_state.remote.size()) {
    return std::snprintf(why, len, "outside PE 1's heap") > 0;
  }
  ++g_state.flagged;
  if (bytes > 0) std::memcpy(g_state.remote.data() + offset, src, bytes);
  std::memcpy(g_state.remote.data() + flag_offset, &flag, sizeof flag);
  return GSHMEM_TRANSPORT_OK;
}
int fake_quiet(gshmem_transport_plugin_v1_t*, char*, size_t) {
  ++g_state.quiets;
  return 0;
}
int fake_progress(gshmem_transport_plugin_v1_t*) {
  ++g_state.progress_calls;
  if (g_state.progress_moves <= 0) return 0;
  --g_state.progress_moves;
  return 1;
}
int fake_finalize(gshmem_transport_plugin_v1_t*) { return 0; }

}  // namespace

extern "C" __attribute__((visibility("default"))) FakeTransportState* fake_transport_state() { return &g_state; }

extern "C" __attribute__((visibility("default"))) int gshmem_transport_plugin_init(
    const gshmem_transport_services_v1_t* sv, gshmem_transport_plugin_v1_t* p, unsigned abi_version, char*, size_t) {
  if (abi_version != GSHMEM_TRANSPORT_PLUGIN_ABI) return 1;
  g_state.services = *sv;
  g_state.remote.assign(16u << 20, 0);
  g_state.calls.clear();
  g_state.no_resources = 0;
  g_state.in_progress = false;
  g_state.quiets = 0;
  g_state.progress_calls = 0;
  g_state.progress_moves = 0;
  g_state.flagged = 0;
  g_state.fences = 0;
  p->abi_version = GSHMEM_TRANSPORT_PLUGIN_ABI;
  p->name = "fake";
  p->caps = 0;
  p->connect = fake_connect;
  p->describe = fake_describe;
  p->add_memory = fake_add_memory;
  p->put = fake_put;
  p->get = fake_get;
  p->atomic = fake_atomic;
  p->fence = fake_fence;
  p->quiet = fake_quiet;
  p->progress = g_state.has_progress ? fake_progress : nullptr;
  p->finalize = fake_finalize;
  p->put_flagged = g_state.has_put_flagged ? fake_put_flagged : nullptr;
  return 0;
}
