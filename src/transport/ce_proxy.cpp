// The copy proxy (see ce_proxy.h).
#ifdef GSHMEM_HAVE_CUDA

#include "transport/ce_proxy.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {

using Clock = std::chrono::steady_clock;

// How long the proxy waits for more hand-overs after one arrives, how long at most it gathers one
// batch while the engines may be idle (hand-overs that keep coming, a kernel's iterations, go to
// the next batch), and how often at most it makes the stream write the completion count while
// copies keep arriving (microseconds). While the engines are surely still busy with what was
// issued (reckoned at kPeakBytesPerUs, above what they move over NVLink, so that the reckoning
// ends early rather than late), gathering costs nothing and goes on: the batch then holds whole
// iterations, which merge into whole copies.
constexpr double kGatherUs = 3;
constexpr double kGatherMaxUs = 20;
constexpr double kCountUs = 50;
constexpr double kPeakBytesPerUs = 450e3;

inline double us_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

bool CopyProxy::reachable(uint64_t p, uint64_t bytes) const {
  if (cuda_pointer_known(reinterpret_cast<const void*>(p))) return true;
  return pageable_ && host_memory_mapped(reinterpret_cast<const void*>(p)) &&
         host_memory_mapped(reinterpret_cast<const void*>(p + bytes - 1));
}

Status CopyProxy::start(CUcontext ctx, int mype, std::string* why) {
  ctx_ = ctx;
  mype_ = mype;
  void* ring = nullptr;
  GSHMEM_CU_CHECK(cuMemHostAlloc, &ring, sizeof(detail::CeRing), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  std::memset(ring, 0, sizeof(detail::CeRing));
  ring_ = static_cast<detail::CeRing*>(ring);
  GSHMEM_CU_CHECK(cuMemAlloc, &counters_, 2 * sizeof(uint64_t));
  GSHMEM_CU_CHECK(cuMemsetD8, counters_, 0, 2 * sizeof(uint64_t));
  GSHMEM_CU_CHECK(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
  CUdevice dev = 0;
  GSHMEM_CU_CHECK(cuCtxGetDevice, &dev);
  int pageable = 0;
  cu().cuDeviceGetAttribute(&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, dev);
  pageable_ = pageable != 0;
  // The completion count is written by the stream itself; a GPU or driver without stream memory
  // operations cannot do that, and the device then copies everything with SM loads and stores.
  CUresult rc = cu().cuStreamWriteValue64(stream_, counters_ + sizeof(uint64_t), 0, 0);
  if (rc == CUDA_SUCCESS) rc = cu().cuStreamSynchronize(stream_);
  if (rc != CUDA_SUCCESS) {
    *why = cuda_error("cuStreamWriteValue64", rc);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  thread_ = std::thread([this] { run(); });
  return GSHMEM_SUCCESS;
}

void CopyProxy::stop() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_release);
    thread_.join();
    GSHMEM_INFO(kProxy, "copy engines: %llu copies handed over by kernels, moved as %llu copies (%s) in %llu batches",
                static_cast<unsigned long long>(taken_.load()), static_cast<unsigned long long>(copies_),
                format_size(bytes_).c_str(), static_cast<unsigned long long>(batches_));
  }
  if (stream_) cu().cuStreamDestroy(stream_);
  if (counters_) cu().cuMemFree(counters_);
  if (ring_) cu().cuMemFreeHost(ring_);
  stream_ = nullptr;
  counters_ = 0;
  ring_ = nullptr;
}

bool CopyProxy::take(std::vector<Copy>* batch, size_t max) {
  uint64_t t = taken_.load(std::memory_order_relaxed);
  batch->clear();
  while (batch->size() < max) {
    detail::CeSlot& slot = ring_->slots[t % detail::kCeRingSlots];
    if (__atomic_load_n(&slot.seq, __ATOMIC_ACQUIRE) != t + 1) break;
    batch->push_back(Copy{slot.dst, slot.src, slot.bytes});
    ++t;
  }
  if (batch->empty()) return false;
  // The slots may be reused from now on: their contents are in `batch`.
  __atomic_store_n(&ring_->consumed, t, __ATOMIC_RELEASE);
  taken_.store(t, std::memory_order_release);
  return true;
}

