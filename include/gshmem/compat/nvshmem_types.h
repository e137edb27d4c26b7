/* NVSHMEM-compatible types, constants and version macros.
 *
 * Every value here equals the value NVSHMEM 3.4.5 uses, so that programs (and data they store)
 * keep their meaning. Layouts of the attribute structs match NVSHMEM's, including the
 * (struct_version << 16) + sizeof(struct) version encoding. */
#ifndef GSHMEM_COMPAT_NVSHMEM_TYPES_H_
#define GSHMEM_COMPAT_NVSHMEM_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#include "gshmem/constants.h"
#include "gshmem/status.h"
#include "gshmem/version.h"

/* cudaStream_t for the *_on_stream entry points. The CUDA runtime header is used when it is on
 * the include path; otherwise the same opaque handle is declared here so that host-only programs
 * build without the CUDA toolkit (the CPU backend needs none). */
#if defined(__CUDACC__) || defined(__has_include)
#if defined(__CUDACC__) || __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define GSHMEMI_HAVE_CUDA_RUNTIME_HEADER 1
#endif
#endif
#ifndef GSHMEMI_HAVE_CUDA_RUNTIME_HEADER
struct CUstream_st;
typedef struct CUstream_st *cudaStream_t;
#endif

/* CUmodule and CUlibrary for nvshmemx_cumodule_init / nvshmemx_culibrary_init: from the driver API
 * header when it is on the include path, otherwise the same opaque handles. */
#if defined(__CUDACC__) || defined(__has_include)
#if defined(__CUDACC__) || __has_include(<cuda.h>)
#include <cuda.h>
#define GSHMEMI_HAVE_CUDA_DRIVER_HEADER 1
#endif
#endif
#ifndef GSHMEMI_HAVE_CUDA_DRIVER_HEADER
struct CUmod_st;
typedef struct CUmod_st *CUmodule;
struct CUlib_st;
typedef struct CUlib_st *CUlibrary;
#endif

/* __half and __nv_bfloat16 exist only in C++ and where the CUDA headers are available. */
#if defined(__CUDACC__) || \
    (defined(__cplusplus) && defined(__has_include) && __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>))
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define GSHMEMI_HAVE_CUDA_FP16 1
#endif

/* ---- versions ---------------------------------------------------------------------------- */
#define NVSHMEM_VENDOR_MAJOR_VERSION GSHMEM_NVSHMEM_API_MAJOR
#define NVSHMEM_VENDOR_MINOR_VERSION GSHMEM_NVSHMEM_API_MINOR
#define NVSHMEM_VENDOR_PATCH_VERSION GSHMEM_NVSHMEM_API_PATCH
#define NVSHMEM_VENDOR_PACKAGE_VERSION 0
#define NVSHMEM_VENDOR_VERSION \
  (NVSHMEM_VENDOR_MAJOR_VERSION * 10000 + NVSHMEM_VENDOR_MINOR_VERSION * 100 + NVSHMEM_VENDOR_PATCH_VERSION)
#define NVSHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
#define NVSHMEM_MAJOR_VERSION GSHMEM_OPENSHMEM_MAJOR
#define NVSHMEM_MINOR_VERSION GSHMEM_OPENSHMEM_MINOR
#define NVSHMEM_MAX_NAME_LEN GSHMEM_MAX_NAME_LEN

/* ---- status ------------------------------------------------------------------------------ */
typedef enum {
  NVSHMEMX_SUCCESS = 0,
  NVSHMEMX_ERROR_INVALID_VALUE = 1,
  NVSHMEMX_ERROR_OUT_OF_MEMORY = 2,
  NVSHMEMX_ERROR_NOT_SUPPORTED = 3,
  NVSHMEMX_ERROR_SYMMETRY = 4,
  NVSHMEMX_ERROR_GPU_NOT_SELECTED = 5,
  NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED = 6,
  NVSHMEMX_ERROR_INTERNAL = 7,
  NVSHMEMX_ERROR_SENTINEL = 1 << 30
} nvshmemx_status;

