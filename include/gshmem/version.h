/* gshmem version and the NVSHMEM API level it implements.
 *
 * GSHMEM_VERSION_* is the version of this library. The NVSHMEM_VENDOR_* macros in the compat
 * headers report the NVSHMEM release whose API this library is source compatible with, so that
 * programs that test for NVSHMEM features by version keep taking their modern paths. */
#ifndef GSHMEM_VERSION_H_
#define GSHMEM_VERSION_H_

#define GSHMEM_VERSION_MAJOR 0
#define GSHMEM_VERSION_MINOR 1
#define GSHMEM_VERSION_PATCH 0
#define GSHMEM_VERSION_STRING "0.1.0"
/* major * 10000 + minor * 100 + patch */
#define GSHMEM_VERSION (GSHMEM_VERSION_MAJOR * 10000 + GSHMEM_VERSION_MINOR * 100 + GSHMEM_VERSION_PATCH)

/* The NVSHMEM release whose API we implement. */
#define GSHMEM_NVSHMEM_API_MAJOR 3
#define GSHMEM_NVSHMEM_API_MINOR 8
#define GSHMEM_NVSHMEM_API_PATCH 0
#define GSHMEM_NVSHMEM_API_STRING "3.8.0"

/* The OpenSHMEM specification level (what nvshmem_info_get_version reports). */
#define GSHMEM_OPENSHMEM_MAJOR 1
#define GSHMEM_OPENSHMEM_MINOR 3

#endif /* GSHMEM_VERSION_H_ */
