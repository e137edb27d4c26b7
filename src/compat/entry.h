// The NVSHMEM semantics of the host API, behind the generated extern "C" names
// (src/compat/gen/nvshmem_host.cpp). NVSHMEM's void functions cannot report errors, so misuse
// (an invalid PE, a pointer outside the heap, a call before init) ends the job with a message
// that names the call; functions that return a status or a pointer return it instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/runtime.h"
#include "gshmem/compat/gen/nvshmem_host.h"
#include "gshmem/compat/nvshmem_types.h"
#include "gshmem/detail/reduce_algo.h"
#include "transport/transport.h"

namespace gshmem {
namespace compat {

inline Runtime& rt() { return Runtime::instance(); }

// gshmem's status as NVSHMEM's code: the codes NVSHMEM has are the same numbers; gshmem's own ones
// become NVSHMEMX_ERROR_INTERNAL.
inline int to_nvshmem_status(Status s) {
  return static_cast<int>(s) <= static_cast<int>(GSHMEM_ERROR_INTERNAL) ? static_cast<int>(s)
                                                                        : static_cast<int>(NVSHMEMX_ERROR_INTERNAL);
}

void init();
int init_thread(int requested, int* provided);
int init_attr(unsigned int flags, nvshmemx_init_attr_t* attributes);
int get_uniqueid(nvshmemx_uniqueid_t* id);
int set_attr_uniqueid_args(int myrank, int nranks, const nvshmemx_uniqueid_t* id, nvshmemx_init_attr_t* attributes);
int set_attr_mpi_comm_args(void* mpi_comm, nvshmemx_init_attr_t* attributes);
int init_status();
void finalize();
void query_thread(int* provided);
[[noreturn]] void global_exit(int status);

int my_pe();
int n_pes();
int team_my_pe(nvshmem_team_t team);
int team_n_pes(nvshmem_team_t team);
void info_get_version(int* major, int* minor);
void info_get_name(char* name);
void vendor_get_version_info(int* major, int* minor, int* patch);

void* malloc(size_t size);
void* calloc(size_t count, size_t size);
void* realloc(void* ptr, size_t size);
void* mc_ptr(int team, const void* ptr);
void* buffer_register_symmetric(void* buf, size_t size, int flags);
int buffer_unregister_symmetric(void* mmap_ptr, size_t size);
void* align(size_t alignment, size_t size);
void free(void* ptr);
void* ptr(const void* ptr, int pe);

// The bytes of `nelems` elements of `elem` bytes (a typed or sized call's count). A count whose bytes
// overflow 64 bits ends the job: wrapped, it would pass the heap check and move the wrong bytes.
size_t elem_bytes(size_t nelems, size_t elem, const char* api);

// Contiguous and strided copies to (put) or from (get) `pe`; `stream` is used with kStream.
void put(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api,
         cudaStream_t stream = nullptr);
void get(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api,
         cudaStream_t stream = nullptr);
void iput(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems, int pe,
          Completion completion, const char* api, cudaStream_t stream = nullptr);
void iget(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems, int pe,
          Completion completion, const char* api, cudaStream_t stream = nullptr);
template <class T>
T g(const T* source, int pe, const char* api) {
  T value;
  get(&value, source, sizeof(T), pe, Completion::kBlocking, api);
  return value;
}
void p_on_stream(void* dest, const void* value, size_t bytes, int pe, cudaStream_t stream, const char* api);
void synchronize(cudaStream_t stream, const char* api);
// g_on_stream: the value, once the stream's earlier work and the read are done.
template <class T>
T g_on_stream(const T* source, int pe, cudaStream_t stream, const char* api) {
  T value;
  get(&value, source, sizeof(T), pe, Completion::kStream, api, stream);
  synchronize(stream, api);
  return value;
}

// Atomics: T's bits as a 4- or 8-byte word (see transport.h).
template <class T>
uint64_t bits_of(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics operate on 4- or 8-byte types");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
uint64_t atomic(void* dest, AmoOp op, int bytes, uint64_t operand, uint64_t compare, bool fetch, int pe,
                const char* api);
template <class T>
T atomic(AmoOp op, T* dest, T operand, T compare, bool fetch, int pe, const char* api) {
  return from_bits<T>(atomic(dest, op, sizeof(T), bits_of(operand), bits_of(compare), fetch, pe, api));
}
template <class T>
T atomic_fetch(const T* dest, int pe, const char* api) {
  return atomic<T>(AmoOp::kLoad, const_cast<T*>(dest), T{}, T{}, true, pe, api);
}

// Signals.
void put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                Completion completion, const char* api, cudaStream_t stream = nullptr);
void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion, const char* api,
               cudaStream_t stream = nullptr);
uint64_t signal_fetch(const uint64_t* sig_addr, const char* api);
uint64_t signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t value, const char* api);
void signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t value, cudaStream_t stream, const char* api);

