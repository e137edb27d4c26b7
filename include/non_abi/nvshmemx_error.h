/* NVSHMEM's error codes and the error-check macros that NVSHMEM programs (its examples and
 * perftests among them) include from this path. Written for gshmem from their described behaviour:
 * each prints "file:line: " and the message to stderr, then acts.
 *   NVSHMEMI_ERROR_PRINT(...)                      print
 *   NVSHMEMI_WARN_PRINT(...)                       print, prefixed with "WARN: "
 *   NVSHMEMI_ERROR_EXIT(...)                       print, then exit(-1)
 *   NVSHMEMI_NZ_EXIT(status, ...)                  if status != 0: print with the status, exit(-1)
 *   NVSHMEMI_NZ_ERROR_JMP(status, err, label, ...) if status != 0: print, status = err, goto label
 *   NVSHMEMI_NULL_ERROR_JMP(var, status, err, label, ...)  if var == NULL: print, status = err, goto label
 *   NVSHMEMI_EQ_ERROR_JMP(a, b, status, err, label, ...)   if a == b: the same
 *   NVSHMEMI_NE_ERROR_JMP(a, b, status, err, label, ...)   if a != b: the same */
#ifndef NVSHMEMX_ERROR_H_GSHMEM_
#define NVSHMEMX_ERROR_H_GSHMEM_

#include <stdio.h>
#include <stdlib.h>

#include "gshmem/compat/nvshmem_types.h"

#define NVSHMEMI_ERROR_PRINT(...)                   \
  do {                                              \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                   \
  } while (0)

#define NVSHMEMI_WARN_PRINT(...)                          \
  do {                                                    \
    fprintf(stderr, "%s:%d: WARN: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                         \
  } while (0)

#define NVSHMEMI_ERROR_EXIT(...)       \
  do {                                 \
    NVSHMEMI_ERROR_PRINT(__VA_ARGS__); \
    exit(-1);                          \
  } while (0)

#define NVSHMEMI_NZ_EXIT(status, ...)                                                    \
  do {                                                                                   \
    if ((status) != 0) {                                                                 \
      fprintf(stderr, "%s:%d: non-zero status: %d ", __FILE__, __LINE__, (int)(status)); \
      fprintf(stderr, __VA_ARGS__);                                                      \
      exit(-1);                                                                          \
    }                                                                                    \
  } while (0)

#define NVSHMEMI_NZ_ERROR_JMP(status, err, label, ...)                                   \
  do {                                                                                   \
    if ((status) != 0) {                                                                 \
      fprintf(stderr, "%s:%d: non-zero status: %d ", __FILE__, __LINE__, (int)(status)); \
      fprintf(stderr, __VA_ARGS__);                                                      \
      (status) = (err);                                                                  \
      goto label;                                                                        \
    }                                                                                    \
  } while (0)

#define NVSHMEMI_NULL_ERROR_JMP(var, status, err, label, ...) \
  do {                                                        \
    if ((var) == NULL) {                                      \
      NVSHMEMI_ERROR_PRINT(__VA_ARGS__);                      \
      (status) = (err);                                       \
      goto label;                                             \
    }                                                         \
  } while (0)

#define NVSHMEMI_EQ_ERROR_JMP(a, b, status, err, label, ...) \
  do {                                                       \
    if ((a) == (b)) {                                        \
      NVSHMEMI_ERROR_PRINT(__VA_ARGS__);                     \
      (status) = (err);                                      \
      goto label;                                            \
    }                                                        \
  } while (0)

#define NVSHMEMI_NE_ERROR_JMP(a, b, status, err, label, ...) \
  do {                                                       \
    if ((a) != (b)) {                                        \
      NVSHMEMI_ERROR_PRINT(__VA_ARGS__);                     \
      (status) = (err);                                      \
      goto label;                                            \
    }                                                        \
  } while (0)

#endif /* NVSHMEMX_ERROR_H_GSHMEM_ */
