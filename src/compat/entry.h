// NVSHMEM's host API behind the generated extern "C" names (src/compat/gen/nvshmem_host.cpp): one-line
// forwards into the native host API (gshmem/host.hpp), which has the semantics, with NVSHMEM's names in
// messages and NVSHMEM's status codes; what NVSHMEM's own structs need is in compat/api.cpp and
// compat/coll_api.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/runtime.h"
#include "gshmem/compat/gen/nvshmem_host.h"
#include "gshmem/compat/nvshmem_types.h"
#include "gshmem/detail/reduce_algo.h"
#include "gshmem/device/smem.cuh"
#include "gshmem/host.hpp"

namespace gshmem {
namespace compat {

inline Runtime& rt() { return Runtime::instance(); }

// gshmem's status as NVSHMEM's code: the codes NVSHMEM has are the same numbers; gshmem's own ones
// become NVSHMEMX_ERROR_INTERNAL.
inline int to_nvshmem_status(Status s) {
  return static_cast<int>(s) <= static_cast<int>(GSHMEM_ERROR_INTERNAL) ? static_cast<int>(s)
                                                                        : static_cast<int>(NVSHMEMX_ERROR_INTERNAL);
}
inline host::Mode mode(Completion c, cudaStream_t stream) { return host::Mode{c, stream}; }
inline host::Mode on_stream(cudaStream_t stream) { return host::on(stream); }

// What NVSHMEM's names need beyond the native API: its structs and its codes (compat/api.cpp,
// compat/coll_api.cpp).
void init();
int init_thread(int requested, int* provided);
int init_attr(unsigned int flags, nvshmemx_init_attr_t* attributes);
int get_uniqueid(nvshmemx_uniqueid_t* id);
int set_attr_uniqueid_args(int myrank, int nranks, const nvshmemx_uniqueid_t* id, nvshmemx_init_attr_t* attributes);
int set_attr_mpi_comm_args(void* mpi_comm, nvshmemx_init_attr_t* attributes);
int init_status();
void finalize();
void query_thread(int* provided);
void info_get_version(int* major, int* minor);
void info_get_name(char* name);
void vendor_get_version_info(int* major, int* minor, int* patch);
int team_split_strided(nvshmem_team_t parent, int start, int stride, int size, const nvshmem_team_config_t* config,
                       long mask, nvshmem_team_t* new_team);
int team_split_2d(nvshmem_team_t parent, int xrange, const nvshmem_team_config_t* xconfig, long xmask,
                  nvshmem_team_t* xteam, const nvshmem_team_config_t* yconfig, long ymask, nvshmem_team_t* yteam);
int team_get_config(nvshmem_team_t team, nvshmem_team_config_t* config);
int team_get_uniqueid(nvshmemx_team_uniqueid_t* uniqueid);
int team_init(nvshmem_team_t* team, nvshmem_team_config_t* config, long mask, int npes, int pe_idx_in_team);

// The rest: one line each into the native host API (gshmem/host.hpp), with NVSHMEM's names in messages.
[[noreturn]] inline void global_exit(int status) { host::global_exit(status); }
inline int my_pe() { return host::my_pe(); }
inline int n_pes() { return host::n_pes(); }
inline int team_my_pe(nvshmem_team_t team) { return host::team_my_pe(team); }
inline int team_n_pes(nvshmem_team_t team) { return host::team_n_pes(team); }
inline int team_translate_pe(nvshmem_team_t src, int pe, nvshmem_team_t dest) {
  return host::team_translate_pe(src, pe, dest);
}
inline void team_destroy(nvshmem_team_t team) {
  if (team != NVSHMEM_TEAM_INVALID) host::team_destroy(team, "nvshmem_team_destroy");
}

inline void* malloc(size_t size) { return host::malloc(size, "nvshmem_malloc"); }
inline void* calloc(size_t count, size_t size) { return host::calloc(count, size, "nvshmem_calloc"); }
inline void* align(size_t alignment, size_t size) { return host::align(alignment, size, "nvshmem_align"); }
inline void* realloc(void* ptr, size_t size) { return host::realloc(ptr, size, "nvshmem_realloc"); }
inline void free(void* ptr) { host::free(ptr, "nvshmem_free"); }
inline void* ptr(const void* ptr, int pe) { return host::ptr(ptr, pe); }
inline void* mc_ptr(int team, const void* ptr) { return host::mc_ptr(team, ptr); }
inline void* buffer_register_symmetric(void* buf, size_t size, int flags) {
  return host::register_buffer(buf, size, flags, "nvshmemx_buffer_register_symmetric");
}
inline int buffer_unregister_symmetric(void* mmap_ptr, size_t size) {
  return to_nvshmem_status(host::unregister_buffer(mmap_ptr, size, "nvshmemx_buffer_unregister_symmetric"));
}

inline size_t elem_bytes(size_t nelems, size_t elem, const char* api) { return host::elem_bytes(nelems, elem, api); }
inline void put(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api,
                cudaStream_t stream = nullptr) {
  host::putmem(dest, source, bytes, pe, mode(completion, stream), api);
}
inline void get(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api,
                cudaStream_t stream = nullptr) {
  host::getmem(dest, source, bytes, pe, mode(completion, stream), api);
}
inline void iput(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems, int pe,
                 Completion completion, const char* api, cudaStream_t stream = nullptr) {
  host::iputmem(dest, source, dst, sst, elem, nelems, pe, mode(completion, stream), api);
}
inline void iget(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems, int pe,
                 Completion completion, const char* api, cudaStream_t stream = nullptr) {
  host::igetmem(dest, source, dst, sst, elem, nelems, pe, mode(completion, stream), api);
}
template <class T>
T g(const T* source, int pe, const char* api) {
  return host::g<T>(source, pe, api);
}
inline void p_on_stream(void* dest, const void* value, size_t bytes, int pe, cudaStream_t stream, const char* api) {
  host::p_on_stream(dest, value, bytes, pe, stream, api);
}
template <class T>
T g_on_stream(const T* source, int pe, cudaStream_t stream, const char* api) {
  return host::g_on_stream<T>(source, pe, stream, api);
}

template <class T>
T atomic(AmoOp op, T* dest, T operand, T compare, bool fetch, int pe, const char* api) {
  return host::internal::amo<T>(op, dest, operand, compare, fetch, pe, api);
}
template <class T>
T atomic_fetch(const T* dest, int pe, const char* api) {
  return host::atomic_fetch<T>(dest, pe, api);
}

inline void put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op,
                       int pe, Completion completion, const char* api, cudaStream_t stream = nullptr) {
  host::put_signal(dest, source, bytes, sig_addr, signal, sig_op, pe, mode(completion, stream), api);
}
inline void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion, const char* api,
                      cudaStream_t stream = nullptr) {
  host::signal_op(sig_addr, signal, sig_op, pe, mode(completion, stream), api);
}
inline uint64_t signal_fetch(const uint64_t* sig_addr, const char* api) { return host::signal_fetch(sig_addr, api); }
inline uint64_t signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t value, const char* api) {
  return host::signal_wait_until(sig_addr, cmp, value, api);
}
inline void signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t value, cudaStream_t stream,
                                        const char* api) {
  host::signal_wait_until_on_stream(sig_addr, cmp, value, stream, api);
}

