// gshmem's PMIx bootstrap plugin (libgshmem_bootstrap_pmix.so): serves jobs started by a PMIx
// server (Open MPI's mpirun, srun --mpi=pmix). The core never links libpmix; it loads this plugin.
#include <pmix.h>

#include <cstdio>
#include <cstring>

#include "gshmem/plugin/bootstrap_v1.h"

namespace {

constexpr const char* kRootKey = "gshmem-root";

struct State {
  pmix_proc_t me;
};

int broadcast_root(gshmem_bootstrap_plugin_v1_t* self, void* buf, size_t bytes, double timeout_s, char* why,
                   size_t why_len) {
  State* st = static_cast<State*>(self->state);
  pmix_status_t rc;
  if (self->rank == 0) {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = static_cast<char*>(buf);
    v.data.bo.size = bytes;
    if ((rc = PMIx_Put(PMIX_GLOBAL, kRootKey, &v)) != PMIX_SUCCESS || (rc = PMIx_Commit()) != PMIX_SUCCESS) {
      std::snprintf(why, why_len, "PMIx_Put/Commit failed: %s", PMIx_Error_string(rc));
      return 1;
    }
  }
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, st->me.nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info[2];
  bool collect = true;
  int timeout = timeout_s < 1 ? 1 : static_cast<int>(timeout_s);
  PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
  rc = PMIx_Fence(&all, 1, info, 2);
  if (rc != PMIX_SUCCESS) {
    std::snprintf(why, why_len, "the PMIx fence failed (%s)%s", PMIx_Error_string(rc),
                  rc == PMIX_ERR_TIMEOUT ? ": a process of the job did not call nvshmem init within the "
                                           "GSHMEM_BOOTSTRAP_TIMEOUT, and PMIx does not say which"
                                         : "");
    return 1;
  }
  if (self->rank == 0) return 0;
  pmix_proc_t root;
  PMIX_LOAD_PROCID(&root, st->me.nspace, 0);
  pmix_value_t* got = nullptr;
  if ((rc = PMIx_Get(&root, kRootKey, nullptr, 0, &got)) != PMIX_SUCCESS || got->type != PMIX_BYTE_OBJECT ||
      got->data.bo.size != bytes) {
    std::snprintf(why, why_len, "PMIx_Get of rank 0's bootstrap address failed: %s", PMIx_Error_string(rc));
    if (got) PMIX_VALUE_RELEASE(got);
    return 1;
  }
  std::memcpy(buf, got->data.bo.bytes, bytes);
  PMIX_VALUE_RELEASE(got);
  return 0;
}

void abort_job(gshmem_bootstrap_plugin_v1_t*, int code, const char* why) { PMIx_Abort(code, why, nullptr, 0); }

int finalize(gshmem_bootstrap_plugin_v1_t* self) {
  delete static_cast<State*>(self->state);
  self->state = nullptr;
  return PMIx_Finalize(nullptr, 0) == PMIX_SUCCESS ? 0 : 1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gshmem_bootstrap_plugin_init(void*,
                                                                                   gshmem_bootstrap_plugin_v1_t* p,
                                                                                   unsigned abi, char* why,
                                                                                   size_t why_len) {
  if (abi != GSHMEM_BOOTSTRAP_PLUGIN_ABI) {
    std::snprintf(why, why_len, "this plugin speaks ABI %d, not %u", GSHMEM_BOOTSTRAP_PLUGIN_ABI, abi);
    return 1;
  }
  State* st = new State();
  pmix_status_t rc = PMIx_Init(&st->me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    std::snprintf(why, why_len, "PMIx_Init failed: %s (is this process started by a PMIx server?)",
                  PMIx_Error_string(rc));
    delete st;
    return 1;
  }
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, st->me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* v = nullptr;
  if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &v)) != PMIX_SUCCESS) {
    std::snprintf(why, why_len, "PMIx_Get(PMIX_JOB_SIZE) failed: %s", PMIx_Error_string(rc));
    PMIx_Finalize(nullptr, 0);
    delete st;
    return 1;
  }
  p->size = static_cast<int>(v->data.uint32);
  PMIX_VALUE_RELEASE(v);
  p->rank = static_cast<int>(st->me.rank);
  p->abi_version = GSHMEM_BOOTSTRAP_PLUGIN_ABI;
  p->name = "PMIx";
  p->state = st;
  p->broadcast_root = broadcast_root;
  p->abort_job = abort_job;
  p->finalize = finalize;
  return 0;
}
