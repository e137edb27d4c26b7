/* Symbol visibility for the host library. The library is built with hidden visibility; only
 * declarations marked GSHMEM_API are exported. Header-only device code is never exported. */
#ifndef GSHMEM_DETAIL_EXPORT_H_
#define GSHMEM_DETAIL_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define GSHMEM_API __attribute__((visibility("default")))
#else
#define GSHMEM_API
#endif

#endif /* GSHMEM_DETAIL_EXPORT_H_ */
