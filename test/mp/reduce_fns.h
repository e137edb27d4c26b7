// The host entry points of one reduction, for a test's table of them: nvshmem_<NAME><OPNAME>_reduce,
// _reducescatter and the nvshmemx_ _on_stream forms of both, in that order, as four lambdas that take
// untyped pointers (comma-separated: they fill four function-pointer fields of an aggregate).
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>

#define GSHMEMT_REDUCE_FNS(NAME, T, OPNAME)                                                                          \
  [](nvshmem_team_t t, void* d, const void* s, size_t n) {                                                           \
    return nvshmem_##NAME##OPNAME##_reduce(t, static_cast<T*>(d), static_cast<const T*>(s), n);                      \
  },                                                                                                                 \
      [](nvshmem_team_t t, void* d, const void* s, size_t n) {                                                       \
        return nvshmem_##NAME##OPNAME##_reducescatter(t, static_cast<T*>(d), static_cast<const T*>(s), n);           \
      },                                                                                                             \
      [](nvshmem_team_t t, void* d, const void* s, size_t n, cudaStream_t st) {                                      \
        return nvshmemx_##NAME##OPNAME##_reduce_on_stream(t, static_cast<T*>(d), static_cast<const T*>(s), n, st);   \
      },                                                                                                             \
      [](nvshmem_team_t t, void* d, const void* s, size_t n, cudaStream_t st) {                                      \
        return nvshmemx_##NAME##OPNAME##_reducescatter_on_stream(t, static_cast<T*>(d), static_cast<const T*>(s), n, \
                                                                 st);                                                \
      }
