#include <cstdio>
#include <cstring>
#include <limits>

#include "compat/entry.h"
#include "core/module_registry.h"
#include "core/runtime.h"
#include "gshmem/compat/collective_launch.h"
#include "util/log.h"

namespace gshmem {
namespace compat {

namespace {
// The wait on one signal of this PE.
WaitCall signal_wait(const uint64_t* sig_addr, int cmp, uint64_t value) {
  WaitCall c;
  c.kind = WaitKind::kU64;
  c.ivars = sig_addr;
  c.ivars_name = "signal";
  c.cmp = cmp;
  c.value = value;
  return c;
}
}  // namespace

void init() {
  if (!ok(rt().init(InitOptions{}, "nvshmem_init"))) log::fatal("nvshmem_init failed (see the messages above)");
}

int init_thread(int requested, int* provided) {
  Status s = rt().init(InitOptions{}, "nvshmem_init_thread");
  if (provided) *provided = NVSHMEM_THREAD_SERIALIZED;
  (void)requested;
  return to_nvshmem_status(s);
}

int init_attr(unsigned int flags, nvshmemx_init_attr_t* attributes) {
  InitOptions options;
  if (flags & NVSHMEMX_INIT_WITH_SHMEM) {
    GSHMEM_ERROR("nvshmemx_init_attr: NVSHMEMX_INIT_WITH_SHMEM (an OpenSHMEM bootstrap) is not supported by gshmem");
    return NVSHMEMX_ERROR_NOT_SUPPORTED;
  }
  if ((flags & NVSHMEMX_INIT_WITH_MPI_COMM) && (flags & NVSHMEMX_INIT_WITH_UNIQUEID)) {
    GSHMEM_ERROR("nvshmemx_init_attr: NVSHMEMX_INIT_WITH_MPI_COMM and NVSHMEMX_INIT_WITH_UNIQUEID exclude each other");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if ((flags & (NVSHMEMX_INIT_WITH_MPI_COMM | NVSHMEMX_INIT_WITH_UNIQUEID)) && !attributes) {
    GSHMEM_ERROR("nvshmemx_init_attr: the flags 0x%x need attributes, but the attributes are NULL", flags);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if (flags & NVSHMEMX_INIT_WITH_MPI_COMM) {
    options.bootstrap.kind = BootstrapRequest::Kind::kMpiComm;
    options.bootstrap.mpi_comm = attributes->mpi_comm;
  }
  if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
    const nvshmemx_uniqueid_args_t& a = attributes->args.uid_args;
    if (!a.id) {
      GSHMEM_ERROR(
          "nvshmemx_init_attr: NVSHMEMX_INIT_WITH_UNIQUEID without an ID: call "
          "nvshmemx_set_attr_uniqueid_args first");
      return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    options.bootstrap.kind = BootstrapRequest::Kind::kUniqueId;
    options.bootstrap.uid = a.id->internal;
    options.bootstrap.uid_len = sizeof a.id->internal;
    options.bootstrap.uid_rank = a.myrank;
    options.bootstrap.uid_size = a.nranks;
  }
  // The device id exists from version 2 of the attributes on.
  if (attributes && (attributes->version >> 16) >= 2 && (attributes->args.version >> 16) >= 2) {
    options.cuda_device = attributes->args.cuda_device_id;
  }
  return to_nvshmem_status(rt().init(options, "nvshmemx_init_attr"));
}

int get_uniqueid(nvshmemx_uniqueid_t* id) {
  if (!id) return NVSHMEMX_ERROR_INVALID_VALUE;
  id->version = NVSHMEMX_UNIQUEID_VERSION;
  return to_nvshmem_status(rt().make_unique_id(id->internal, sizeof id->internal, "nvshmemx_get_uniqueid"));
}

int set_attr_uniqueid_args(int myrank, int nranks, const nvshmemx_uniqueid_t* id, nvshmemx_init_attr_t* attributes) {
  if (!id || !attributes) return NVSHMEMX_ERROR_INVALID_VALUE;
  attributes->args.uid_args.version = NVSHMEMX_UNIQUEID_ARGS_VERSION;
  // NVSHMEM keeps the pointer, not a copy: the ID must live until init returns.
  attributes->args.uid_args.id = const_cast<nvshmemx_uniqueid_t*>(id);
  attributes->args.uid_args.myrank = myrank;
  attributes->args.uid_args.nranks = nranks;
  return 0;
}

int set_attr_mpi_comm_args(void* mpi_comm, nvshmemx_init_attr_t* attributes) {
  if (!attributes) return NVSHMEMX_ERROR_INVALID_VALUE;
  attributes->mpi_comm = mpi_comm;
  return 0;
}

// Once a GPU is bound, PEs that share GPUs report NVSHMEM's MPG states instead of "initialised".
int init_status() {
  const int state = rt().init_state();
  if (state != kInitialized) return state;
  return rt().gpu_sharing() == GpuSharing::kLimited ? NVSHMEM_STATUS_LIMITED_MPG : state;
}

void finalize() {
  if (!ok(rt().finalize("nvshmem_finalize"))) log::fatal("nvshmem_finalize failed (see the messages above)");
}

void query_thread(int* provided) {
  if (provided) *provided = NVSHMEM_THREAD_SERIALIZED;
}

void global_exit(int status) { rt().global_exit(status); }

int my_pe() { return rt().my_pe(); }
int n_pes() { return rt().n_pes(); }

void info_get_version(int* major, int* minor) {
  *major = NVSHMEM_MAJOR_VERSION;
  *minor = NVSHMEM_MINOR_VERSION;
}
void info_get_name(char* name) { std::snprintf(name, NVSHMEM_MAX_NAME_LEN, "%s", NVSHMEM_VENDOR_STRING); }
void vendor_get_version_info(int* major, int* minor, int* patch) {
  *major = NVSHMEM_VENDOR_MAJOR_VERSION;
  *minor = NVSHMEM_VENDOR_MINOR_VERSION;
  *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}

void* malloc(size_t size) {
  void* p = nullptr;
  rt().memory().allocate(size, 1, false, &p, "nvshmem_malloc");
  return p;
}
void* calloc(size_t count, size_t size) {
  if (size != 0 && count > std::numeric_limits<size_t>::max() / size) {
    GSHMEM_ERROR("nvshmem_calloc(%zu, %zu): the size overflows", count, size);
    // Still collective: every PE makes the same call, so every PE fails here the same way.
    return nullptr;
  }
  void* p = nullptr;
  rt().memory().allocate(count * size, 1, true, &p, "nvshmem_calloc");
  return p;
}
void* align(size_t alignment, size_t size) {
  void* p = nullptr;
  rt().memory().allocate(size, alignment, false, &p, "nvshmem_align");
  return p;
}
void* realloc(void* p, size_t size) {
  void* out = nullptr;
  rt().memory().reallocate(p, size, &out, "nvshmem_realloc");
  return out;
}
void free(void* ptr) { rt().memory().release(ptr, "nvshmem_free"); }
void* mc_ptr(int team, const void* p) {
  (void)team;
  (void)p;
  return nullptr;  // no multicast objects: callers fall back to unicast, as NVSHMEM's do without NVLS
}
void* ptr(const void* p, int pe) { return rt().memory().ptr(p, pe); }
void* buffer_register_symmetric(void* buf, size_t size, int flags) {
  void* out = nullptr;
  rt().memory().register_buffer(buf, size, flags, &out, "nvshmemx_buffer_register_symmetric");
  return out;
}
int buffer_unregister_symmetric(void* mmap_ptr, size_t size) {
  return to_nvshmem_status(rt().memory().unregister_buffer(mmap_ptr, size, "nvshmemx_buffer_unregister_symmetric"));
}

size_t elem_bytes(size_t nelems, size_t elem, const char* api) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(nelems, elem, &bytes)) {
    log::fatal("%s: %zu elements of %zu bytes are more bytes than the address space holds (a negative count?)", api,
               nelems, elem);
  }
  return bytes;
}

void put(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api,
         cudaStream_t stream) {
  rt().p2p().rma(true, dest, source, bytes, pe, completion, stream, api);
}
void get(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api,
         cudaStream_t stream) {
  rt().p2p().rma(false, dest, source, bytes, pe, completion, stream, api);
}
void iput(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems, int pe,
          Completion completion, const char* api, cudaStream_t stream) {
  rt().p2p().rma_strided(true, dest, source, dst, sst, elem, nelems, pe, completion, stream, api);
}
void iget(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems, int pe,
          Completion completion, const char* api, cudaStream_t stream) {
  rt().p2p().rma_strided(false, dest, source, dst, sst, elem, nelems, pe, completion, stream, api);
}
void p_on_stream(void* dest, const void* value, size_t bytes, int pe, cudaStream_t stream, const char* api) {
  rt().p2p().p_on_stream(dest, value, bytes, pe, stream, api);
}
void synchronize(cudaStream_t stream, const char* api) { rt().waits().synchronize_stream(stream, api); }

uint64_t atomic(void* dest, AmoOp op, int bytes, uint64_t operand, uint64_t compare, bool fetch, int pe,
                const char* api) {
  return rt().p2p().atomic(dest, Amo{op, bytes, operand, compare}, fetch, pe, api);
}

void put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                Completion completion, const char* api, cudaStream_t stream) {
  rt().p2p().put_signal(dest, source, bytes, sig_addr, signal, sig_op, pe, completion, stream, api);
}
void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion, const char* api,
               cudaStream_t stream) {
  rt().p2p().signal_op(sig_addr, signal, sig_op, pe, completion, stream, api);
}
uint64_t signal_fetch(const uint64_t* sig_addr, const char* api) { return rt().p2p().signal_fetch(sig_addr, api); }
uint64_t signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t value, const char* api) {
  WaitCall c = signal_wait(sig_addr, cmp, value);
  uint64_t observed = 0;
  c.observed = &observed;
  rt().waits().wait(c, api);
  return observed;
}
void signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t value, cudaStream_t stream, const char* api) {
  rt().waits().wait_on_stream(signal_wait(sig_addr, cmp, value), stream, api);
}

