// Internal view of the one status enum (include/gshmem/status.h).
#pragma once

#include "gshmem/status.h"

namespace gshmem {

using Status = gshmem_status_t;

inline bool ok(Status s) { return s == GSHMEM_SUCCESS; }

}  // namespace gshmem

// Returns the status of `call` from the enclosing function when it is not GSHMEM_SUCCESS. The
// failing call has already logged why; this adds nothing but the early return.
#define GSHMEM_CHECK(call)                                                   \
  do {                                                                       \
    ::gshmem::Status gshmem_check_status_ = (call);                          \
    if (gshmem_check_status_ != GSHMEM_SUCCESS) return gshmem_check_status_; \
  } while (0)
