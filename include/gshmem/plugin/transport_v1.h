/* gshmem's network transport plugin ABI (C only; the header keeps the name of its first version).
 *
 * A network transport reaches the PEs whose heaps are not mapped into this process (PEs on other
 * hosts, or every other PE with NVSHMEM_DISABLE_P2P): puts, gets, atomics, fence and quiet on a peer's
 * heap, named by PE and heap offset. The core never links the network library: it dlopens the plugin
 * (libgshmem_transport_ucx.so, built against UCX), which does. The plugin must not write its own wire
 * protocol for data: it maps every operation onto the network library's own.
 *
 * Threads: the core calls the plugin from any of its threads, one call at a time per process for
 * connect, add_memory and finalize (collective calls), possibly several at once for the others; the
 * plugin serialises what its library needs serialised. The plugin makes progress on its own (a peer's
 * operations on this PE's memory complete while the program computes or waits), without spinning a
 * core while nothing arrives.
 *
 * Every call that returns an int returns one of GSHMEM_TRANSPORT_OK, _IN_PROGRESS, _NO_RESOURCES or
 * _ERROR. With _ERROR it writes a one-line reason into `why` (at most `why_len` bytes with its NUL)
 * that names the network library's own status text; the core adds the PE and the operation.
 * _IN_PROGRESS: a non-blocking put, get or atomic was issued and is not complete yet (quiet completes
 * it); the core counts it as issued. _NO_RESOURCES: nothing was issued, because the library is out of
 * resources for now (its send queues, its requests); the core completes what is outstanding (quiet)
 * and issues the operation again, and fails it after a bounded number of tries. Only put, get and
 * atomic return those two; connect, add_memory, fence and quiet return _OK or _ERROR.
 *
 * Atomics: where the network library cannot apply an atomic to the target's memory itself (software
 * emulation cannot reach GPU memory), the plugin may carry it in the library's own messages to the
 * target, which applies it through services.local_atomic and answers.
 *
 * Staged memory (GSHMEM_TRANSPORT_MEM_STAGED): memory that the network library cannot register (GPU
 * memory, for a library built without CUDA). The plugin registers none of it; puts and gets on it
 * travel with their data in the library's own messages, which the target applies to (or reads from)
 * its memory through services.local_copy, and answers. The local buffers of put and get are then always
 * host memory (the core stages GPU buffers through host buffers).
 *
 * A plugin exports one symbol, gshmem_transport_plugin_init (GSHMEM_TRANSPORT_PLUGIN_INIT_SYMBOL), of
 * type gshmem_transport_plugin_init_fn. */
#ifndef GSHMEM_PLUGIN_TRANSPORT_V1_H_
#define GSHMEM_PLUGIN_TRANSPORT_V1_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: services.local_atomic; 3: atomic's `blocking`; 4: staged memory; 5: services.waiting; 6: the
 * results _IN_PROGRESS and _NO_RESOURCES; 7: progress; 8: GSHMEM_TRANSPORT_AMO_FADD and 2-byte words;
 * 9: put_flagged */
#define GSHMEM_TRANSPORT_PLUGIN_ABI 9
#define GSHMEM_TRANSPORT_PLUGIN_INIT_SYMBOL "gshmem_transport_plugin_init"

/* What a call returns. */
#define GSHMEM_TRANSPORT_OK 0
#define GSHMEM_TRANSPORT_ERROR 1
#define GSHMEM_TRANSPORT_IN_PROGRESS 2
#define GSHMEM_TRANSPORT_NO_RESOURCES 3

/* Where memory given to add_memory lives. */
#define GSHMEM_TRANSPORT_MEM_HOST 0
#define GSHMEM_TRANSPORT_MEM_CUDA 1
#define GSHMEM_TRANSPORT_MEM_STAGED 2 /* not registered: reached through messages and services.local_copy */

/* Capabilities (gshmem_transport_plugin_v1::caps). */
#define GSHMEM_TRANSPORT_CAP_CUDA_MEMORY 1u /* add_memory takes GPU memory (GSHMEM_TRANSPORT_MEM_CUDA) */

/* The atomic operations, on words of 4 or 8 bytes (the numbering of the core's AmoOp). FADD adds as an IEEE
 * float of the word's width (2 bytes: half, 4: float, 8: double); a word of 2 bytes takes only LOAD, STORE,
 * SWAP and FADD. */
