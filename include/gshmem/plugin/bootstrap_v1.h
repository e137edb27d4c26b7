/* gshmem's bootstrap plugin ABI, version 1 (C only).
 *
 * A bootstrap plugin connects gshmem to a launcher it cannot speak to by itself (MPI, PMIx). gshmem
 * asks it for very little: this process's rank and the job size, one broadcast of a small blob from
 * rank 0 (the address and secret of gshmem's own bootstrap root, through which every later
 * collective goes), ending the whole job, and leaving. The core never links the launcher's library:
 * it dlopens the plugin, which does.
 *
 * A plugin exports one symbol, gshmem_bootstrap_plugin_init (GSHMEM_BOOTSTRAP_PLUGIN_INIT_SYMBOL),
 * of type gshmem_bootstrap_plugin_init_fn. */
#ifndef GSHMEM_PLUGIN_BOOTSTRAP_V1_H_
#define GSHMEM_PLUGIN_BOOTSTRAP_V1_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_BOOTSTRAP_PLUGIN_ABI 1
#define GSHMEM_BOOTSTRAP_PLUGIN_INIT_SYMBOL "gshmem_bootstrap_plugin_init"

typedef struct gshmem_bootstrap_plugin_v1 gshmem_bootstrap_plugin_v1_t;

struct gshmem_bootstrap_plugin_v1 {
  /* Filled by the plugin's init. */
  unsigned abi_version; /* GSHMEM_BOOTSTRAP_PLUGIN_ABI */
  const char *name;     /* short name for messages ("mpi", "pmix"); static storage */
  int rank;             /* this process's rank in the job, 0 <= rank < size */
  int size;             /* number of processes in the job */
  void *state;          /* the plugin's own */

  /* Copies `bytes` bytes from `buf` on rank 0 into `buf` on every rank. Collective. Returns 0, or
   * non-zero with a one-line reason in `why` (at most `why_len` bytes with its NUL), also when
   * `timeout_s` seconds pass first. */
  int (*broadcast_root)(gshmem_bootstrap_plugin_v1_t *self, void *buf, size_t bytes, double timeout_s, char *why,
                        size_t why_len);
  /* Ends every process of the job with exit status `code`; `why` is for the launcher's log. May not
   * return. */
  void (*abort_job)(gshmem_bootstrap_plugin_v1_t *self, int code, const char *why);
  /* Leaves the launcher (MPI_Finalize only if the plugin initialised MPI). Returns 0 or non-zero. */
  int (*finalize)(gshmem_bootstrap_plugin_v1_t *self);
};

/* Initialises the plugin. `arg` is plugin-specific: the MPI plugin takes a pointer to an MPI_Comm
 * (NULL: MPI_COMM_WORLD); the PMIx plugin takes NULL. `abi_version` is the version gshmem speaks; a
 * plugin that cannot serve it returns non-zero. Returns 0, or non-zero with a reason in `why`. */
typedef int (*gshmem_bootstrap_plugin_init_fn)(void *arg, gshmem_bootstrap_plugin_v1_t *plugin, unsigned abi_version,
                                               char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_PLUGIN_BOOTSTRAP_V1_H_ */
