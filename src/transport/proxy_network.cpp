// The proxy's network part (see proxy_network.h).
#ifdef GSHMEM_HAVE_CUDA

#include "transport/proxy_network.h"

#include "util/config.h"
#include "util/cuda_driver.h"
#include "util/log.h"

namespace gshmem {
namespace {

static_assert(static_cast<int>(AmoOp::kLoad) == detail::kProxyAmoLoad &&
                  static_cast<int>(AmoOp::kStore) == detail::kProxyAmoStore &&
                  static_cast<int>(AmoOp::kAdd) == detail::kProxyAmoAdd &&
                  static_cast<int>(AmoOp::kAnd) == detail::kProxyAmoAnd &&
                  static_cast<int>(AmoOp::kOr) == detail::kProxyAmoOr &&
                  static_cast<int>(AmoOp::kXor) == detail::kProxyAmoXor &&
                  static_cast<int>(AmoOp::kSwap) == detail::kProxyAmoSwap &&
                  static_cast<int>(AmoOp::kCompareSwap) == detail::kProxyAmoCompareSwap,
              "the ring's AMO codes are the transport's");

const char* op_name(uint32_t op) {
  switch (op & ~detail::kProxyFetch) {
    case detail::kProxyPut:
      return "put";
    case detail::kProxyGet:
      return "get";
    case detail::kProxyAmo:
      return "atomic";
    case detail::kProxyFence:
      return "fence";
    default:
      return "request";
  }
}

}  // namespace

ProxyNetwork::~ProxyNetwork() {
  GSHMEM_INFO(kProxy, "network proxy: %llu requests from kernels (%s moved), %llu network quiets",
              static_cast<unsigned long long>(requests_), format_size(bytes_).c_str(),
              static_cast<unsigned long long>(quiets_));
}

std::string ProxyNetwork::describe(uint64_t ticket, const detail::ProxyRequest& r) const {
  return log::format(
      "a %s of %llu bytes at heap offset 0x%llx of PE %d (request %llu of a kernel, through the "
      "network proxy)",
      op_name(r.op), static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.offset), r.pe,
      static_cast<unsigned long long>(ticket));
}

void ProxyNetwork::fail(uint64_t ticket, const detail::ProxyRequest& r, const std::string& why) {
  __atomic_store_n(&ring_->error, 1, __ATOMIC_RELEASE);
  log::fatal("%s failed: %s; the job cannot go on", describe(ticket, r).c_str(), why.c_str());
}

void ProxyNetwork::serve(uint64_t ticket, const detail::ProxyRequest& r) {
  last_ = ticket;
  const uint32_t code = r.op & ~detail::kProxyFetch;
  const bool fetch = (r.op & detail::kProxyFetch) != 0;
  if (code != detail::kProxyFence && !network_->reaches(r.pe)) {
    fail(ticket, r, log::format("PE %d is not reached through the network from this PE", r.pe));
  }
  if (r.local != 0 && r.bytes > 0) {
    const void* first = reinterpret_cast<const void*>(r.local);
    const void* last = reinterpret_cast<const void*>(r.local + r.bytes - 1);
    if (!cuda_pointer_known(first) && !(host_memory_mapped(first) && host_memory_mapped(last))) {
      fail(ticket, r,
           log::format("its local buffer 0x%llx is neither GPU memory nor host memory of this process",
                       static_cast<unsigned long long>(r.local)));
    }
  }
  if ((r.local == 0 || fetch) && code != detail::kProxyFence && r.bytes > detail::kProxyInlineBytes) {
    fail(ticket, r, "a request that carries its data holds at most 16 bytes (the device code is from another gshmem)");
  }
  uint64_t* value = nullptr;  // a fetch's destination
  if (fetch) {
    if (fetched_ == kBatch) complete();  // the fetch buffer is full: hand its values over first
    Fetch& f = fetches_[fetched_++];
    f.ticket = ticket;
    f.value[0] = f.value[1] = 0;
    value = f.value;
  }
  Status s = GSHMEM_SUCCESS;
  switch (code) {
    case detail::kProxyPut:
      if (r.local != 0) {
        s = network_->put(r.pe, r.offset, reinterpret_cast<const void*>(r.local), r.bytes, Completion::kNbi);
      } else {
        s = network_->put(r.pe, r.offset, r.data, r.bytes, Completion::kBlocking);
      }
      pending_ = true;
      break;
    case detail::kProxyGet:
      s = network_->get(fetch ? static_cast<void*>(value) : reinterpret_cast<void*>(r.local), r.pe, r.offset, r.bytes,
                        Completion::kNbi);
      pending_ = true;
      break;
    case detail::kProxyAmo: {
      if (!amo_applies(static_cast<AmoOp>(r.amo), r.amo_bytes)) {
        fail(ticket, r, log::format("atomic operation %d on %d bytes is not one of the ring's", r.amo, r.amo_bytes));
      }
      const Amo amo{static_cast<AmoOp>(r.amo), r.amo_bytes, r.data[0], r.data[1]};
      s = network_->atomic(r.pe, r.offset, amo, value, Completion::kNbi);
      pending_ = true;
      break;
    }
    case detail::kProxyFence:
      s = network_->fence();
      break;
    default:
      fail(ticket, r, log::format("request code %u is not one of the ring's", r.op));
  }
  if (!ok(s)) fail(ticket, r, "the network transport's message above says why");
  ++requests_;
  bytes_ += code == detail::kProxyFence ? 0 : r.bytes;
}

void ProxyNetwork::complete() {
  if (pending_) {
    Status s = network_->quiet();
    if (!ok(s)) {
      detail::ProxyRequest r{};
      r.pe = -1;
      fail(last_, r,
           "completing the kernels' requests (a network quiet) failed; the network transport's message above "
           "says why");
    }
    pending_ = false;
    ++quiets_;
  }
  for (size_t i = 0; i < fetched_; ++i) {
    const Fetch& f = fetches_[i];
    detail::ProxySlot& slot = ring_->slots[f.ticket % detail::kProxyRingSlots];
    slot.result[0] = f.value[0];
    slot.result[1] = f.value[1];
    __atomic_store_n(&slot.turn, f.ticket | detail::kProxyResultReady, __ATOMIC_RELEASE);
  }
  fetched_ = 0;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