size_t wait(WaitKind kind, WaitFor what, bool block, const void* ivars, size_t nelems, size_t* indices,
            const int* status, int cmp, const void* values, uint64_t value, const char* api) {
  WaitCall c;
  c.kind = kind;
  c.what = what;
  c.block = block;
  c.ivars = ivars;
  c.n = nelems;
  c.status = status;
  c.cmp = cmp;
  c.values = values;
  c.value = value;
  c.indices = indices;
  return rt().waits().wait(c, api);
}
void wait_on_stream(WaitKind kind, const void* ivars, size_t nelems, const int* status, int cmp, const void* values,
                    uint64_t value, cudaStream_t stream, const char* api) {
  WaitCall c;
  c.kind = kind;
  c.ivars = ivars;
  c.n = nelems;
  c.status = status;
  c.cmp = cmp;
  c.values = values;
  c.value = value;
  rt().waits().wait_on_stream(c, stream, api);
}

void quiet() { rt().quiet("nvshmem_quiet"); }
void fence() { rt().fence("nvshmem_fence"); }
void barrier_all() { rt().barrier_all("nvshmem_barrier_all"); }
void sync_all() { rt().sync_all("nvshmem_sync_all"); }

void quiet_on_stream(cudaStream_t stream) { rt().quiet_on_stream(stream, "nvshmemx_quiet_on_stream"); }
void barrier_all_on_stream(cudaStream_t stream) {
  rt().barrier_all_on_stream(stream, "nvshmemx_barrier_all_on_stream");
}
void sync_all_on_stream(cudaStream_t stream) { rt().sync_all_on_stream(stream, "nvshmemx_sync_all_on_stream"); }