/* The name of a status code ("NVSHMEMX_ERROR_SYMMETRY"), or "NVSHMEMX_ERROR_<unknown>" for a value that
 * is none of them (NVSHMEM 3.8). Inline, as in NVSHMEM: no library symbol; callable from device code. */
#if defined(__CUDACC__)
__host__ __device__
#endif
    static inline const char *
    nvshmemx_status_string(int status) {
  switch (status) {
    case NVSHMEMX_SUCCESS:
      return "NVSHMEMX_SUCCESS";
    case NVSHMEMX_ERROR_INVALID_VALUE:
      return "NVSHMEMX_ERROR_INVALID_VALUE";
    case NVSHMEMX_ERROR_OUT_OF_MEMORY:
      return "NVSHMEMX_ERROR_OUT_OF_MEMORY";
    case NVSHMEMX_ERROR_NOT_SUPPORTED:
      return "NVSHMEMX_ERROR_NOT_SUPPORTED";
    case NVSHMEMX_ERROR_SYMMETRY:
      return "NVSHMEMX_ERROR_SYMMETRY";
    case NVSHMEMX_ERROR_GPU_NOT_SELECTED:
      return "NVSHMEMX_ERROR_GPU_NOT_SELECTED";
    case NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED:
      return "NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED";
    case NVSHMEMX_ERROR_INTERNAL:
      return "NVSHMEMX_ERROR_INTERNAL";
    default:
      return "NVSHMEMX_ERROR_<unknown>";
  }
}

typedef enum {
  NVSHMEM_STATUS_NOT_INITIALIZED = 0,
  NVSHMEM_STATUS_IS_BOOTSTRAPPED = 1,
  NVSHMEM_STATUS_IS_INITIALIZED = 2,
  NVSHMEM_STATUS_LIMITED_MPG = 3,
  NVSHMEM_STATUS_FULL_MPG = 4,
  NVSHMEM_STATUS_INVALID = 1 << 30
} nvshmemx_init_status_t;

/* ---- shared memory lent for bulk copies (3.7) --------------------------------------------- */
typedef enum {
  NVSHMEMX_SMEM_RECOMMENDED = GSHMEM_SMEM_RECOMMENDED,
  NVSHMEMX_SMEM_MINIMUM = GSHMEM_SMEM_MINIMUM,
  NVSHMEMX_SMEM_BARRIERS_ONLY = GSHMEM_SMEM_BARRIERS_ONLY
} nvshmemx_smem_amount_t;

/* ---- queue pairs (3.5) --------------------------------------------------------------------- */
typedef int nvshmemx_qp_handle_t;
typedef enum {
  NVSHMEMX_QP_HOST = GSHMEM_QP_HOST,
  NVSHMEMX_QP_DEFAULT = GSHMEM_QP_DEFAULT,
  NVSHMEMX_QP_ANY = GSHMEM_QP_ANY,
  NVSHMEMX_QP_ALL = GSHMEM_QP_ALL
} nvshmemx_qp_handle_index_t;
typedef enum {
  NVSHMEM_PE_INVALID = GSHMEM_QP_PE_INVALID,
  NVSHMEMX_PE_ANY = GSHMEM_QP_PE_ANY,
  NVSHMEMX_PE_ALL = GSHMEM_QP_PE_ALL
} nvshmem_pe_index_t;

/* ---- RMA regions (3.8) -------------------------------------------------------------------- */
typedef uint64_t nvshmemx_region_handle_t;
typedef enum {
  NVSHMEMX_REGION_HINT_NONE = GSHMEM_REGION_HINT_NONE,
  NVSHMEMX_REGION_HINT_BATCH_RMA = GSHMEM_REGION_HINT_BATCH_RMA
} nvshmemx_region_hint_t;
/* 64 bytes: the hints (bits of nvshmemx_region_hint_t), the rest reserved (zero). */
typedef struct {
  uint32_t hints;
  char reserved[60];
} nvshmemx_region_attrs_t;
#define NVSHMEMX_REGION_ATTRS_INITIALIZER \
  {                                       \
    NVSHMEMX_REGION_HINT_NONE, { 0 }      \
  }