// Waits and tests on the WAIT types.
template <class T>
constexpr WaitKind wait_kind() {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8), "a WAIT type");
  constexpr int width = sizeof(T) == 2 ? 0 : (sizeof(T) == 4 ? 2 : 4);
  return static_cast<WaitKind>(width + (std::is_signed_v<T> ? 0 : 1));
}
size_t wait(WaitKind kind, WaitFor what, bool block, const void* ivars, size_t nelems, size_t* indices,
            const int* status, int cmp, const void* values, uint64_t value, const char* api);
void wait_on_stream(WaitKind kind, const void* ivars, size_t nelems, const int* status, int cmp, const void* values,
                    uint64_t value, cudaStream_t stream, const char* api);
template <class T>
size_t wait(WaitFor what, bool block, const T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,
            const T* values, T value, const char* api) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return wait(wait_kind<T>(), what, block, ivars, nelems, indices, status, cmp, values, bits, api);
}
template <class T>
void wait_on_stream(const T* ivars, size_t nelems, const int* status, int cmp, const T* values, T value,
                    cudaStream_t stream, const char* api) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  wait_on_stream(wait_kind<T>(), ivars, nelems, status, cmp, values, bits, stream, api);
}

// Teams (compat/coll_api.cpp).
int team_split_strided(nvshmem_team_t parent, int start, int stride, int size, const nvshmem_team_config_t* config,
                       long mask, nvshmem_team_t* new_team);
int team_split_2d(nvshmem_team_t parent, int xrange, const nvshmem_team_config_t* xconfig, long xmask,
                  nvshmem_team_t* xteam, const nvshmem_team_config_t* yconfig, long ymask, nvshmem_team_t* yteam);
int team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team);
int team_get_config(nvshmem_team_t team, nvshmem_team_config_t* config);
void team_destroy(nvshmem_team_t team);
int team_get_uniqueid(nvshmemx_team_uniqueid_t* uniqueid);
int team_init(nvshmem_team_t* team, nvshmem_team_config_t* config, long mask, int npes, int pe_idx_in_team);

// Collectives on a team: blocking, or (with a stream) in order on the stream. Sizes in bytes (per
// block for fcollect and alltoall). Each returns 0 or an NVSHMEMX_ERROR_* code after a message.
int barrier(nvshmem_team_t team, const char* api);
int barrier(nvshmem_team_t team, const char* api, cudaStream_t stream);
int team_sync(nvshmem_team_t team, const char* api);
int team_sync(nvshmem_team_t team, const char* api, cudaStream_t stream);
int broadcast(nvshmem_team_t team, void* dest, const void* source, size_t bytes, int root, const char* api);
int broadcast(nvshmem_team_t team, void* dest, const void* source, size_t bytes, int root, const char* api,
              cudaStream_t stream);
int fcollect(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api);
int fcollect(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api, cudaStream_t stream);
int alltoall(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api);
int alltoall(nvshmem_team_t team, void* dest, const void* source, size_t bytes, const char* api, cudaStream_t stream);
// Reductions: `nreduce` elements of `type` (reducescatter: per member's block of the source).
int reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, detail::ReduceType type,
           detail::ReduceOp op, bool scatter, const char* api);
int reduce(nvshmem_team_t team, void* dest, const void* source, size_t nreduce, detail::ReduceType type,
           detail::ReduceOp op, bool scatter, const char* api, cudaStream_t stream);

void quiet();
void fence();
void barrier_all();
void sync_all();

void quiet_on_stream(cudaStream_t stream);
void barrier_all_on_stream(cudaStream_t stream);
void sync_all_on_stream(cudaStream_t stream);

// Modules and libraries loaded through the CUDA driver API (CUmodule / CUlibrary).
int cumodule_init(void* module);
int cumodule_finalize(void* module);
int culibrary_init(void* library);
int culibrary_finalize(void* library);

}  // namespace compat
}  // namespace gshmem