Status CopyProxy::issue_one(const Copy& c, bool report) {
  for (uint64_t p : {c.src, c.dst}) {
    if (!reachable(p, c.bytes)) {
      if (report) {
        fail(log::format("a kernel handed the copy engines a copy of %s from 0x%llx to 0x%llx, but 0x%llx (+%s) is "
                         "neither GPU memory nor host memory that this process maps",
                         format_size(c.bytes).c_str(), static_cast<unsigned long long>(c.src),
                         static_cast<unsigned long long>(c.dst), static_cast<unsigned long long>(p),
                         format_size(c.bytes).c_str())
                 .c_str());
      }
      return GSHMEM_ERROR_INVALID_VALUE;
    }
  }
  const CUresult rc = cu().cuMemcpyAsync(c.dst, c.src, c.bytes, stream_);
  if (rc != CUDA_SUCCESS) {
    if (report) {
      fail(log::format("the copy of %s from 0x%llx to 0x%llx that a kernel handed to the copy engines failed: %s",
                       format_size(c.bytes).c_str(), static_cast<unsigned long long>(c.src),
                       static_cast<unsigned long long>(c.dst), cuda_error("cuMemcpyAsync", rc).c_str())
               .c_str());
    }
    return GSHMEM_ERROR_CUDA;
  }
  ++copies_;
  bytes_ += c.bytes;
  return GSHMEM_SUCCESS;
}

Status CopyProxy::issue(std::vector<Copy>* batch) {
  // Copies that continue one another on both sides become one: the blocks of a kernel that each put
  // their share of one buffer are then one copy, which the engines move fastest (a batch may hold
  // many iterations of such a kernel; each becomes a chain). _nbi copies are unordered until a
  // quiet, so the batch may be reordered.
  for (const CopyChain& chain : merge_copies(*batch)) {
    if (chain.pieces.size() == 1) {
      GSHMEM_CHECK(issue_one(chain.merged, true));
    } else if (!ok(issue_one(chain.merged, false))) {
      // Side by side in the address space is not one allocation: two buffers that happen to be
      // adjacent cannot be one copy, and CUDA refuses it. Their pieces then go one by one.
      GSHMEM_INFO(kProxy, "copies of %s at 0x%llx continue one another but not as one copy; issuing its %zu pieces",
                  format_size(chain.merged.bytes).c_str(), static_cast<unsigned long long>(chain.merged.dst),
                  chain.pieces.size());
      for (const Copy& piece : chain.pieces) GSHMEM_CHECK(issue_one(piece, true));
    }
  }
  issued_.store(taken_.load(std::memory_order_relaxed), std::memory_order_release);
  return GSHMEM_SUCCESS;
}

// The kernels of this PE that wait for the copy engines (in quiet, fence, a barrier, or for ring space) stop
// with a trap once the ring's error is set; this message is the one that says why, so it also says what
// the user can do.
void CopyProxy::fail(const char* what) {
  GSHMEM_ERROR(
      "PE %d: %s; a kernel of this PE that waits for the copy engines now stops (a trap: CUDA reports the kernel "
      "as failed). Set GSHMEM_CE_MIN_SIZE=0 to move every copy with SM loads and stores instead",
      mype_, what);
  stop_taking();
}

void CopyProxy::stop_taking() {
  failed_.store(true, std::memory_order_release);
  __atomic_store_n(&ring_->error, 1, __ATOMIC_RELEASE);
}