/* ---- threads ----------------------------------------------------------------------------- */
enum nvshmemx_thread_support_t {
  NVSHMEM_THREAD_SINGLE = 0,
  NVSHMEM_THREAD_FUNNELED = 1,
  NVSHMEM_THREAD_SERIALIZED = 2,
  NVSHMEM_THREAD_MULTIPLE = 3,
  NVSHMEM_THREAD_TYPE_SENTINEL = 1 << 30
};

/* ---- teams ------------------------------------------------------------------------------- */
typedef int32_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;

enum nvshmem_team_id_t {
  NVSHMEM_TEAM_INVALID = GSHMEM_TEAM_INVALID,
  NVSHMEM_TEAM_WORLD = GSHMEM_TEAM_WORLD,
  NVSHMEM_TEAM_WORLD_INDEX = 0,
  NVSHMEM_TEAM_SHARED = GSHMEM_TEAM_SHARED,
  NVSHMEM_TEAM_SHARED_INDEX = 1,
  NVSHMEMX_TEAM_NODE = GSHMEM_TEAM_NODE,
  NVSHMEM_TEAM_NODE_INDEX = 2,
  NVSHMEMX_TEAM_SAME_MYPE_NODE = GSHMEM_TEAM_SAME_MYPE_NODE,
  NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX = 3,
  NVSHMEMI_TEAM_SAME_GPU = GSHMEM_TEAM_SAME_GPU,
  NVSHMEM_TEAM_SAME_GPU_INDEX = 4,
  NVSHMEMI_TEAM_GPU_LEADERS = GSHMEM_TEAM_GPU_LEADERS,
  NVSHMEM_TEAM_GPU_LEADERS_INDEX = 5,
  NVSHMEM_TEAMS_MIN = GSHMEM_TEAMS_PREDEFINED,
  NVSHMEM_TEAM_INDEX_MAX = 1 << 30
};

/* A team of any set of PEs (nvshmemx_team_init) is named by this ID, which one PE makes with
 * nvshmemx_team_get_uniqueid and hands to the others. */
typedef uint64_t nvshmemx_team_uniqueid_t;
#define NVSHMEMX_TEAM_UNIQUEID_INITIALIZER 0

/* Team configuration (version 2, 64 bytes). */
typedef struct {
  int version;
  int num_contexts;
  nvshmemx_team_uniqueid_t uniqueid;
  char padding[48];
} nvshmem_team_config_v2;
typedef nvshmem_team_config_v2 nvshmem_team_config_t;
#define NVSHMEM_TEAM_CONFIG_VERSION_2 2
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS 1
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID 2
#define NVSHMEM_TEAM_CONFIG_INITIALIZER                                                      \
  {                                                                                          \
    (NVSHMEM_TEAM_CONFIG_VERSION_2 << 16) + (int)sizeof(nvshmem_team_config_v2), 0, 0, { 0 } \
  }

/* ---- comparison and signal operators (gshmem/constants.h holds the values) ---------------- */
enum nvshmemi_cmp_type {
  NVSHMEM_CMP_EQ = GSHMEM_CMP_EQ,
  NVSHMEM_CMP_NE = GSHMEM_CMP_NE,
  NVSHMEM_CMP_GT = GSHMEM_CMP_GT,
  NVSHMEM_CMP_LE = GSHMEM_CMP_LE,
  NVSHMEM_CMP_LT = GSHMEM_CMP_LT,
  NVSHMEM_CMP_GE = GSHMEM_CMP_GE,
  NVSHMEM_CMP_SENTINEL = 1 << 30
};

typedef enum { NVSHMEM_SIGNAL_SET = GSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD = GSHMEM_SIGNAL_ADD } nvshmemx_signal_op_t;

