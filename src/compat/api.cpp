#include <cstdio>
#include <cstring>
#include <limits>

#include "compat/entry.h"
#include "core/runtime.h"
#include "util/log.h"

namespace gshmem {
namespace compat {

namespace {
Runtime& rt() { return Runtime::instance(); }

int to_nvshmem_status(Status s) {
  return static_cast<int>(s) <= static_cast<int>(GSHMEM_ERROR_INTERNAL) ? static_cast<int>(s)
                                                                        : static_cast<int>(NVSHMEMX_ERROR_INTERNAL);
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

int init_status() { return rt().init_state(); }

void finalize() {
  if (!ok(rt().finalize("nvshmem_finalize"))) log::fatal("nvshmem_finalize failed (see the messages above)");
}

void query_thread(int* provided) {
  if (provided) *provided = NVSHMEM_THREAD_SERIALIZED;
}

void global_exit(int status) { rt().global_exit(status); }

int my_pe() { return rt().my_pe(); }
int n_pes() { return rt().n_pes(); }

int team_my_pe(nvshmem_team_t team) {
  const Team* t = rt().team(team);
  return t ? t->my_pe : -1;
}
int team_n_pes(nvshmem_team_t team) {
  const Team* t = rt().team(team);
  return t ? t->n_pes() : -1;
}

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
  rt().allocate(size, 1, false, &p, "nvshmem_malloc");
  return p;
}
void* calloc(size_t count, size_t size) {
  if (size != 0 && count > std::numeric_limits<size_t>::max() / size) {
    GSHMEM_ERROR("nvshmem_calloc(%zu, %zu): the size overflows", count, size);
    // Still collective: every PE makes the same call, so every PE fails here the same way.
    return nullptr;
  }
  void* p = nullptr;
  rt().allocate(count * size, 1, true, &p, "nvshmem_calloc");
  return p;
}
void* align(size_t alignment, size_t size) {
  void* p = nullptr;
  rt().allocate(size, alignment, false, &p, "nvshmem_align");
  return p;
}
void free(void* ptr) { rt().release(ptr, "nvshmem_free"); }
void* ptr(const void* p, int pe) { return rt().ptr(p, pe); }

void put(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api) {
  rt().rma(true, dest, source, bytes, pe, completion, nullptr, api);
}
void get(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api) {
  rt().rma(false, dest, source, bytes, pe, completion, nullptr, api);
}
void quiet() { rt().quiet("nvshmem_quiet"); }
// Host puts to one PE complete in order of quiet; a fence is a quiet.
void fence() { rt().quiet("nvshmem_fence"); }
void barrier_all() { rt().barrier_all("nvshmem_barrier_all"); }

void putmem_on_stream(void* dest, const void* source, size_t bytes, int pe, cudaStream_t stream) {
  rt().rma(true, dest, source, bytes, pe, Completion::kStream, stream, "nvshmemx_putmem_on_stream");
}
void getmem_on_stream(void* dest, const void* source, size_t bytes, int pe, cudaStream_t stream) {
  rt().rma(false, dest, source, bytes, pe, Completion::kStream, stream, "nvshmemx_getmem_on_stream");
}
void quiet_on_stream(cudaStream_t stream) { rt().quiet_on_stream(stream, "nvshmemx_quiet_on_stream"); }
void barrier_all_on_stream(cudaStream_t stream) {
  rt().barrier_all_on_stream(stream, "nvshmemx_barrier_all_on_stream");
}

}  // namespace compat
}  // namespace gshmem
