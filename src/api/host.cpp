// The native host API (include/gshmem/host.hpp): lifecycle, symmetric memory, one-sided operations,
// signals, waits and ordering, over the runtime's rooms (core/).
#include "gshmem/host.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/module_registry.h"
#include "core/runtime.h"
#include "util/log.h"

namespace gshmem {
namespace host {

namespace {

Runtime& rt() { return Runtime::instance(); }

// The name messages give a call: the caller's, or the native one.
const char* name(const char* api, const char* native) { return api ? api : native; }

// The wait on one signal of this PE.
WaitCall signal_wait(const uint64_t* sig, int cmp, uint64_t value) {
  WaitCall c;
  c.kind = WaitKind::kU64;
  c.ivars = sig;
  c.ivars_name = "signal";
  c.cmp = cmp;
  c.value = value;
  return c;
}

}  // namespace

// ---- Errors ----

void set_error_mode(ErrorMode mode) { log::set_misuse_throws(mode == ErrorMode::kThrow); }
const char* last_error() { return log::last_error(); }

// ---- Lifecycle and queries ----

Status init(const InitAttr& attr, const char* api) {
  InitOptions options;
  options.cuda_device = attr.cuda_device;
  switch (attr.bootstrap) {
    case InitAttr::Bootstrap::kLauncher:
      break;
    case InitAttr::Bootstrap::kUniqueId:
      options.bootstrap.kind = BootstrapRequest::Kind::kUniqueId;
      options.bootstrap.uid = attr.unique_id;
      options.bootstrap.uid_len = attr.unique_id_bytes;
      options.bootstrap.uid_rank = attr.rank;
      options.bootstrap.uid_size = attr.size;
      break;
    case InitAttr::Bootstrap::kMpiComm:
      options.bootstrap.kind = BootstrapRequest::Kind::kMpiComm;
      options.bootstrap.mpi_comm = attr.mpi_comm;
      break;
  }
  return rt().init(options, name(api, "gshmem::host::init"));
}

Status make_unique_id(void* id, size_t bytes, const char* api) {
  return rt().make_unique_id(id, bytes, name(api, "gshmem::host::make_unique_id"));
}

Status finalize(const char* api) { return rt().finalize(name(api, "gshmem::host::finalize")); }
int init_state() { return rt().init_state(); }
bool gpu_shared() { return rt().gpu_sharing() == GpuSharing::kLimited; }
int cuda_device() { return rt().cuda_device(); }
Status bind_gpu(const char* api) {
  if (rt().init_state() != 1) return GSHMEM_SUCCESS;
  return rt().ensure_bound(name(api, "gshmem::host::bind_gpu"));
}
int my_pe() { return rt().my_pe(); }
int n_pes() { return rt().n_pes(); }
void global_exit(int status) { rt().global_exit(status); }

// ---- Symmetric memory ----

void* malloc(size_t bytes, const char* api) {
  void* p = nullptr;
  rt().memory().allocate(bytes, 1, false, &p, name(api, "gshmem::host::malloc"));
  return p;
}

void* calloc(size_t count, size_t bytes, const char* api) {
  api = name(api, "gshmem::host::calloc");
  if (bytes != 0 && count > std::numeric_limits<size_t>::max() / bytes) {
    GSHMEM_ERROR("%s(%zu, %zu): the size overflows", api, count, bytes);
    // Still collective: every PE makes the same call, so every PE fails here the same way.
    return nullptr;
  }
  void* p = nullptr;
  rt().memory().allocate(count * bytes, 1, true, &p, api);
  return p;
}

void* align(size_t alignment, size_t bytes, const char* api) {
  void* p = nullptr;
  rt().memory().allocate(bytes, alignment, false, &p, name(api, "gshmem::host::align"));
  return p;
}

void* realloc(void* ptr, size_t bytes, const char* api) {
  void* out = nullptr;
  rt().memory().reallocate(ptr, bytes, &out, name(api, "gshmem::host::realloc"));
  return out;
}

void free(void* ptr, const char* api) { rt().memory().release(ptr, name(api, "gshmem::host::free")); }
void* ptr(const void* ptr, int pe) { return rt().memory().ptr(ptr, pe); }
// No multicast objects: callers fall back to unicast, as NVSHMEM's do without NVLink multicast.
void* mc_ptr(int, const void*) { return nullptr; }

void* register_buffer(void* buf, size_t bytes, int flags, const char* api) {
  void* out = nullptr;
  rt().memory().register_buffer(buf, bytes, flags, &out, name(api, "gshmem::host::register_buffer"));
  return out;
}

Status unregister_buffer(void* alias, size_t bytes, const char* api) {
  return rt().memory().unregister_buffer(alias, bytes, name(api, "gshmem::host::unregister_buffer"));
}

// ---- Remote memory access ----

size_t elem_bytes(size_t n, size_t elem, const char* api) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(n, elem, &bytes)) {
    log::misuse("%s: %zu elements of %zu bytes are more bytes than the address space holds (a negative count?)",
                name(api, "gshmem::host"), n, elem);
  }
  return bytes;
}