#define GSHMEM_TRANSPORT_AMO_LOAD 0
#define GSHMEM_TRANSPORT_AMO_STORE 1
#define GSHMEM_TRANSPORT_AMO_ADD 2
#define GSHMEM_TRANSPORT_AMO_AND 3
#define GSHMEM_TRANSPORT_AMO_OR 4
#define GSHMEM_TRANSPORT_AMO_XOR 5
#define GSHMEM_TRANSPORT_AMO_SWAP 6
#define GSHMEM_TRANSPORT_AMO_CSWAP 7
#define GSHMEM_TRANSPORT_AMO_FADD 8

/* What gshmem gives the plugin. */
typedef struct gshmem_transport_services_v1 {
  void *ctx;
  int rank; /* this PE */
  int size; /* PEs in the job */
  /* Gathers `bytes` bytes from every PE into all[rank * bytes]. Collective over all PEs. Returns 0. */
  int (*allgather)(void *ctx, const void *mine, void *all, size_t bytes);
  /* Logs a line in gshmem's log (level 0: warning, 1: info, 2: trace). */
  void (*log)(void *ctx, int level, const char *line);
  /* Applies the atomic `op` (GSHMEM_TRANSPORT_AMO_*) with `operand` (and `compare`) to the word of `bytes`
   * (2, 4 or 8) bytes at heap offset `heap_offset` of this PE's heap, atomically with every other atomic on
   * it (from kernels too), and stores its previous value in *old. Any thread, while the plugin is
   * connected; it may wait for the GPU. Returns 0, or non-zero (logged) when it cannot. */
  int (*local_atomic)(void *ctx, uint64_t heap_offset, int op, int bytes, uint64_t operand, uint64_t compare,
                      uint64_t *old);
  /* Copies `bytes` bytes between host memory `host` and heap offset `heap_offset` of this PE's heap (into
   * the heap with `to_heap`, else out of it), for a peer's put or get on staged memory. Any thread, while
   * the plugin is connected; it waits for the copy (and so may wait for the GPU). Returns 0, or non-zero
   * (logged) when it cannot (the range is outside the heap). */
  int (*local_copy)(void *ctx, uint64_t heap_offset, void *host, size_t bytes, int to_heap);
  /* Called, without the plugin's locks held, by a thread that waits inside the plugin for the network
   * (a blocking put, get or atomic, a fence, a quiet) once the wait has lasted a second, and then about
   * once a second until it ends: `pe` is the PE whose answer or completion it waits for (-1: unknown),
   * `what` says what it waits for ("PE 2 to answer a fetching atomic"), `waited_s` is the time since
   * the wait began and `last_s` its value at the previous call of this wait (0 at the first). gshmem
   * warns (GSHMEM_WAIT_WARN), and ends the job when the wait has lasted longer than GSHMEM_WAIT_TIMEOUT
   * or `pe` has left the job; otherwise it returns. A peer whose process is stopped, or whose own
   * progress cannot run, never answers, and no network library reports it: this is how such a wait
   * is seen. */
  void (*waiting)(void *ctx, int pe, const char *what, double waited_s, double last_s);
} gshmem_transport_services_v1_t;

typedef struct gshmem_transport_plugin_v1 gshmem_transport_plugin_v1_t;

struct gshmem_transport_plugin_v1 {
  /* Filled by the plugin's init. */
  unsigned abi_version; /* GSHMEM_TRANSPORT_PLUGIN_ABI */
  const char *name;     /* short name for messages ("ucx"); static storage */
  unsigned caps;        /* GSHMEM_TRANSPORT_CAP_* */
  void *state;          /* the plugin's own */

