#include "core/regions.h"

#include "gshmem/constants.h"
#include "util/log.h"

namespace gshmem {

Status Regions::start(uint64_t* handle, uint32_t hints, const char* api) {
  if (handle == nullptr) {
    GSHMEM_ERROR("%s: the handle pointer is NULL: pass the address of an nvshmemx_region_handle_t", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if ((hints & ~GSHMEM_REGION_HINTS_ALL) != 0) {
    GSHMEM_ERROR("%s: hint bits 0x%x are not region hints (NVSHMEMX_REGION_HINT_NONE or _BATCH_RMA)", api,
                 hints & ~GSHMEM_REGION_HINTS_ALL);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (active_) {
    GSHMEM_ERROR("%s: region %llu of this PE is still active (regions do not nest): stop it first", api,
                 static_cast<unsigned long long>(handle_));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  active_ = true;
  hints_ = hints;
  handle_ = ++last_handle_;
  *handle = handle_;
  return GSHMEM_SUCCESS;
}

Status Regions::stop(uint64_t handle, const char* api) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!active_) {
    GSHMEM_ERROR("%s: no region of this PE is active (region %llu was never started, or already stopped)", api,
                 static_cast<unsigned long long>(handle));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (handle != handle_) {
    GSHMEM_ERROR("%s: handle %llu is not the active region's (%llu)", api, static_cast<unsigned long long>(handle),
                 static_cast<unsigned long long>(handle_));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  active_ = false;
  return GSHMEM_SUCCESS;
}

Status Regions::is_active(uint32_t hints, int* active, const char* api) const {
  if (active == nullptr) {
    GSHMEM_ERROR("%s: the result pointer is NULL", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if ((hints & ~GSHMEM_REGION_HINTS_ALL) != 0) {
    GSHMEM_ERROR("%s: hint bits 0x%x are not region hints", api, hints & ~GSHMEM_REGION_HINTS_ALL);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(mu_);
  *active = active_ && (hints_ & hints) == hints ? 1 : 0;
  return GSHMEM_SUCCESS;
}

void Regions::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  active_ = false;
}

}  // namespace gshmem