void putmem(void* dest, const void* src, size_t bytes, int pe, Mode mode, const char* api) {
  rt().p2p().rma(true, dest, src, bytes, pe, mode.completion, mode.stream, name(api, "gshmem::host::putmem"));
}

void getmem(void* dest, const void* src, size_t bytes, int pe, Mode mode, const char* api) {
  rt().p2p().rma(false, dest, src, bytes, pe, mode.completion, mode.stream, name(api, "gshmem::host::getmem"));
}

void iputmem(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe, Mode mode,
             const char* api) {
  rt().p2p().rma_strided(true, dest, src, dst, sst, elem, n, pe, mode.completion, mode.stream,
                         name(api, "gshmem::host::iputmem"));
}

void igetmem(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe, Mode mode,
             const char* api) {
  rt().p2p().rma_strided(false, dest, src, dst, sst, elem, n, pe, mode.completion, mode.stream,
                         name(api, "gshmem::host::igetmem"));
}

void p_on_stream(void* dest, const void* value, size_t bytes, int pe, Stream stream, const char* api) {
  rt().p2p().p_on_stream(dest, value, bytes, pe, stream, name(api, "gshmem::host::p_on_stream"));
}

void synchronize(Stream stream, const char* api) {
  rt().waits().synchronize_stream(stream, name(api, "gshmem::host::synchronize"));
}

// ---- Atomics ----

uint64_t atomic(void* dest, AmoOp op, int bytes, uint64_t operand, uint64_t compare, bool fetch, int pe,
                const char* api) {
  return rt().p2p().atomic(dest, Amo{op, bytes, operand, compare}, fetch, pe, name(api, "gshmem::host::atomic"));
}

// ---- Signals ----

void put_signal(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal, int sig_op, int pe,
                Mode mode, const char* api) {
  rt().p2p().put_signal(dest, src, bytes, sig, signal, sig_op, pe, mode.completion, mode.stream,
                        name(api, "gshmem::host::put_signal"));
}

void signal_op(uint64_t* sig, uint64_t signal, int sig_op, int pe, Mode mode, const char* api) {
  rt().p2p().signal_op(sig, signal, sig_op, pe, mode.completion, mode.stream, name(api, "gshmem::host::signal_op"));
}

uint64_t signal_fetch(const uint64_t* sig, const char* api) {
  return rt().p2p().signal_fetch(sig, name(api, "gshmem::host::signal_fetch"));
}

uint64_t signal_wait_until(uint64_t* sig, int cmp, uint64_t value, const char* api) {
  WaitCall c = signal_wait(sig, cmp, value);
  uint64_t observed = 0;
  c.observed = &observed;
  rt().waits().wait(c, name(api, "gshmem::host::signal_wait_until"));
  return observed;
}

void signal_wait_until_on_stream(uint64_t* sig, int cmp, uint64_t value, Stream stream, const char* api) {
  rt().waits().wait_on_stream(signal_wait(sig, cmp, value), stream,
                              name(api, "gshmem::host::signal_wait_until_on_stream"));
}

// ---- Waits ----

size_t wait(WaitKind kind, WaitFor what, bool block, const void* ivars, size_t n, size_t* indices, const int* status,
            int cmp, const void* values, uint64_t value, const char* api) {
  WaitCall c;
  c.kind = kind;
  c.what = what;
  c.block = block;
  c.ivars = ivars;
  c.n = n;
  c.status = status;
  c.cmp = cmp;
  c.values = values;
  c.value = value;
  c.indices = indices;
  return rt().waits().wait(c, name(api, block ? "gshmem::host::wait" : "gshmem::host::test"));
}

