// The NVSHMEM semantics of the host API, behind the generated extern "C" names
// (src/compat/gen/nvshmem_host.cpp). NVSHMEM's void functions cannot report errors, so misuse
// (an invalid PE, a pointer outside the heap, a call before init) ends the job with a message
// that names the call; functions that return a status or a pointer return it instead.
#pragma once

#include <cstddef>

#include "gshmem/compat/gen/nvshmem_host.h"
#include "gshmem/compat/nvshmem_types.h"
#include "transport/transport.h"

namespace gshmem {
namespace compat {

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
void* align(size_t alignment, size_t size);
void free(void* ptr);
void* ptr(const void* ptr, int pe);

void put(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api);
void get(void* dest, const void* source, size_t bytes, int pe, Completion completion, const char* api);
template <class T>
T g(const T* source, int pe, const char* api) {
  T value;
  get(&value, source, sizeof(T), pe, Completion::kBlocking, api);
  return value;
}
void quiet();
void fence();
void barrier_all();

void putmem_on_stream(void* dest, const void* source, size_t bytes, int pe, cudaStream_t stream);
void getmem_on_stream(void* dest, const void* source, size_t bytes, int pe, cudaStream_t stream);
void quiet_on_stream(cudaStream_t stream);
void barrier_all_on_stream(cudaStream_t stream);

}  // namespace compat
}  // namespace gshmem
