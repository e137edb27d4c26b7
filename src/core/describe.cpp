// gshmem_describe: the job in words, from the runtime's state.
#include "gshmem/describe.h"

#include <cstdio>
#include <string>

#include "core/runtime.h"

extern "C" int gshmem_describe(gshmem_describe_item_t item, int pe, char* buf, size_t len) {
  gshmem::Runtime& rt = gshmem::Runtime::instance();
  if (rt.init_state() == gshmem::kNotInitialized) return -1;
  std::string text, why;
  switch (item) {
    case GSHMEM_DESCRIBE_STARTED_BY:
      text = rt.started_by();
      break;
    case GSHMEM_DESCRIBE_BACKEND:
      text = rt.backend() == gshmem::Backend::kGpu ? "GPU" : "CPU";
      break;
    case GSHMEM_DESCRIBE_BACKEND_REASON:
      text = rt.backend_reason();
      break;
    case GSHMEM_DESCRIBE_HOST:
      text = rt.host_name();
      break;
    case GSHMEM_DESCRIBE_MEMORY:
      text = rt.device();
      if (text.empty()) return -1;
      break;
    case GSHMEM_DESCRIBE_ROUTE:
    case GSHMEM_DESCRIBE_ROUTE_REASON:
      text = rt.transports().describe(pe, &why);
      if (text.empty()) return -1;
      if (item == GSHMEM_DESCRIBE_ROUTE_REASON) text = why;
      break;
    default:
      return -1;
  }
  if (buf && len > 0) std::snprintf(buf, len, "%s", text.c_str());
  return static_cast<int>(text.size());
}
