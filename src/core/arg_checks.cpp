// The argument checks of the host API: a wrong argument ends the job with a message naming the
// call and the value (NVSHMEM's void functions have no way to report an error, and going on would
// corrupt memory or hang).
#include "core/arg_checks.h"

#include "core/runtime.h"
#include "gshmem/constants.h"
#include "transport/path.h"
#include "util/log.h"

namespace gshmem {

void ArgChecks::check_pe(int pe, const char* api) const {
  if (!rt_.initialized()) rt_.not_ready(api);
  if (pe < 0 || pe >= rt_.n_pes()) {
    log::misuse("%s: PE %d is out of range: valid PEs are 0 to %d (%d PEs)", api, pe, rt_.n_pes() - 1, rt_.n_pes());
  }
}

void ArgChecks::check_local_buffer(const void* p, size_t bytes, const char* what, const char* api) const {
  // Memory outside the heap's address space is the program's own, not ours to check; inside it,
  // only what is mapped can be read or written.
  if (!rt_.heap().in_reservation(p) || rt_.heap().in_mapped_window(p, bytes)) return;
  log::misuse(
      "%s: the local %s %p (%zu bytes) lies in the symmetric heap's address space but runs past its mapped part "
      "(this PE's heap is [%p, %p)); a local buffer in the heap must lie inside memory from nvshmem_malloc",
      api, what, p, bytes, static_cast<void*>(rt_.heap().base()),
      static_cast<void*>(rt_.heap().base() + rt_.heap().mapped()));
}

void ArgChecks::check_in_heap(const void* p, size_t bytes, const char* what, const char* api) const {
  if (rt_.heap().contains(p, bytes)) return;
  log::misuse(
      "%s: the %s %p (%zu bytes) is not inside the symmetric heap [%p, %p); it must be memory from nvshmem_malloc", api,
      what, p, bytes, static_cast<void*>(rt_.heap().base()),
      static_cast<void*>(rt_.heap().base() + rt_.heap().mapped()));
}

RemoteTarget ArgChecks::target(const void* sym, size_t bytes, int pe, const char* what, const char* api) const {
  check_pe(pe, api);
  check_in_heap(sym, bytes, what, api);
  const uint64_t offset = static_cast<uint64_t>(static_cast<const char*>(sym) - rt_.heap().base());
  PeerPath& path = rt_.transports().path(pe);
  if (path.kind() == PathKind::kUnreachable) {
    log::misuse("%s: PE %d cannot be reached from PE %d: %s", api, pe, rt_.my_pe(), path.reason().c_str());
  }
  return RemoteTarget{&path, offset};
}

void ArgChecks::check_local(const void* p, size_t bytes, size_t align, const char* what, const char* api) const {
  if (!rt_.initialized()) rt_.not_ready(api);
  check_in_heap(p, bytes, what, api);
  if (reinterpret_cast<uintptr_t>(p) % align != 0) {
    log::misuse("%s: the %s %p is not aligned to its size (%zu bytes)", api, what, p, align);
  }
}

void ArgChecks::check_signal_op(int sig_op, const char* api) const {
  if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD) {
    log::misuse("%s: signal operation %d is not NVSHMEM_SIGNAL_SET (%d) or NVSHMEM_SIGNAL_ADD (%d)", api, sig_op,
               GSHMEM_SIGNAL_SET, GSHMEM_SIGNAL_ADD);
  }
}

void ArgChecks::check_comparison(int cmp, const char* api) const {
  if (cmp < GSHMEM_CMP_EQ || cmp > GSHMEM_CMP_GE) {
    log::misuse(
        "%s: comparison %d is not one of NVSHMEM_CMP_EQ (0), NVSHMEM_CMP_NE (1), NVSHMEM_CMP_GT (2), NVSHMEM_CMP_LE "
        "(3), NVSHMEM_CMP_LT (4) or NVSHMEM_CMP_GE (5)",
        api, cmp);
  }
}

}  // namespace gshmem