int cumodule_init(void* module) {
  return to_nvshmem_status(register_driver_module(module, false, "nvshmemx_cumodule_init"));
}
int cumodule_finalize(void* module) {
  return to_nvshmem_status(unregister_driver_module(module, "nvshmemx_cumodule_finalize"));
}
int culibrary_init(void* library) {
  return to_nvshmem_status(register_driver_module(library, true, "nvshmemx_culibrary_init"));
}
int culibrary_finalize(void* library) {
  return to_nvshmem_status(unregister_driver_module(library, "nvshmemx_culibrary_finalize"));
}

}  // namespace compat
}  // namespace gshmem

extern "C" int gshmemi_collective_launch_prepare(const char* api) {
  using namespace gshmem;
  Runtime& r = Runtime::instance();
  if (r.init_state() == kNotInitialized) {
    GSHMEM_ERROR("%s was called before nvshmem_init", api);
    return NVSHMEMX_ERROR_GPU_NOT_SELECTED;
  }
  if (r.backend() != Backend::kGpu) {
    GSHMEM_ERROR("%s: this job runs on the CPU backend (GSHMEM_BACKEND), which has no GPU to launch on", api);
    return NVSHMEMX_ERROR_NOT_SUPPORTED;
  }
  Status s = r.ensure_bound(api);
  if (!ok(s)) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  if (r.gpu_sharing() == GpuSharing::kLimited) {
    // The GPU runs the PEs' contexts in turns, so kernels that wait for each other still make progress
    // (each waits through the others' time slices): allowed, as NVSHMEM allows it, with one warning.
    static bool warned = false;
    if (!warned) {
      warned = true;
      GSHMEM_WARN(kInit,
                  "%s: PEs share a GPU (NVSHMEM_STATUS_LIMITED_MPG; the init warning names them): their grids are not "
                  "resident at once, and kernels that wait for each other progress only as the GPU switches between "
                  "the PEs' contexts, which makes every wait slow; give each PE a GPU of its own for full speed",
                  api);
    }
  }
  return 0;
}

extern "C" void gshmemi_report_error(const char* api, const char* message) { GSHMEM_ERROR("%s: %s", api, message); }