template <class T>
size_t wait(WaitFor what, bool block, const T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
            const T* values, T value, const char* api) {
  return host::wait<T>(what, block, ivars, nelems, indices, status, cmp, values, value, api);
}
template <class T>
void wait_on_stream(const T* ivars, size_t nelems, const int* status, int cmp, const T* values, T value,
                    cudaStream_t stream, const char* api) {
  host::wait_on_stream<T>(ivars, nelems, status, cmp, values, value, stream, api);
}

// Collectives: 0 or an NVSHMEMX_ERROR_* code after a message.
inline int barrier(nvshmem_team_t team, const char* api) {
  return to_nvshmem_status(host::barrier(team, host::kBlocking, api));
}
inline int barrier(nvshmem_team_t team, const char* api, cudaStream_t stream) {
  return to_nvshmem_status(host::barrier(team, on_stream(stream), api));
}
inline int team_sync(nvshmem_team_t team, const char* api) {
  return to_nvshmem_status(host::team_sync(team, host::kBlocking, api));
}
inline int team_sync(nvshmem_team_t team, const char* api, cudaStream_t stream) {
  return to_nvshmem_status(host::team_sync(team, on_stream(stream), api));
}
inline int broadcast(nvshmem_team_t team, void* dest, const void* source, size_t bytes, int root, const char* api) {
  return to_nvshmem_status(host::broadcastmem(team, dest, source, bytes, root, host::kBlocking, api));
}
inline int broadcast(nvshmem_team_t team, void* dest, const void* source, size_t bytes, int root, const char* api,
                     cudaStream_t stream) {
  return to_nvshmem_status(host::broadcastmem(team, dest, source, bytes, root, on_stream(stream), api));
}
inline int fcollect(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api) {
  return to_nvshmem_status(host::fcollectmem(team, dest, source, bytes, host::kBlocking, api));
}
inline int fcollect(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api,
                    cudaStream_t stream) {
  return to_nvshmem_status(host::fcollectmem(team, dest, source, bytes, on_stream(stream), api));
}
inline int alltoall(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api) {
  return to_nvshmem_status(host::alltoallmem(team, dest, source, bytes, host::kBlocking, api));
}
inline int alltoall(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api,
                    cudaStream_t stream) {
  return to_nvshmem_status(host::alltoallmem(team, dest, source, bytes, on_stream(stream), api));
}
// Reductions: `nreduce` elements of `type` (reducescatter: per member's block of the source).
inline int reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, ReduceType type, ReduceOp op,
                  bool scatter, const char* api) {
  return to_nvshmem_status(scatter ? host::reducescatter(team, type, op, dest, source, nreduce, host::kBlocking, api)
                                   : host::reduce(team, type, op, dest, source, nreduce, host::kBlocking, api));
}
inline int reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, ReduceType type, ReduceOp op,
                  bool scatter, const char* api, cudaStream_t stream) {
  return to_nvshmem_status(scatter ? host::reducescatter(team, type, op, dest, source, nreduce, on_stream(stream), api)
                                   : host::reduce(team, type, op, dest, source, nreduce, on_stream(stream), api));
}

