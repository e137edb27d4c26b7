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
constexpr uint32_t kDeviceStateAbi = 6;

/* Device-initiated copies handed to the copy engines (DMA), see gshmem/device/ce.cuh and the host
 * proxy in the core. A kernel takes ticket t from ce_counters[0], waits until the proxy has consumed
 * ticket t - kCeRingSlots, fills slots[t % kCeRingSlots] and publishes it by a release store of
 * seq = t + 1. The proxy consumes tickets in order, issues the copies on its stream, stores the
 * number consumed into `consumed`, and has the stream write the number completed into
 * ce_counters[1] after them. The ring lives in host-pinned memory that the GPU maps. */
constexpr uint32_t kCeRingSlots = 1024;
/* A grid of more than ce_max_blocks blocks hands over only copies of at least this many times
 * ce_min_bytes (its own stores fill the links below that; see gshmem/device/ce.cuh). */
constexpr uint32_t kCeLargeGridFactor = 4;
struct CeSlot {
  uint64_t dst;
  uint64_t src;
  uint64_t bytes;
  uint64_t seq; /* ticket + 1 once the fields above are written */
};
struct CeRing {
  uint64_t consumed; /* tickets the proxy has taken (written by the host) */
  int32_t error;     /* non-zero once a copy failed; the host log says which */
  int32_t reserved;
  uint64_t pad[6];
  CeSlot slots[kCeRingSlots];
};

/* Device-initiated operations on PEs that this GPU does not map (other hosts, or NVSHMEM_DISABLE_P2P),
 * served by the network proxy, a host thread of this PE that issues them through the network transport
 * (gshmem/device/net.cuh, src/transport/net_proxy.h). A kernel takes ticket t from net_counters[0],
 * waits until slots[t % kNetRingSlots].turn == t (the slot is free for it), fills the slot and publishes
 * it by a release store of seq = t + 1. The proxy takes tickets in order. It frees a slot by storing
 * turn = t + kNetRingSlots, or, for an operation that returns a value, stores the value in `result` and
 * turn = t | kNetResultReady; the kernel reads the value and then frees the slot itself. After the
 * operations it issued have completed at their targets (a network quiet), the proxy stores the number
 * of tickets taken into `completed`. The ring lives in host-pinned memory that the GPU maps. */
constexpr uint32_t kNetRingSlots = 1024;
constexpr uint64_t kNetResultReady = 1ull << 63;
constexpr uint32_t kNetInlineBytes = 16; /* data carried in the slot itself */
enum NetOpCode : uint32_t {
  kNetPut = 1,   /* `bytes` from `local` (or from `inline_data`, when local is 0) to pe's heap at `offset` */
  kNetGet = 2,   /* `bytes` from pe's heap at `offset` to `local` (or into `result`, when local is 0) */
  kNetAmo = 3,   /* `amo` (AmoOp) on the word of amo_bytes at `offset`; kNetFetch: old value into `result` */
  kNetFence = 4, /* later operations to every PE land after earlier ones */
};
constexpr uint32_t kNetFetch = 1u << 31; /* ORed into `op`: the kernel waits for `result` */
/* The AMO codes of kNetAmo (the same numbers as the host library's AmoOp). */
enum NetAmoCode : int32_t {
  kNetAmoLoad = 0,
  kNetAmoStore,
  kNetAmoAdd,
  kNetAmoAnd,
  kNetAmoOr,
  kNetAmoXor,
  kNetAmoSwap,
  kNetAmoCompareSwap,
  kNetAmoFloatAdd /* half, float or double by amo_bytes (2, 4, 8) */
};
/* What a kernel asks of the proxy (the part of a slot that the kernel fills). */
struct NetRequest {
  uint32_t op; /* NetOpCode, | kNetFetch */
  int32_t pe;
  uint64_t offset; /* on pe's heap */
  uint64_t local;  /* an address of this process (GPU memory, or host memory the GPU maps), or 0 */
  uint64_t bytes;
  int32_t amo;       /* NetAmoCode for kNetAmo */
  int32_t amo_bytes; /* 4 or 8 */
  uint64_t data[2];  /* kNetAmo: operand, compare (compare-swap); kNetPut without `local`: the data (<= 16 bytes) */
};
struct NetSlot {
  uint64_t turn;
  uint64_t seq; /* ticket + 1 once `req` is written */
  NetRequest req;
  uint64_t result[2];
  uint64_t pad[5];
};
static_assert(sizeof(NetSlot) == 128, "NetSlot layout changed: bump kDeviceStateAbi");
struct NetRing {
  uint64_t completed; /* tickets taken and complete at their targets (written by the host) */
  int32_t error;      /* non-zero once the proxy stopped; the host log says why */
  int32_t reserved;
  uint64_t pad[6];
  NetSlot slots[kNetRingSlots];
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
  /* Copy-engine offload; ce_ring is NULL and ce_min_bytes 0 when it is off. _nbi puts and gets of at
   * least ce_min_bytes per call go to the ring. ce_counters (device memory): [0] tickets taken,
   * [1] copies completed. */
  CeRing *ce_ring;
  uint64_t *ce_counters;
  uint64_t ce_min_bytes;
  /* The teams: the slot of team id t is teams[t] for 0 <= t < team_capacity (size 0: no such team).
   * Device memory of this PE (in its symmetric heap); the host library writes a slot before it
   * returns the id. */
  TeamSlot *teams;
  int32_t team_capacity;
  int32_t reserved2;
  /* The network proxy: NULL when every PE is mapped here. net_counters (device memory): [0] tickets taken. */
  NetRing *net_ring;
  uint64_t *net_counters;
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
