/* gshmem's own names for the constants of the API: team ids, wait comparisons, signal operations,
 * and the vendor strings. Usable from C, C++ and device code. The values are NVSHMEM's (they are
 * part of its ABI), so the compat headers define NVSHMEM's names as these; code below the compat
 * layer uses only these. */
#ifndef GSHMEM_CONSTANTS_H_
#define GSHMEM_CONSTANTS_H_

#include "gshmem/version.h"

/* The predefined teams. Teams made by splits get ids from GSHMEM_TEAMS_PREDEFINED on. */
enum gshmem_team_id {
  GSHMEM_TEAM_INVALID = -1,
  GSHMEM_TEAM_WORLD = 0,          /* every PE */
  GSHMEM_TEAM_SHARED = 1,         /* the PEs whose heaps this PE maps (its node, unless P2P is off) */
  GSHMEM_TEAM_NODE = 2,           /* the PEs of this PE's host */
  GSHMEM_TEAM_SAME_MYPE_NODE = 3, /* one PE per node: those with this PE's index in their node */
  GSHMEM_TEAM_SAME_GPU = 4,       /* reserved by NVSHMEM's numbering */
  GSHMEM_TEAM_GPU_LEADERS = 5,    /* reserved by NVSHMEM's numbering */
  GSHMEM_TEAMS_PREDEFINED = 6
};

/* The comparisons of the wait and test calls: `ivar cmp value`. */
enum gshmem_cmp {
  GSHMEM_CMP_EQ = 0,
  GSHMEM_CMP_NE = 1,
  GSHMEM_CMP_GT = 2,
  GSHMEM_CMP_LE = 3,
  GSHMEM_CMP_LT = 4,
  GSHMEM_CMP_GE = 5
};

/* The signal updates of put_signal and signal_op. */
enum gshmem_signal_op { GSHMEM_SIGNAL_SET = 9, GSHMEM_SIGNAL_ADD = 10 };

/* The hints of an RMA region (region_start): bits of its attributes' `hints`. BATCH_RMA lets the
 * transports post the region's non-blocking operations together (core/regions.h says what ours do). */
enum gshmem_region_hint { GSHMEM_REGION_HINT_NONE = 0, GSHMEM_REGION_HINT_BATCH_RMA = 1 };
#define GSHMEM_REGION_HINTS_ALL 1u

/* Queue pairs (NVSHMEM 3.5; gshmem/device/qp.cuh): the handles qp_create hands out and the PE that means
 * every PE in qp_quiet / qp_fence. */
enum gshmem_qp_index {
  GSHMEM_QP_HOST = 0,
  GSHMEM_QP_DEFAULT = 1,
  GSHMEM_QP_ANY = 0x7fffffff,
  GSHMEM_QP_ALL = 0x7fffffff
};
enum gshmem_qp_pe { GSHMEM_QP_PE_INVALID = -1, GSHMEM_QP_PE_ANY = 32768, GSHMEM_QP_PE_ALL = 32768 };

/* How much shared memory a block lends the library (ask_smem; gshmem/device/smem.cuh). */
enum gshmem_smem_amount { GSHMEM_SMEM_RECOMMENDED = 0, GSHMEM_SMEM_MINIMUM = 1, GSHMEM_SMEM_BARRIERS_ONLY = 2 };

/* What nvshmem_info_get_name reports, and the size of its buffer. */
#define GSHMEM_VENDOR_STRING "gshmem v" GSHMEM_VERSION_STRING " (NVSHMEM " GSHMEM_NVSHMEM_API_STRING " API)"
#define GSHMEM_MAX_NAME_LEN 256

#endif /* GSHMEM_CONSTANTS_H_ */