void wait_on_stream(WaitKind kind, const void* ivars, size_t n, const int* status, int cmp, const void* values,
                    uint64_t value, Stream stream, const char* api) {
  WaitCall c;
  c.kind = kind;
  c.ivars = ivars;
  c.n = n;
  c.status = status;
  c.cmp = cmp;
  c.values = values;
  c.value = value;
  rt().waits().wait_on_stream(c, stream, name(api, "gshmem::host::wait_on_stream"));
}

// ---- Ordering and the barrier of all PEs ----

void quiet(const char* api) { rt().quiet(name(api, "gshmem::host::quiet")); }
void fence(const char* api) { rt().fence(name(api, "gshmem::host::fence")); }
void flush(const char* api) { rt().quiet(name(api, "gshmem::host::flush")); }
void barrier_all(const char* api) { rt().barrier_all(name(api, "gshmem::host::barrier_all")); }

// ---- Local buffers ----

Status register_local_buffer(void* addr, size_t bytes, const char* api) {
  return rt().local_buffers().add(addr, bytes, name(api, "gshmem::host::register_local_buffer"));
}
Status unregister_local_buffer(void* addr, const char* api) {
  return rt().local_buffers().remove(addr, name(api, "gshmem::host::unregister_local_buffer"));
}
void unregister_local_buffers(const char*) { rt().local_buffers().clear(); }

// ---- Queue pairs ----

Status qp_create(int count, int** handles, const char* api) {
  api = name(api, "gshmem::host::qp_create");
  if (count < 0 || handles == nullptr) {
    GSHMEM_ERROR("%s: %s", api, handles == nullptr ? "the pointer for the handles is NULL" : "the count is negative");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  *handles = static_cast<int*>(std::malloc(sizeof(int) * static_cast<size_t>(count > 0 ? count : 1)));
  if (*handles == nullptr) return GSHMEM_ERROR_OUT_OF_MEMORY;
  for (int i = 0; i < count; ++i) (*handles)[i] = GSHMEM_QP_DEFAULT;
  return GSHMEM_SUCCESS;
}

// ---- RMA regions ----

Status region_start(uint64_t* handle, uint32_t hints, const char* api) {
  return rt().regions().start(handle, hints, name(api, "gshmem::host::region_start"));
}
Status region_stop(uint64_t handle, const char* api) {
  return rt().regions().stop(handle, name(api, "gshmem::host::region_stop"));
}
Status region_is_active(uint32_t hints, int* active, const char* api) {
  return rt().regions().is_active(hints, active, name(api, "gshmem::host::region_is_active"));
}

void sync_all(const char* api) { rt().sync_all(name(api, "gshmem::host::sync_all")); }
void quiet_on_stream(Stream stream, const char* api) {
  rt().quiet_on_stream(stream, name(api, "gshmem::host::quiet_on_stream"));
}
void flush_on_stream(Stream stream, const char* api) {
  rt().quiet_on_stream(stream, name(api, "gshmem::host::flush_on_stream"));
}
void barrier_all_on_stream(Stream stream, const char* api) {
  rt().barrier_all_on_stream(stream, name(api, "gshmem::host::barrier_all_on_stream"));
}
void sync_all_on_stream(Stream stream, const char* api) {
  rt().sync_all_on_stream(stream, name(api, "gshmem::host::sync_all_on_stream"));
}

// ---- CUDA modules loaded through the driver API ----

Status cumodule_init(void* module, const char* api) {
  return register_driver_module(module, false, name(api, "gshmem::host::cumodule_init"));
}
Status cumodule_finalize(void* module, const char* api) {
  return unregister_driver_module(module, name(api, "gshmem::host::cumodule_finalize"));
}
Status culibrary_init(void* library, const char* api) {
  return register_driver_module(library, true, name(api, "gshmem::host::culibrary_init"));
}
Status culibrary_finalize(void* library, const char* api) {
  return unregister_driver_module(library, name(api, "gshmem::host::culibrary_finalize"));
}

}  // namespace host
}  // namespace gshmem