void CopyProxy::run() {
  cu().cuCtxSetCurrent(ctx_);
  // A capture that another thread runs in the global mode must not make this thread's copies fail.
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  cu().cuThreadExchangeStreamCaptureMode(&mode);
  std::vector<Copy> batch, more;
  batch.reserve(detail::kCeRingSlots);
  more.reserve(detail::kCeRingSlots);
  auto last_work = Clock::now();
  auto last_count = last_work;
  auto busy_until = last_work;  // when the engines finish what was issued, at the earliest
  uint64_t counted = 0;         // the completion count last written by the stream
  unsigned idle = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    if (!failed_.load(std::memory_order_relaxed) && take(&batch, detail::kCeRingSlots)) {
      // Gather what the other blocks of the kernel hand over right after (a grid's blocks post
      // within microseconds of each other), so that their shares merge into one copy.
      const auto gather_start = Clock::now();
      auto gather_from = gather_start;
      while (batch.size() < detail::kCeRingSlots) {
        const auto now = Clock::now();
        if (us_between(gather_from, now) >= kGatherUs) break;
        if (us_between(gather_start, now) >= kGatherMaxUs && now >= busy_until) break;
        if (take(&more, detail::kCeRingSlots - batch.size())) {
          batch.insert(batch.end(), more.begin(), more.end());
          gather_from = Clock::now();
        } else {
          cpu_relax();
        }
      }
      uint64_t batch_bytes = 0;
      for (const Copy& c : batch) batch_bytes += c.bytes;
      issue(&batch);
      const auto issued_at = Clock::now();
      busy_until = std::max(busy_until, issued_at) +
                   std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double, std::micro>(static_cast<double>(batch_bytes) / kPeakBytesPerUs));
      ++batches_;
      idle = 0;
      last_work = Clock::now();
      // The completion count costs the copy engines a pause between copies: write it once the
      // burst ends (below), or every kCountUs while copies keep coming, so that no quiet waits long.
      if (us_between(last_count, last_work) >= kCountUs) {
        count_completions(&counted);
        last_count = last_work;
      }
      continue;
    }
    if (counted != issued_.load(std::memory_order_relaxed)) {
      count_completions(&counted);
      last_count = Clock::now();
    }
    // Idle: spin while work came recently (a kernel posts its next copy within microseconds), then
    // poll every 50 us, and every millisecond once nothing came for ten seconds.
    if ((++idle & 1023) == 0) {
      const CUresult rc = cu().cuStreamQuery(stream_);
      if (rc == CUDA_ERROR_DEINITIALIZED) break;  // the process is exiting without nvshmem_finalize
      if (rc == CUDA_SUCCESS) {
        settled_ = issued_.load(std::memory_order_relaxed);  // the stream is idle: all issued copies are done
      } else if (rc != CUDA_ERROR_NOT_READY && !failed_.load(std::memory_order_relaxed)) {
        // A fault anywhere in the context (a kernel's illegal address, say) makes every later CUDA
        // call fail. Blame the copy engines only when copies of theirs were still in flight.
        if (settled_ == issued_.load(std::memory_order_relaxed)) {
          GSHMEM_INFO(kProxy, "the CUDA context failed (%s); no copy handed to the copy engines was in flight",
                      cuda_error("cuStreamQuery", rc).c_str());
          stop_taking();
        } else {
          fail(log::format("the CUDA context failed while the copy engines held kernels' copies, which did not "
                           "complete: %s",
                           cuda_error("cuStreamQuery", rc).c_str())
                   .c_str());
        }
      }
    }
    const double quiet_s = std::chrono::duration<double>(Clock::now() - last_work).count();
    if (quiet_s < 0.1) {
      cpu_relax();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(quiet_s < 10 ? 50 : 1000));
    }
  }
  cu().cuStreamSynchronize(stream_);
}

void CopyProxy::count_completions(uint64_t* counted) {
  const uint64_t t = issued_.load(std::memory_order_relaxed);
  const CUresult rc = cu().cuStreamWriteValue64(stream_, counters_ + sizeof(uint64_t), t, 0);
  if (rc != CUDA_SUCCESS) {
    if (!failed_.load(std::memory_order_relaxed))
      fail(cuda_error("cuStreamWriteValue64 (the copy engines' completion count)", rc).c_str());
    return;
  }
  *counted = t;
  counted_.store(t, std::memory_order_release);
}

Status CopyProxy::flush() {
  // Everything published before this call: the proxy takes it within its polling interval.
  const uint64_t seen = taken_.load(std::memory_order_acquire);
  uint64_t target = seen;
  while (__atomic_load_n(&ring_->slots[target % detail::kCeRingSlots].seq, __ATOMIC_ACQUIRE) == target + 1) ++target;
  target = std::max(target, taken_.load(std::memory_order_acquire));
  // No ticket since the last flush: nothing to wait for. A host quiet with nothing outstanding then
  // makes no stream synchronisation (on H200 the two of an idle stream took 1.4-2.9 us).
  if (target <= flushed_.load(std::memory_order_acquire) && !failed_.load(std::memory_order_acquire)) {
    return GSHMEM_SUCCESS;
  }
  while (issued_.load(std::memory_order_acquire) < target) {
    if (failed_.load(std::memory_order_acquire)) return GSHMEM_ERROR_CUDA;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  if (failed_.load(std::memory_order_acquire)) return GSHMEM_ERROR_CUDA;
  GSHMEM_CU_CHECK(cuStreamSynchronize, stream_);
  // The device counter too, for kernels that wait on it next (the proxy writes it when idle).
  while (counted_.load(std::memory_order_acquire) < target) {
    if (failed_.load(std::memory_order_acquire)) return GSHMEM_ERROR_CUDA;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  GSHMEM_CU_CHECK(cuStreamSynchronize, stream_);
  uint64_t f = flushed_.load(std::memory_order_acquire);
  while (f < target && !flushed_.compare_exchange_weak(f, target, std::memory_order_acq_rel)) {
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
