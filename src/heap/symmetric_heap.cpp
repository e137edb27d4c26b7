#include "heap/symmetric_heap.h"

#include <unistd.h>

#include <algorithm>
#include <numeric>

#include "bootstrap/bootstrap.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {
inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

Status SymmetricHeap::init(Bootstrap* boot, std::unique_ptr<MemoryProvider> provider, const HeapOptions& options,
                           const std::vector<int>& node_pes, const std::vector<int>& node_pids, uint64_t job_key,
                           uint64_t token) {
  boot_ = boot;
  provider_ = std::move(provider);
  options_ = options;
  node_pes_ = node_pes;
  const int me = boot->rank();
  my_index_ = static_cast<size_t>(std::find(node_pes_.begin(), node_pes_.end(), me) - node_pes_.begin());
  const uint64_t gran = provider_->granularity();
  slot_ = round_up(std::max<uint64_t>(options.limit_bytes, gran), gran);
  // Growth must happen at the same calls on every PE: the limits must agree.
  struct Limits {
    uint64_t slot, gran;
  };
  Limits mine{slot_, gran};
  std::vector<Limits> all(static_cast<size_t>(boot->size()));
  GSHMEM_CHECK(boot->allgather(&mine, all.data(), sizeof mine));
  for (int pe = 0; pe < boot->size(); ++pe) {
    if (all[pe].slot != slot_ || all[pe].gran != gran) {
      GSHMEM_ERROR(
          "the symmetric heap's limits differ between PEs: PE %d may grow to %s in steps of %s, PE %d to %s in "
          "steps of %s; set NVSHMEM_MAX_MEMORY_PER_GPU the same on every PE (and use the same GPU model)",
          me, format_size(slot_).c_str(), format_size(gran).c_str(), pe, format_size(all[pe].slot).c_str(),
          format_size(all[pe].gran).c_str());
      return GSHMEM_ERROR_SYMMETRY;
    }
  }
  if (options.initial_bytes > slot_) {
    GSHMEM_ERROR("NVSHMEM_SYMMETRIC_SIZE (%s) is larger than NVSHMEM_MAX_MEMORY_PER_GPU (%s); raise the latter",
                 format_size(options.initial_bytes).c_str(), format_size(options.limit_bytes).c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  // Every window starts at a multiple of the largest power of two that fits in one, so that an
  // offset aligned to any power of two the heap can hold is an address aligned to it
  // (nvshmem_align), on every PE and whatever mmap or the driver would have picked.
  const size_t windows = options.map_peers ? node_pes_.size() : 1;
  window_align_ = uint64_t{1} << (63 - __builtin_clzll(slot_));
  stride_ = round_up(slot_, window_align_);
  reservation_bytes_ = stride_ * (windows - 1) + slot_;
  GSHMEM_CHECK(provider_->reserve(reservation_bytes_, std::max(window_align_, gran), &reservation_));
  base_ = window(options.map_peers ? my_index_ : 0);
  peer_base_.assign(static_cast<size_t>(boot->size()), nullptr);
  peer_base_[me] = base_;
  if (options.map_peers) {
    for (size_t i = 0; i < node_pes_.size(); ++i) peer_base_[node_pes_[i]] = window(i);
    if (node_pes_.size() > 1) GSHMEM_CHECK(exchange_.open(job_key, token, me, node_pes_, node_pids, options.timeout_s));
  }
  const uint64_t first = round_up(std::max<uint64_t>(options.initial_bytes, gran), gran);
  GSHMEM_INFO(kMem,
              "symmetric heap: %s, %s per PE reserved (%zu window%s); %s mapped at start (NVSHMEM_SYMMETRIC_SIZE), "
              "growing in steps of %s (NVSHMEM_CUMEM_GRANULARITY, rounded to the %s pages of this memory)",
              provider_->name(), format_size(slot_).c_str(), windows, windows == 1 ? "" : "s",
              format_size(first).c_str(), format_size(round_up(std::max(options.growth_step, gran), gran)).c_str(),
              format_size(gran).c_str());
  return grow(first, "nvshmem_init");
}

// Agrees on a status: every PE gets the first failure of any PE (GSHMEM_SUCCESS if none), and
// the PE that had it.
static Status agree(Bootstrap* boot, Status mine, int* failed_pe) {
  int32_t m = mine;
  std::vector<int32_t> all(static_cast<size_t>(boot->size()));
  Status s = boot->allgather(&m, all.data(), sizeof m);
  if (!ok(s)) return s;
  for (int pe = 0; pe < boot->size(); ++pe) {
    if (all[pe] != GSHMEM_SUCCESS) {
      *failed_pe = pe;
      return static_cast<Status>(all[pe]);
    }
  }
  return GSHMEM_SUCCESS;
}

void SymmetricHeap::undo(const std::vector<Mapping>& added) {
  for (auto it = added.rbegin(); it != added.rend(); ++it) {
    provider_->unmap(it->addr, it->bytes);
    if (it->has_handle) provider_->release(it->handle);
  }
}

Status SymmetricHeap::grow(uint64_t bytes, const char* api) {
  // Every PE grows at the same call (the allocator is deterministic). The growth is agreed twice:
  // once every PE has its own chunk, and once every PE has mapped its node peers' chunks; if any
  // PE fails either step, every PE undoes its part, so the heaps stay alike.
  const bool keep = provider_->keeps_handle_while_mapped();
  std::vector<Mapping> added;
  Status status = GSHMEM_SUCCESS;
  uint64_t handle = 0;
  int fd = -1;
  if (mapped_ + bytes > growth_limit()) {
    status = GSHMEM_ERROR_OUT_OF_MEMORY;
  } else {
    status = provider_->create(bytes, &handle, &fd);
    if (ok(status)) {
      status = provider_->map(base_ + mapped_, bytes, handle);
      if (ok(status)) {
        added.push_back({base_ + mapped_, bytes, handle, keep});
        if (!keep) provider_->release(handle);
      } else {
        provider_->release(handle);
        ::close(fd);
        fd = -1;
      }
    }
  }
  int failed_pe = -1;
  Status agreed = agree(boot_, status, &failed_pe);
  if (!ok(agreed)) {
    undo(added);
    if (fd >= 0) ::close(fd);
    if (failed_pe != boot_->rank() && agreed != GSHMEM_ERROR_OUT_OF_MEMORY) {
      GSHMEM_ERROR("%s: PE %d could not grow its symmetric heap (%s)", api, failed_pe, gshmem_status_string(agreed));
    }
    return agreed;
  }
  Status mapped_peers = map_peer_chunks(
      fd, mapped_, [bytes](size_t) { return bytes; }, "symmetric heap", &added);
  ::close(fd);
  agreed = agree(boot_, mapped_peers, &failed_pe);
  if (!ok(agreed)) {
    undo(added);
    if (failed_pe != boot_->rank()) {
      GSHMEM_ERROR("%s: PE %d could not map its node peers' new heap memory (%s)", api, failed_pe,
                   gshmem_status_string(agreed));
    }
    return agreed;
  }
  if (grown_) {
    // The network transport registers the new memory before any PE can target it (no PE allocates
    // from it before this call returns on every PE).
    agreed = agree(boot_, grown_(base_ + mapped_, mapped_, bytes), &failed_pe);
    if (!ok(agreed)) {
      undo(added);
      if (failed_pe != boot_->rank()) {
        GSHMEM_ERROR("%s: PE %d could not register its new heap memory with the network transport (%s)", api, failed_pe,
                     gshmem_status_string(agreed));
      }
      return agreed;
    }
  }
  mappings_.insert(mappings_.end(), added.begin(), added.end());
  allocator_.grow(bytes);
  mapped_ += bytes;
  GSHMEM_INFO(kMem, "symmetric heap grew by %s to %s (limit %s)", format_size(bytes).c_str(),
              format_size(mapped_).c_str(), format_size(slot_).c_str());
  return GSHMEM_SUCCESS;
}

Status SymmetricHeap::map_peer_chunks(int fd, uint64_t offset, const std::function<uint64_t(size_t)>& bytes_of,
                                      const char* what, std::vector<Mapping>* added) {
  if (!options_.map_peers || node_pes_.size() < 2) return GSHMEM_SUCCESS;
  const bool keep = provider_->keeps_handle_while_mapped();
  std::vector<int> fds;
  Status status = exchange_.exchange(++exchanges_, fd, &fds);
  for (size_t i = 0; ok(status) && i < node_pes_.size(); ++i) {
    if (i == my_index_) continue;
    const uint64_t bytes = bytes_of(i);
    uint64_t h = 0;
    Status s = provider_->import(fds[i], bytes, &h);
    if (ok(s)) {
      s = provider_->map(window(i) + offset, bytes, h);
      if (ok(s)) {
        added->push_back({window(i) + offset, bytes, h, keep});
        if (!keep) provider_->release(h);
      } else {
        provider_->release(h);
      }
    }
    if (!ok(s)) {
      GSHMEM_ERROR("cannot map the %s of PE %d", what, node_pes_[i]);
      status = s;
    }
  }
  for (int f : fds) {
    if (f >= 0) ::close(f);
  }
  return status;
}

Status SymmetricHeap::register_buffer(void* buf, uint64_t size, const char* api, uint64_t* offset) {
  // Step 1: this PE's buffer can be mapped. Every PE learns what every PE found, so that all place
  // the buffer alike (past every PE's allocation, at a multiple of every PE's alignment) or all fail.
  const int me = boot_->rank();
  MemoryProvider::UserBuffer mine;
  Status status = GSHMEM_SUCCESS;
  if (in_reservation(buf)) {
    GSHMEM_ERROR("%s: %p is symmetric memory already (from nvshmem_malloc or an earlier registration)", api, buf);
    status = GSHMEM_ERROR_INVALID_VALUE;
  } else {
    status = provider_->adopt(buf, size, api, &mine);
  }
  const bool adopted = ok(status);
  auto drop = [&] {
    if (!adopted) return;
    provider_->release(mine.handle);
    ::close(mine.fd);
  };
  struct Found {
    int32_t status;
    int32_t pad;
    uint64_t bytes;
    uint64_t align;
  };
  const Found found{status, 0, mine.bytes, mine.align};
  std::vector<Found> all(static_cast<size_t>(boot_->size()));
  Status s = boot_->allgather(&found, all.data(), sizeof found);
  if (!ok(s)) {
    drop();
    return s;
  }
  uint64_t align = provider_->granularity(), bytes = 0;
  for (int pe = 0; pe < boot_->size(); ++pe) {
    if (all[pe].status != GSHMEM_SUCCESS) {
      drop();
      if (adopted) {
        GSHMEM_ERROR("%s: PE %d could not register its buffer (%s); nothing was registered", api, pe,
                     gshmem_status_string(static_cast<Status>(all[pe].status)));
      }
      return static_cast<Status>(all[pe].status);
    }
    align = std::lcm(align, all[pe].align);
    bytes = std::max(bytes, all[pe].bytes);
  }
  const uint64_t span = round_up(bytes, align);
  uint64_t off = 0;
  if (span > slot_ || !regions_.place(span, align, mapped_, slot_, &off)) {
    drop();
    GSHMEM_ERROR(
        "%s(%s): no room left in the symmetric address space for a buffer of %s: a PE's window holds %s "
        "(NVSHMEM_MAX_MEMORY_PER_GPU), of which its heap has %s mapped and registered buffers take %s (%zu of "
        "them). Raise NVSHMEM_MAX_MEMORY_PER_GPU or unregister buffers",
        api, format_size(size).c_str(), format_size(span).c_str(), format_size(slot_).c_str(),
        format_size(mapped_).c_str(), format_size(regions_.span_bytes()).c_str(), regions_.count());
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  // Step 2: this PE maps its own buffer at the alias; step 3: every PE maps its node peers' buffers
  // into their windows. Each step is agreed, as in grow(), and undone everywhere if any PE failed.
  const bool keep = provider_->keeps_handle_while_mapped();
  std::vector<Mapping> added;
  status = provider_->map(base_ + off, mine.bytes, mine.handle);
  if (ok(status)) {
    added.push_back({base_ + off, mine.bytes, mine.handle, keep});
    if (!keep) provider_->release(mine.handle);
  } else {
    provider_->release(mine.handle);
  }
  int failed_pe = -1;
  Status agreed = agree(boot_, status, &failed_pe);
  if (ok(agreed)) {
    status = map_peer_chunks(
        mine.fd, off, [&](size_t i) { return all[node_pes_[i]].bytes; }, "registered buffer", &added);
    agreed = agree(boot_, status, &failed_pe);
  }
  ::close(mine.fd);
  if (!ok(agreed)) {
    undo(added);
    if (failed_pe != me) {
      GSHMEM_ERROR("%s: PE %d could not map the registered buffers (%s); nothing was registered", api, failed_pe,
                   gshmem_status_string(agreed));
    }
    return agreed;
  }
  regions_.add({off, span, size});
  region_mappings_[off] = std::move(added);
  *offset = off;
  GSHMEM_INFO(kMem, "%s: %p (%s) is mapped at %p, offset %s of every window (%zu buffer%s registered)", api, buf,
              format_size(size).c_str(), static_cast<void*>(base_ + off), format_size(off).c_str(), regions_.count(),
              regions_.count() == 1 ? "" : "s");
  return GSHMEM_SUCCESS;
}

Status SymmetricHeap::unregister_buffer(uint64_t offset) {
  auto it = region_mappings_.find(offset);
  if (!regions_.at(offset) || it == region_mappings_.end()) return GSHMEM_ERROR_INVALID_VALUE;
  undo(it->second);
  region_mappings_.erase(it);
  regions_.remove(offset);
  return GSHMEM_SUCCESS;
}

Status SymmetricHeap::allocate(uint64_t size, uint64_t align, uint64_t* offset, const char* api) {
  // Larger than the heap could ever be (also what a negative size cast to size_t looks like):
  // every PE decides alike, the sizes having been checked to agree.
  if (size > slot_ || align > slot_) {
    GSHMEM_ERROR("%s(%s, alignment %s): larger than the symmetric heap can ever grow (%s, NVSHMEM_MAX_MEMORY_PER_GPU)",
                 api, format_size(size).c_str(), format_size(align).c_str(), format_size(slot_).c_str());
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  if (allocator_.allocate(size, align, offset)) return GSHMEM_SUCCESS;
  uint64_t need = allocator_.growth_needed(size, align);
  const uint64_t gran = provider_->granularity();
  uint64_t step = round_up(std::max(need, options_.growth_step), gran);
  // Near the limit, grow by what is needed rather than by a whole step.
  if (mapped_ + step > growth_limit()) step = round_up(need, gran);
  // grow() agrees with the other PEs even when this step exceeds the limit (it then fails alike
  // everywhere), so that no PE skips a collective step another one makes.
  Status s = grow(step, api);
  if (s == GSHMEM_ERROR_OUT_OF_MEMORY && mapped_ + step > growth_limit()) {
    const std::string registered =
        regions_.empty()
            ? ""
            : log::format(
                  " (the top %s of that is taken by %zu buffer%s registered with "
                  "nvshmemx_buffer_register_symmetric: unregistering makes room)",
                  format_size(slot_ - growth_limit()).c_str(), regions_.count(), regions_.count() == 1 ? "" : "s");
    GSHMEM_ERROR(
        "%s(%s): the symmetric heap is exhausted: %s in use in %zu allocations, largest free block %s; the heap has %s "
        "mapped and may grow to %s (NVSHMEM_MAX_MEMORY_PER_GPU). Raise NVSHMEM_MAX_MEMORY_PER_GPU or free symmetric "
        "memory%s",
        api, format_size(size).c_str(), format_size(allocator_.used()).c_str(), allocator_.live_blocks(),
        format_size(allocator_.largest_free()).c_str(), format_size(mapped_).c_str(), format_size(slot_).c_str(),
        registered.c_str());
  } else if (s == GSHMEM_ERROR_OUT_OF_MEMORY) {
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
  for (const auto& kv : region_mappings_) undo(kv.second);
  region_mappings_.clear();
  regions_ = RegisteredRegions();
  undo(mappings_);
  mappings_.clear();
  if (reservation_) provider_->unreserve(reservation_, reservation_bytes_);
  reservation_ = nullptr;
  base_ = nullptr;
  mapped_ = 0;
  exchange_.close();
  grown_ = nullptr;
  provider_.reset();
}

}  // namespace gshmem
