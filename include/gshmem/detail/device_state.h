/* The state that kernels read: one struct, copied into a __constant__ variable of every CUDA
 * module that includes the device API (see gshmem/device/state.cuh). Plain C++ so that the host
 * library fills it without CUDA headers.
 *
 * Contract: the host library writes it after the GPU is bound (first nvshmem_malloc or
 * nvshmem_barrier_all after nvshmem_init on the GPU backend) and after every change; `abi` is 0
 * until then. Every pointer is a device address of the bound GPU. */
#ifndef GSHMEM_DETAIL_DEVICE_STATE_H_
#define GSHMEM_DETAIL_DEVICE_STATE_H_

#include <stdint.h>

#include "gshmem/detail/export.h"
#include "gshmem/detail/team.h"

#ifdef __cplusplus
namespace gshmem {
namespace detail {

/* Bumped whenever the layout below changes; a module compiled against another layout is refused
 * at registration with a message, rather than reading garbage. */
constexpr uint32_t kDeviceStateAbi = 7;

/* The proxy: a host thread of each GPU PE that serves what kernels hand to it (see gshmem/device/proxy.cuh
 * for the device side, src/transport/proxy.h for the host side), through one ring of requests:
 *  - copies handed to the copy engines (DMA): large device-initiated _nbi puts and gets to mapped peers
 *    (gshmem/device/ce.cuh);
 *  - operations on PEs that this GPU does not map (other hosts, or NVSHMEM_DISABLE_P2P), issued through
 *    the network transport (gshmem/device/net.cuh).
 * A kernel takes ticket t from proxy_counters[0], waits until slots[t % kProxyRingSlots].turn == t (the slot
 * is free for it), fills the slot and publishes it by a release store of seq = t + 1. The proxy takes
 * tickets in order. It frees a slot by storing turn = t + kProxyRingSlots, or, for an operation that
 * returns a value, stores the value in `result` and turn = t | kProxyResultReady; the kernel reads the
 * value and then frees the slot itself. Once every ticket below c has completed (copies finished, network
 * operations complete at their targets), the proxy stores c into `completed`: the one counter that quiet
 * waits for. The ring lives in host-pinned memory that the GPU maps. */
constexpr uint32_t kProxyRingSlots = 1024;
constexpr uint64_t kProxyResultReady = 1ull << 63;
constexpr uint32_t kProxyInlineBytes = 16; /* data carried in the slot itself */
/* A grid of more than ce_max_blocks blocks hands over only copies of at least this many times
 * ce_min_bytes (its own stores fill the links below that; see gshmem/device/ce.cuh). */
constexpr uint32_t kCeLargeGridFactor = 4;
/* Blocks of a kernel whose lent shared memory the bulk-copy path records (NVSHMEM's bound); later blocks copy
 * as usual. */
constexpr uint32_t kTmaBlocks = 4096;
enum ProxyOpCode : uint32_t {
  kProxyPut = 1,   /* `bytes` from `local` (or from `data`, when local is 0) to pe's heap at `offset` */
  kProxyGet = 2,   /* `bytes` from pe's heap at `offset` to `local` (or into `result`, with kProxyFetch) */
  kProxyAmo = 3,   /* `amo` (ProxyAmoCode) on the word of amo_bytes at `offset`; kProxyFetch: old value into `result` */
  kProxyFence = 4, /* later network operations to every PE land after earlier ones */
  kProxyCopy = 5,  /* the copy engines copy `bytes` from address `local` to address `offset` (a mapped peer's) */
};
constexpr uint32_t kProxyFetch = 1u << 31; /* ORed into `op`: the kernel waits for `result` */
/* The AMO codes of kProxyAmo (the same numbers as the host library's AmoOp). */
enum ProxyAmoCode : int32_t {
  kProxyAmoLoad = 0,
  kProxyAmoStore,
  kProxyAmoAdd,
  kProxyAmoAnd,
  kProxyAmoOr,
  kProxyAmoXor,
  kProxyAmoSwap,
  kProxyAmoCompareSwap,
  kProxyAmoFloatAdd /* half, float or double by amo_bytes (2, 4, 8) */
};
/* What a kernel asks of the proxy (the part of a slot that the kernel fills). */
struct ProxyRequest {
  uint32_t op; /* ProxyOpCode, | kProxyFetch */
  int32_t pe;
  uint64_t offset; /* on pe's heap; kProxyCopy: the destination address */
  uint64_t local;  /* an address of this process (GPU memory, or host memory the GPU maps), or 0 */
  uint64_t bytes;
  int32_t amo;       /* ProxyAmoCode for kProxyAmo */
  int32_t amo_bytes; /* 4 or 8 */
  uint64_t data[2];  /* kProxyAmo: operand, compare (compare-swap); kProxyPut without `local`: the data (<= 16 bytes) */
};
struct ProxySlot {
  uint64_t turn;
  uint64_t seq; /* ticket + 1 once `req` is written */
  ProxyRequest req;
  uint64_t result[2];
  uint64_t pad[5];
};
static_assert(sizeof(ProxySlot) == 128, "ProxySlot layout changed: bump kDeviceStateAbi");
struct ProxyRing {
  uint64_t completed; /* every ticket below it has completed (written by the proxy thread) */
  int32_t error;      /* non-zero once the proxy stopped; the host log says why */
  int32_t reserved;
  uint64_t copies_done; /* written by the proxy's copy stream (kernels do not read it) */
  uint64_t pad[5];
  ProxySlot slots[kProxyRingSlots];
};

struct DeviceState {
  uint32_t abi; /* kDeviceStateAbi once initialised, 0 before */
  int32_t mype;
  int32_t npes;
  int32_t window_first;   /* first PE of the load/store windows below */
  char *heap_base;        /* this PE's symmetric heap */
  uint64_t heap_span;     /* bytes of address space of one heap window (nvshmem_ptr bounds) */
  char *const *peer_base; /* [npes]: each PE's heap as mapped here; NULL if not reachable by load/store */
  /* nvshmem_global_exit from a kernel: host-pinned {code, state}; state 0 = none, 1 = being
   * written, 2 = requested (the host library's watcher then ends the job with `code`). */
  int32_t *exit_request;
  uint64_t *wait_any_counter; /* device memory: rotates the first index the _any waits and tests try */
  /* When the heaps of PEs [window_first, window_first + window_count) are mapped here one after the
   * other, heap_span bytes apart from window_base on, a kernel computes a peer's address from these
   * (which stay in the constant cache) instead of loading peer_base[pe]; window_count is 0 otherwise. */
  uint64_t window_base;
  int32_t window_count;
  int32_t ce_max_blocks; /* larger grids: only from kCeLargeGridFactor * ce_min_bytes per call */
  /* The proxy; proxy_ring is NULL when there is none (no copy-engine offload, every PE mapped here).
   * proxy_counters (device memory): [0] tickets taken, [1] a copy of `completed` that is never ahead of it,
   * written by kernels that saw `completed` and by the proxy's copy stream after its copies (so that a quiet
   * with nothing outstanding, or waiting for copies only, reads device memory, not the ring's host memory). */
  ProxyRing *proxy_ring;
  uint64_t *proxy_counters;
  /* Copy-engine offload: _nbi puts and gets of at least ce_min_bytes per call go to the proxy; 0 when off. */
  uint64_t ce_min_bytes;
  /* The teams: the slot of team id t is teams[t] for 0 <= t < team_capacity (size 0: no such team).
   * Device memory of this PE (in its symmetric heap); the host library writes a slot before it
   * returns the id. */
  TeamSlot *teams;
  int32_t team_capacity;
  int32_t proxy_net; /* non-zero when some PE is reached through the proxy's network transport */
  /* The bulk-copy (TMA) path of copies to mapped peers (gshmem/device/tma.cuh): tma_slots (device memory,
   * kTmaBlocks words) records the shared memory each block of a running kernel lent (give_smem); NULL when
   * NVSHMEM_TMA_POLICY is DISABLE or the GPU has no bulk copies. Copies of fewer than tma_min_bytes keep the
   * ordinary path, and so do warp and block calls unless tma_group_calls is non-zero (GSHMEM_TMA_SCOPES=all).
   * (These took the place of reserved words that older libraries leave 0: no ABI change.) */
  uint64_t *tma_slots;
  uint32_t tma_min_bytes;
  uint32_t tma_group_calls;
};

static_assert(sizeof(DeviceState) == 128, "DeviceState layout changed: bump kDeviceStateAbi");

}  // namespace detail
}  // namespace gshmem
#endif

/* Registration of CUDA modules (one per translation unit that includes the device API, or per
 * module loaded through the driver API). `writer` copies `bytes` bytes of a DeviceState into the
 * module's __constant__ copy and returns 0 (cudaSuccess) or a CUDA error code. */
#ifdef __cplusplus
extern "C" {
#endif
typedef int (*gshmemi_state_writer_t)(const void *state, unsigned long bytes);
/* Returns 0, or non-zero when `abi` does not match the library (the module cannot be used). */
GSHMEM_API int gshmemi_register_module(gshmemi_state_writer_t writer, unsigned abi);
GSHMEM_API void gshmemi_unregister_module(gshmemi_state_writer_t writer);
#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_DETAIL_DEVICE_STATE_H_ */
