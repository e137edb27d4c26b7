// The proxy's copy-engine part (see proxy_copies.h).
#ifdef GSHMEM_HAVE_CUDA

#include "transport/proxy_copies.h"

#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {

CUdeviceptr copies_done_of(detail::ProxyRing* ring) {
  // Unified addressing: the ring's host address is its address on the device too (CU_MEMHOSTALLOC_DEVICEMAP).
  return reinterpret_cast<CUdeviceptr>(&ring->copies_done);
}

}  // namespace

bool ProxyCopies::reachable(uint64_t p, uint64_t n) const {
  if (cuda_pointer_known(reinterpret_cast<const void*>(p))) return true;
  return pageable_ && host_memory_mapped(reinterpret_cast<const void*>(p)) &&
         host_memory_mapped(reinterpret_cast<const void*>(p + n - 1));
}

Status ProxyCopies::start(detail::ProxyRing* ring, CUdeviceptr mirror, int mype, std::string* why) {
  ring_ = ring;
  mirror_ = mirror;
  mype_ = mype;
  GSHMEM_CU_CHECK(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
  CUdevice dev = 0;
  GSHMEM_CU_CHECK(cuCtxGetDevice, &dev);
  int pageable = 0;
  cu().cuDeviceGetAttribute(&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, dev);
  pageable_ = pageable != 0;
  // The completion count is written by the stream itself; a GPU or driver without stream memory operations
  // cannot do that, and the device then copies everything with SM loads and stores.
  CUresult rc = cu().cuStreamWriteValue64(stream_, copies_done_of(ring_), 0, 0);
  if (rc == CUDA_SUCCESS) rc = cu().cuStreamSynchronize(stream_);
  if (rc != CUDA_SUCCESS) {
    *why = cuda_error("cuStreamWriteValue64", rc);
    cu().cuStreamDestroy(stream_);
    stream_ = nullptr;
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  return GSHMEM_SUCCESS;
}

void ProxyCopies::stop() {
  if (stream_ == nullptr) return;
  GSHMEM_INFO(kProxy, "copy engines: %llu copies handed over by kernels, moved as %llu copies (%s) in %llu batches",
              static_cast<unsigned long long>(handed_), static_cast<unsigned long long>(issued_),
              format_size(bytes_).c_str(), static_cast<unsigned long long>(batches_));
  cu().cuStreamDestroy(stream_);
  stream_ = nullptr;
}

// The kernels of this PE that wait for the proxy (in quiet, fence, a barrier, or for ring space) stop with a
// trap once the ring's error is set; this message is the one that says why, so it also says what the user can do.
void ProxyCopies::fail(const char* what) {
  GSHMEM_ERROR(
      "PE %d: %s; a kernel of this PE that waits for the copy engines now stops (a trap: CUDA reports the kernel "
      "as failed). Set GSHMEM_CE_MIN_SIZE=0 to move every copy with SM loads and stores instead",
      mype_, what);
  stop_taking();
}

void ProxyCopies::stop_taking() {
  failed_ = true;
  __atomic_store_n(&ring_->error, 1, __ATOMIC_RELEASE);
}

Status ProxyCopies::issue_one(const CopyRange& c, bool report) {
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
  ++issued_;
  bytes_ += c.bytes;
  return GSHMEM_SUCCESS;
}

void ProxyCopies::issue(std::vector<CopyRange>* batch) {
  // Copies that continue one another on both sides become one: the blocks of a kernel that each put their
  // share of one buffer are then one copy, which the engines move fastest (a batch may hold many iterations
  // of such a kernel; each becomes a chain). _nbi copies are unordered until a quiet, so the batch may be
  // reordered.
  handed_ += batch->size();
  ++batches_;
  for (const CopyChain& chain : merge_copies(*batch)) {
    if (failed_) return;
    if (chain.pieces.size() == 1) {
      issue_one(chain.merged, true);
    } else if (!ok(issue_one(chain.merged, false))) {
      // Side by side in the address space is not one allocation: two buffers that happen to be adjacent
      // cannot be one copy, and CUDA refuses it. Their pieces then go one by one.
      GSHMEM_INFO(kProxy, "copies of %s at 0x%llx continue one another but not as one copy; issuing its %zu pieces",
                  format_size(chain.merged.bytes).c_str(), static_cast<unsigned long long>(chain.merged.dst),
                  chain.pieces.size());
      for (const CopyRange& piece : chain.pieces) {
        if (!ok(issue_one(piece, true))) return;
      }
    }
  }
}

void ProxyCopies::count(uint64_t ticket, uint64_t completed) {
  CUresult rc = cu().cuStreamWriteValue64(stream_, mirror_, completed, 0);
  if (rc == CUDA_SUCCESS) rc = cu().cuStreamWriteValue64(stream_, copies_done_of(ring_), ticket, 0);
  if (rc != CUDA_SUCCESS && !failed_)
    fail(cuda_error("cuStreamWriteValue64 (the copy engines' completion count)", rc).c_str());
}

bool ProxyCopies::check() {
  const CUresult rc = cu().cuStreamQuery(stream_);
  if (rc == CUDA_ERROR_DEINITIALIZED) return false;  // the process is exiting without nvshmem_finalize
  if (rc == CUDA_SUCCESS) {
    settled_ = issued_;  // the stream is idle: all issued copies are done
  } else if (rc != CUDA_ERROR_NOT_READY && !failed_) {
    // A fault anywhere in the context (a kernel's illegal address, say) makes every later CUDA call fail.
    // Blame the copy engines only when copies of theirs were still in flight.
    if (settled_ == issued_) {
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
  return true;
}

void ProxyCopies::drain() {
  if (stream_ != nullptr) cu().cuStreamSynchronize(stream_);
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
