#include "heap/symmetric_heap.h"

#include <unistd.h>

#include <algorithm>

#include "bootstrap/bootstrap.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {
inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

Status SymmetricHeap::init(Bootstrap* boot, std::unique_ptr<MemoryProvider> provider, const HeapOptions& options,
                           const std::vector<int>& node_pes, uint64_t job_key) {
  boot_ = boot;
  provider_ = std::move(provider);
  options_ = options;
  node_pes_ = node_pes;
  const int me = boot->rank();
  my_index_ = static_cast<size_t>(std::find(node_pes_.begin(), node_pes_.end(), me) - node_pes_.begin());
  const uint64_t gran = provider_->granularity();
  slot_ = round_up(std::max<uint64_t>(options.limit_bytes, gran), gran);
  if (options.initial_bytes > slot_) {
    GSHMEM_ERROR("NVSHMEM_SYMMETRIC_SIZE (%s) is larger than NVSHMEM_MAX_MEMORY_PER_GPU (%s); raise the latter",
                 format_size(options.initial_bytes).c_str(), format_size(options.limit_bytes).c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const size_t windows = options.map_peers ? node_pes_.size() : 1;
  reservation_bytes_ = slot_ * windows;
  GSHMEM_CHECK(provider_->reserve(reservation_bytes_, &reservation_));
  base_ = window(options.map_peers ? my_index_ : 0);
  peer_base_.assign(static_cast<size_t>(boot->size()), nullptr);
  peer_base_[me] = base_;
  if (options.map_peers) {
    for (size_t i = 0; i < node_pes_.size(); ++i) peer_base_[node_pes_[i]] = window(i);
    if (node_pes_.size() > 1) GSHMEM_CHECK(exchange_.open(job_key, me, node_pes_, options.timeout_s));
  }
  GSHMEM_INFO(kMem, "symmetric heap: %s, %s per PE reserved (%zu window%s), granularity %s", provider_->name(),
              format_size(slot_).c_str(), windows, windows == 1 ? "" : "s", format_size(gran).c_str());
  uint64_t first = round_up(std::max<uint64_t>(options.initial_bytes, gran), gran);
  return grow(first, "nvshmem_init");
}

Status SymmetricHeap::grow(uint64_t bytes, const char* api) {
  // Every PE grows at the same call (the allocator is deterministic); check that every PE could
  // create its chunk before anyone waits for a peer's.
  int32_t status = GSHMEM_SUCCESS;
  uint64_t handle = 0;
  int fd = -1;
  if (mapped_ + bytes > slot_) {
    status = GSHMEM_ERROR_OUT_OF_MEMORY;
  } else {
    status = provider_->create(bytes, &handle, &fd);
    if (status == GSHMEM_SUCCESS) {
      status = provider_->map(base_ + mapped_, bytes, handle);
      if (status != GSHMEM_SUCCESS) {
        provider_->release(handle);
        ::close(fd);
      }
    }
  }
  std::vector<int32_t> all(static_cast<size_t>(boot_->size()));
  GSHMEM_CHECK(boot_->allgather(&status, all.data(), sizeof status));
  for (int pe = 0; pe < boot_->size(); ++pe) {
    if (all[pe] != GSHMEM_SUCCESS) {
      if (status == GSHMEM_SUCCESS) {
        provider_->unmap(base_ + mapped_, bytes);
        provider_->release(handle);
        ::close(fd);
      }
      if (pe != boot_->rank() && all[pe] != GSHMEM_ERROR_OUT_OF_MEMORY) {
        GSHMEM_ERROR("%s: PE %d could not grow its symmetric heap (%s)", api, pe,
                     gshmem_status_string(static_cast<Status>(all[pe])));
      }
      return static_cast<Status>(all[pe]);
    }
  }
  mappings_.push_back({base_ + mapped_, bytes, handle});
  if (options_.map_peers && node_pes_.size() > 1) {
    std::vector<int> fds;
    Status s = exchange_.exchange(++growths_, fd, &fds);
    ::close(fd);
    GSHMEM_CHECK(s);
    for (size_t i = 0; i < node_pes_.size(); ++i) {
      if (i == my_index_) continue;
      uint64_t h = 0;
      s = provider_->import(fds[i], bytes, &h);
      ::close(fds[i]);
      fds[i] = -1;
      if (ok(s)) {
        s = provider_->map(window(i) + mapped_, bytes, h);
        if (ok(s)) {
          mappings_.push_back({window(i) + mapped_, bytes, h});
        } else {
          provider_->release(h);
        }
      }
      if (!ok(s)) {
        GSHMEM_ERROR("cannot map the symmetric heap of PE %d", node_pes_[i]);
        for (int f : fds) {
          if (f >= 0) ::close(f);
        }
        return s;
      }
    }
  } else {
    ::close(fd);
  }
  allocator_.grow(bytes);
  mapped_ += bytes;
  GSHMEM_INFO(kMem, "symmetric heap grew by %s to %s (limit %s)", format_size(bytes).c_str(),
              format_size(mapped_).c_str(), format_size(slot_).c_str());
  return GSHMEM_SUCCESS;
}

Status SymmetricHeap::allocate(uint64_t size, uint64_t align, uint64_t* offset, const char* api) {
  if (allocator_.allocate(size, align, offset)) return GSHMEM_SUCCESS;
  uint64_t need = allocator_.growth_needed(size, align);
  const uint64_t gran = provider_->granularity();
  uint64_t step = round_up(std::max(need, options_.growth_step), gran);
  // Near the limit, grow by what is needed rather than by a whole step.
  if (mapped_ + step > slot_) step = round_up(need, gran);
  if (mapped_ + step > slot_) {
    GSHMEM_ERROR(
        "%s(%s): the symmetric heap is exhausted: %s in use in %zu allocations, largest free block %s; the heap has %s "
        "mapped and may grow to %s (NVSHMEM_MAX_MEMORY_PER_GPU). Raise NVSHMEM_MAX_MEMORY_PER_GPU or free symmetric "
        "memory",
        api, format_size(size).c_str(), format_size(allocator_.used()).c_str(), allocator_.live_blocks(),
        format_size(allocator_.largest_free()).c_str(), format_size(mapped_).c_str(), format_size(slot_).c_str());
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  Status s = grow(step, api);
  if (s == GSHMEM_ERROR_OUT_OF_MEMORY) {
    GSHMEM_ERROR("%s(%s): the symmetric heap could not grow by %s (%s mapped, limit %s): a PE is out of %s", api,
                 format_size(size).c_str(), format_size(step).c_str(), format_size(mapped_).c_str(),
                 format_size(slot_).c_str(), provider_->name());
  }
  GSHMEM_CHECK(s);
  return allocator_.allocate(size, align, offset) ? GSHMEM_SUCCESS : GSHMEM_ERROR_INTERNAL;
}

Status SymmetricHeap::free(uint64_t offset) {
  return allocator_.free(offset) ? GSHMEM_SUCCESS : GSHMEM_ERROR_INVALID_VALUE;
}

void SymmetricHeap::finalize() {
  if (!provider_) return;
  for (auto it = mappings_.rbegin(); it != mappings_.rend(); ++it) {
    provider_->unmap(it->addr, it->bytes);
    provider_->release(it->handle);
  }
  mappings_.clear();
  if (reservation_) provider_->unreserve(reservation_, reservation_bytes_);
  reservation_ = nullptr;
  base_ = nullptr;
  mapped_ = 0;
  exchange_.close();
  provider_.reset();
}

}  // namespace gshmem
