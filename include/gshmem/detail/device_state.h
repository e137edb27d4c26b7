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

#ifdef __cplusplus
namespace gshmem {
namespace detail {

/* Bumped whenever the layout below changes; a module compiled against another layout is refused
 * at registration with a message, rather than reading garbage. */
constexpr uint32_t kDeviceStateAbi = 2;

struct DeviceState {
  uint32_t abi; /* kDeviceStateAbi once initialised, 0 before */
  int32_t mype;
  int32_t npes;
  int32_t node_mype; /* index in NVSHMEMX_TEAM_NODE */
  int32_t node_npes;
  int32_t shared_mype; /* index in NVSHMEM_TEAM_SHARED (PEs whose heap is mapped here) */
  int32_t shared_npes;
  int32_t same_mype_node_mype; /* index in NVSHMEMX_TEAM_SAME_MYPE_NODE (-1 when not uniform) */
  int32_t same_mype_node_npes;
  int32_t reserved0;
  char *heap_base;         /* this PE's symmetric heap */
  uint64_t heap_span;      /* bytes of address space of one heap window (nvshmem_ptr bounds) */
  char *const *peer_base;  /* [npes]: each PE's heap as mapped here; NULL if not reachable by load/store */
  uint64_t *barrier_flags; /* symmetric [npes]: slot p holds the last barrier sequence PE p reached */
  uint64_t *barrier_seq;   /* this PE's barrier sequence (device memory) */
  /* nvshmem_global_exit from a kernel: host-pinned {code, state}; state 0 = none, 1 = being
   * written, 2 = requested (the host library's watcher then ends the job with `code`). */
  int32_t *exit_request;
  uint64_t *wait_any_counter; /* device memory: rotates the first index the _any waits and tests try */
  uint64_t reserved[2];
};

static_assert(sizeof(DeviceState) == 112, "DeviceState layout changed: bump kDeviceStateAbi");

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
