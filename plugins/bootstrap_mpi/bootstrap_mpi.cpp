// gshmem's MPI bootstrap plugin (libgshmem_bootstrap_mpi.so): serves NVSHMEM_BOOTSTRAP=MPI and
// NVSHMEMX_INIT_WITH_MPI_COMM. The core never links MPI; it loads this plugin, which does.
//
// It initialises MPI when the application has not (and then finalises it), works on a duplicate of
// the given communicator (MPI_COMM_WORLD by default, a sub-communicator too), and gives gshmem one
// non-blocking broadcast with a deadline, so that a rank that never arrives cannot hang init.
// Only the C API: the C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "gshmem/plugin/bootstrap_v1.h"

namespace {

struct State {
  MPI_Comm comm = MPI_COMM_NULL;
  bool initialized_mpi = false;
};

int broadcast_root(gshmem_bootstrap_plugin_v1_t* self, void* buf, size_t bytes, double timeout_s, char* why,
                   size_t why_len) {
  State* st = static_cast<State*>(self->state);
  // A collective cannot be cancelled: after a timeout MPI may still write into the buffer, so it
  // is a heap copy that is then left alone (leaked), never the caller's.
  char* staging = new char[bytes];
  std::memcpy(staging, buf, bytes);
  MPI_Request req;
  if (MPI_Ibcast(staging, static_cast<int>(bytes), MPI_BYTE, 0, st->comm, &req) != MPI_SUCCESS) {
    delete[] staging;
    std::snprintf(why, why_len, "MPI_Ibcast failed");
    return 1;
  }
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int done = 0;
  while (true) {
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      std::snprintf(why, why_len, "MPI_Test failed");
      return 1;
    }
    if (done) {
      std::memcpy(buf, staging, bytes);
      delete[] staging;
      return 0;
    }
    if (std::chrono::steady_clock::now() > end) {
      std::snprintf(why, why_len,
                    "the MPI broadcast from rank 0 did not complete within %g s (GSHMEM_BOOTSTRAP_TIMEOUT): a rank "
                    "of the communicator did not call nvshmem init",
                    timeout_s);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void abort_job(gshmem_bootstrap_plugin_v1_t* self, int code, const char*) {
  MPI_Abort(static_cast<State*>(self->state)->comm, code);
}

int finalize(gshmem_bootstrap_plugin_v1_t* self) {
  State* st = static_cast<State*>(self->state);
  int rc = 0;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    if (st->comm != MPI_COMM_NULL) MPI_Comm_free(&st->comm);
    if (st->initialized_mpi && MPI_Finalize() != MPI_SUCCESS) rc = 1;
  }
  delete st;
  self->state = nullptr;
  return rc;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gshmem_bootstrap_plugin_init(void* arg,
                                                                                   gshmem_bootstrap_plugin_v1_t* p,
                                                                                   unsigned abi, char* why,
                                                                                   size_t why_len) {
  if (abi != GSHMEM_BOOTSTRAP_PLUGIN_ABI) {
    std::snprintf(why, why_len, "this plugin speaks ABI %d, not %u", GSHMEM_BOOTSTRAP_PLUGIN_ABI, abi);
    return 1;
  }
  State* st = new State();
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    std::snprintf(why, why_len, "MPI was already finalized");
    delete st;
    return 1;
  }
  if (!initialized) {
    if (arg) {
      std::snprintf(why, why_len, "an MPI communicator was passed, but MPI is not initialized");
      delete st;
      return 1;
    }
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      std::snprintf(why, why_len, "MPI_Init_thread failed");
      delete st;
      return 1;
    }
    st->initialized_mpi = true;
  }
  MPI_Comm base = arg ? *static_cast<MPI_Comm*>(arg) : MPI_COMM_WORLD;
  if (base == MPI_COMM_NULL || MPI_Comm_dup(base, &st->comm) != MPI_SUCCESS) {
    std::snprintf(why, why_len, "the MPI communicator is not valid (MPI_Comm_dup failed)");
    delete st;
    return 1;
  }
  MPI_Comm_rank(st->comm, &p->rank);
  MPI_Comm_size(st->comm, &p->size);
  p->abi_version = GSHMEM_BOOTSTRAP_PLUGIN_ABI;
  p->name = arg ? "MPI communicator" : "MPI";
  p->state = st;
  p->broadcast_root = broadcast_root;
  p->abort_job = abort_job;
  p->finalize = finalize;
  return 0;
}