/* ---- init attributes ----------------------------------------------------------------------- */
enum flags {
  NVSHMEMX_INIT_THREAD_PES = 1,
  NVSHMEMX_INIT_WITH_MPI_COMM = 1 << 1,
  NVSHMEMX_INIT_WITH_SHMEM = 1 << 2,
  NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3,
  NVSHMEMX_INIT_MAX = (int)0x80000000u
};

#define NVSHMEMI_STRUCT_VERSION(ver, type) (((ver) << 16) + (int)sizeof(type))

typedef struct {
  int version;
  char internal[124];
} nvshmemx_uniqueid_v1;
typedef nvshmemx_uniqueid_v1 nvshmemx_uniqueid_t;
#define NVSHMEMX_UNIQUEID_VERSION NVSHMEMI_STRUCT_VERSION(1, nvshmemx_uniqueid_v1)
#define NVSHMEMX_UNIQUEID_INITIALIZER \
  {                                   \
    NVSHMEMX_UNIQUEID_VERSION, { 0 }  \
  }

typedef struct {
  int version;
  nvshmemx_uniqueid_t *id;
  int myrank;
  int nranks;
} nvshmemx_uniqueid_args_v1;
typedef nvshmemx_uniqueid_args_v1 nvshmemx_uniqueid_args_t;
#define NVSHMEMX_UNIQUEID_ARGS_VERSION NVSHMEMI_STRUCT_VERSION(1, nvshmemx_uniqueid_args_v1)
#define NVSHMEMX_UNIQUEID_ARGS_INITIALIZER \
  { NVSHMEMX_UNIQUEID_ARGS_VERSION, NULL, -1, -1 }

typedef struct {
  int version;
  nvshmemx_uniqueid_args_t uid_args;
  int cuda_device_id; /* -1: not set; otherwise the CUDA device this PE uses */
  char content[92];
} nvshmemx_init_args_v2;
typedef nvshmemx_init_args_v2 nvshmemx_init_args_t;
#define NVSHMEMX_INIT_ARGS_VERSION NVSHMEMI_STRUCT_VERSION(2, nvshmemx_init_args_v2)

typedef struct {
  int version;
  void *mpi_comm; /* points to an MPI_Comm, for NVSHMEMX_INIT_WITH_MPI_COMM */
  nvshmemx_init_args_t args;
} nvshmemx_init_attr_v2;
typedef nvshmemx_init_attr_v2 nvshmemx_init_attr_t;
#define NVSHMEM_INIT_ATTR_V2_IDENTIFIER NVSHMEMI_STRUCT_VERSION(2, nvshmemx_init_attr_v2)
#define NVSHMEM_INIT_ATTR_V1_IDENTIFIER NVSHMEMI_STRUCT_VERSION(1, nvshmemx_init_attr_v2)

#define NVSHMEMX_INIT_ATTR_INITIALIZER                                          \
  {                                                                             \
    NVSHMEM_INIT_ATTR_V2_IDENTIFIER, NULL, {                                    \
      NVSHMEMX_INIT_ARGS_VERSION, NVSHMEMX_UNIQUEID_ARGS_INITIALIZER, -1, { 0 } \
    }                                                                           \
  }

#ifdef __cplusplus
static_assert(sizeof(nvshmemx_uniqueid_t) == 128, "nvshmemx_uniqueid_t must be 128 bytes");
static_assert(sizeof(nvshmemx_uniqueid_args_t) == 24, "nvshmemx_uniqueid_args_t must be 24 bytes");
static_assert(sizeof(nvshmemx_init_args_t) == 128, "nvshmemx_init_args_t must be 128 bytes");
static_assert(sizeof(nvshmemx_init_attr_t) == 144, "nvshmemx_init_attr_t must be 144 bytes");
static_assert(sizeof(nvshmem_team_config_t) == 64, "nvshmem_team_config_t must be 64 bytes");
static_assert(sizeof(nvshmemx_region_attrs_t) == 64, "nvshmemx_region_attrs_t must be 64 bytes");
#endif

#endif /* GSHMEM_COMPAT_NVSHMEM_TYPES_H_ */
