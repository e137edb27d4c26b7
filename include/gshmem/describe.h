/* The running job in words: what started it, the backend and why, this PE's memory, and how it
 * reaches each other PE. For tools, checks and diagnostics (gshmem-check prints them); usable from
 * C and C++, after nvshmem_init.
 *
 * The texts are for people: their wording may change between versions, so programs must not
 * parse them. */
#ifndef GSHMEM_DESCRIBE_H_
#define GSHMEM_DESCRIBE_H_

#include <stddef.h>

#include "gshmem/detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gshmem_describe_item {
  GSHMEM_DESCRIBE_STARTED_BY = 0,     /* "gshmrun", "Open MPI mpirun, bootstrap through PMIx", ... */
  GSHMEM_DESCRIBE_BACKEND = 1,        /* "GPU" or "CPU" */
  GSHMEM_DESCRIBE_BACKEND_REASON = 2, /* why: "a GPU is present", "no GPU can be used: ...", ... */
  GSHMEM_DESCRIBE_HOST = 3,           /* this PE's host name */
  GSHMEM_DESCRIBE_MEMORY = 4,         /* where this PE's heap lives: its GPU, or "host shared memory" */
  GSHMEM_DESCRIBE_ROUTE = 5,          /* how this PE reaches PE `pe`: "shared memory", "none", ... */
  GSHMEM_DESCRIBE_ROUTE_REASON = 6    /* why PE `pe` is reached that way */
} gshmem_describe_item_t;

/* Writes the text of `item` into buf[0..len) (NUL-terminated, cut to fit) and returns its full
 * length, as snprintf does; `pe` is used by the ROUTE items only. Returns -1, writing nothing, for
 * an unknown item, a PE out of range, or before nvshmem_init (the MEMORY and ROUTE items also before
 * the GPU is bound, at the first nvshmem_malloc or barrier). */
GSHMEM_API int gshmem_describe(gshmem_describe_item_t item, int pe, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_DESCRIBE_H_ */