  /* Connects to the PEs with reach[pe] != 0 (reach has services.size entries; every PE passes its own
   * list, and the lists agree: a reaches b exactly when b reaches a). Collective over all PEs. */
  int (*connect)(gshmem_transport_plugin_v1_t *self, const unsigned char *reach, char *why, size_t why_len);
  /* Describes in one line (into `out`) how this PE reaches `pe`: the library and what it chose. */
  void (*describe)(gshmem_transport_plugin_v1_t *self, int pe, char *out, size_t out_len);
  /* Registers this PE's memory [addr, addr + bytes), which is heap offsets [heap_offset, heap_offset +
   * bytes), for access by the connected PEs, and learns theirs. Collective over all PEs, which pass the
   * same heap_offset and bytes; when it returns on every PE, any of them may access the range. With
   * GSHMEM_TRANSPORT_MEM_STAGED (passed by every PE alike) nothing is registered: the peers reach the
   * range through messages (above). */
  int (*add_memory)(gshmem_transport_plugin_v1_t *self, void *addr, size_t bytes, uint64_t heap_offset, int mem_type,
                    char *why, size_t why_len);
  /* Copies `bytes` bytes from local `src` to heap offset `heap_offset` of `pe`. With `blocking`, `src`
   * may be reused on return; without, only after quiet. Remote completion: by quiet. */
  int (*put)(gshmem_transport_plugin_v1_t *self, int pe, uint64_t heap_offset, const void *src, size_t bytes,
             int blocking, char *why, size_t why_len);
  /* Copies `bytes` bytes from heap offset `heap_offset` of `pe` to local `dst`: in `dst` on return with
   * `blocking`, else after quiet. */
  int (*get)(gshmem_transport_plugin_v1_t *self, void *dst, int pe, uint64_t heap_offset, size_t bytes, int blocking,
             char *why, size_t why_len);
  /* The atomic `op` (GSHMEM_TRANSPORT_AMO_*) on the word of `bytes` (2, 4 or 8) bytes at heap offset
   * `heap_offset` of `pe`, with `operand` (and, for CSWAP, `compare`). With `fetched`, the word's
   * previous value is stored there: before the call returns with `blocking`, else by quiet (and
   * *fetched must stay valid until then). The operation itself completes by quiet. */
  int (*atomic)(gshmem_transport_plugin_v1_t *self, int pe, uint64_t heap_offset, int op, int bytes, uint64_t operand,
                uint64_t compare, uint64_t *fetched, int blocking, char *why, size_t why_len);
  /* Operations issued after the fence to a PE are applied there after those issued before it. */
  int (*fence)(gshmem_transport_plugin_v1_t *self, char *why, size_t why_len);
  /* Every operation issued before is complete at its target. */
  int (*quiet)(gshmem_transport_plugin_v1_t *self, char *why, size_t why_len);
  /* Optional (NULL: the plugin's own progress only). Makes what progress the library can make now, without
   * waiting, and returns non-zero if something moved. The core calls it from a thread that polls this PE's
   * memory for what a peer writes through the network (a barrier's flag, a wait on a symmetric variable), so
   * that the thread which waits takes the peer's message off the network itself instead of waiting for the
   * plugin's own progress to run. It may return 0 at once when another thread is progressing. */
  int (*progress)(gshmem_transport_plugin_v1_t *self);
  /* Disconnects and releases everything. The core calls it on every PE after a quiet and a barrier of
   * all PEs, so nothing is outstanding and no PE accesses another's memory any more; it is not
   * collective itself (it must not wait for the peers, which may have finalized already or not yet:
   * a PE that skipped a collective is diagnosed by the core only if the others can see it leave).
   * Returns 0 or non-zero. */
  int (*finalize)(gshmem_transport_plugin_v1_t *self);
  /* Optional (NULL: the core puts the data, fences and puts the flag). One message to `pe`: `bytes` bytes
   * (at most 4 KiB; 0: none) from `src` to heap offset `heap_offset`, then the 8-byte `flag` into heap offset
   * `flag_offset`, which only this PE writes there and which only grows (a barrier's arrival, a collective's
   * packet): the target sees the flag after the data, and sees this PE's flags to it in the order they were
   * sent. `src` may be reused on return. Nothing waits for the target to apply it, not even quiet: the target
   * waits for the flag itself, and the core quiets before it where earlier operations must land first. The
   * network library's own messages, applied through services.local_copy and local_atomic (STORE). */
  int (*put_flagged)(gshmem_transport_plugin_v1_t *self, int pe, uint64_t heap_offset, const void *src, size_t bytes,
                     uint64_t flag_offset, uint64_t flag, char *why, size_t why_len);
};

/* Initialises the plugin with gshmem's services (copied by the plugin). `abi_version` is the version
 * gshmem speaks; a plugin that cannot serve it returns non-zero. Returns 0, or non-zero with a reason
 * in `why`. */
typedef int (*gshmem_transport_plugin_init_fn)(const gshmem_transport_services_v1_t *services,
                                               gshmem_transport_plugin_v1_t *plugin, unsigned abi_version, char *why,
                                               size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_PLUGIN_TRANSPORT_V1_H_ */
