#include <cstdio>
#include <cstring>
#include <limits>

#include "compat/entry.h"
#include "core/kernel_launch.h"
#include "core/runtime.h"
#include "gshmem/compat/collective_launch.h"
#include "util/log.h"

namespace gshmem {
namespace compat {

void init() {
  if (!ok(host::init(host::InitAttr(), "nvshmem_init"))) log::fatal("nvshmem_init failed (see the messages above)");
}

int init_thread(int requested, int* provided) {
  Status s = host::init(host::InitAttr(), "nvshmem_init_thread");
  if (provided) *provided = NVSHMEM_THREAD_SERIALIZED;
  (void)requested;
  return to_nvshmem_status(s);
}

int init_attr(unsigned int flags, nvshmemx_init_attr_t* attributes) {
  host::InitAttr attr;
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
    attr.bootstrap = host::InitAttr::Bootstrap::kMpiComm;
    attr.mpi_comm = attributes->mpi_comm;
  }
  if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
    const nvshmemx_uniqueid_args_t& a = attributes->args.uid_args;
    if (!a.id) {
      GSHMEM_ERROR(
          "nvshmemx_init_attr: NVSHMEMX_INIT_WITH_UNIQUEID without an ID: call "
          "nvshmemx_set_attr_uniqueid_args first");
      return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    attr.bootstrap = host::InitAttr::Bootstrap::kUniqueId;
    attr.unique_id = a.id->internal;
    attr.unique_id_bytes = sizeof a.id->internal;
    attr.rank = a.myrank;
    attr.size = a.nranks;
  }
  // The device id exists from version 2 of the attributes on.
  if (attributes && (attributes->version >> 16) >= 2 && (attributes->args.version >> 16) >= 2) {
    attr.cuda_device = attributes->args.cuda_device_id;
  }
  return to_nvshmem_status(host::init(attr, "nvshmemx_init_attr"));
}

int get_uniqueid(nvshmemx_uniqueid_t* id) {
  if (!id) return NVSHMEMX_ERROR_INVALID_VALUE;
  id->version = NVSHMEMX_UNIQUEID_VERSION;
  return to_nvshmem_status(host::make_unique_id(id->internal, sizeof id->internal, "nvshmemx_get_uniqueid"));
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
  const int state = host::init_state();
  if (state != NVSHMEM_STATUS_IS_INITIALIZED) return state;
  return host::gpu_shared() ? NVSHMEM_STATUS_LIMITED_MPG : state;
}

void finalize() {
  if (!ok(host::finalize("nvshmem_finalize"))) log::fatal("nvshmem_finalize failed (see the messages above)");
}

void query_thread(int* provided) {
  if (provided) *provided = NVSHMEM_THREAD_SERIALIZED;
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

}  // namespace compat
}  // namespace gshmem

extern "C" int gshmemi_collective_launch_prepare(const char* api) {
  return static_cast<int>(gshmem::prepare_collective_launch(api));
}

extern "C" int gshmemi_collective_launch_check_grid(const char* api, unsigned grid[3], const unsigned block[3],
                                                    size_t shared_bytes, int per_sm, int sms) {
  gshmem::LaunchDims g{grid[0], grid[1], grid[2]};
  const gshmem::Status s = gshmem::check_collective_grid(&g, gshmem::LaunchDims{block[0], block[1], block[2]},
                                                         shared_bytes, per_sm, sms, api);
  grid[0] = g.x;
  grid[1] = g.y;
  grid[2] = g.z;
  return static_cast<int>(s);
}

extern "C" void gshmemi_report_error(const char* api, const char* message) { GSHMEM_ERROR("%s: %s", api, message); }