inline void quiet() { host::quiet("nvshmem_quiet"); }
inline void fence() { host::fence("nvshmem_fence"); }
inline void flush() { host::flush("nvshmemx_flush"); }

inline int buffer_register(void* addr, size_t length) {
  return to_nvshmem_status(host::register_local_buffer(addr, length, "nvshmemx_buffer_register"));
}
inline int buffer_unregister(void* addr) {
  return to_nvshmem_status(host::unregister_local_buffer(addr, "nvshmemx_buffer_unregister"));
}
inline void buffer_unregister_all() { host::unregister_local_buffers("nvshmemx_buffer_unregister_all"); }
inline int qp_create(int num_qps, nvshmemx_qp_handle_t** out) {
  return to_nvshmem_status(host::qp_create(num_qps, out, "nvshmemx_qp_create"));
}
inline int region_start(nvshmemx_region_handle_t* handle, const nvshmemx_region_attrs_t* attrs) {
  return to_nvshmem_status(host::region_start(handle, attrs ? attrs->hints : 0u, "nvshmemx_region_start"));
}
inline int region_stop(nvshmemx_region_handle_t handle) {
  return to_nvshmem_status(host::region_stop(handle, "nvshmemx_region_stop"));
}
inline int region_is_active(uint32_t hints, int* active) {
  return to_nvshmem_status(host::region_is_active(hints, active, "nvshmemx_region_is_active"));
}
// A counted write's counter on this PE back to 0 (its own copy only).
inline void signal_counted_reset(uint64_t* counter) {
  const uint64_t zero = 0;
  host::putmem(counter, &zero, sizeof zero, host::my_pe(), host::kBlocking, "nvshmemx_signal_counted_reset");
}
inline void barrier_all() { host::barrier_all("nvshmem_barrier_all"); }
inline void sync_all() { host::sync_all("nvshmem_sync_all"); }
inline void quiet_on_stream(cudaStream_t stream) { host::quiet_on_stream(stream, "nvshmemx_quiet_on_stream"); }
inline void flush_on_stream(cudaStream_t stream) { host::flush_on_stream(stream, "nvshmemx_flush_on_stream"); }
inline void barrier_all_on_stream(cudaStream_t stream) {
  host::barrier_all_on_stream(stream, "nvshmemx_barrier_all_on_stream");
}
inline void sync_all_on_stream(cudaStream_t stream) { host::sync_all_on_stream(stream, "nvshmemx_sync_all_on_stream"); }

// Modules and libraries loaded through the CUDA driver API (CUmodule / CUlibrary).
inline int cumodule_init(void* module) {
  return to_nvshmem_status(host::cumodule_init(module, "nvshmemx_cumodule_init"));
}
inline int cumodule_finalize(void* module) {
  return to_nvshmem_status(host::cumodule_finalize(module, "nvshmemx_cumodule_finalize"));
}
inline int culibrary_init(void* library) {
  return to_nvshmem_status(host::culibrary_init(library, "nvshmemx_culibrary_init"));
}
inline int culibrary_finalize(void* library) {
  return to_nvshmem_status(host::culibrary_finalize(library, "nvshmemx_culibrary_finalize"));
}

}  // namespace compat
}  // namespace gshmem
