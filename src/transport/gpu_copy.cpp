// GPU backend, host-initiated: copies between any host or device address and a heap window go
// through cuMemcpyAsync / cuMemcpy2DAsync (the copy engines, over NVLink or PCIe for a peer's
// window); atomics, single stores and stream-ordered waits run the library's one-thread kernels.
// Blocking and non-blocking operations share one internal stream, so quiet() is one stream
// synchronisation; reads of this PE's wait variables use a second stream so that a host wait never
// queues behind anything.
#ifdef GSHMEM_HAVE_CUDA

#include <cstring>
#include <mutex>

#include "transport/transport.h"
#include "util/cuda_driver.h"
#include "util/log.h"

namespace gshmem {
namespace {

class GpuTransport final : public Transport {
 public:
  explicit GpuTransport(const GpuTransportKernels& k) : kernels_(k) {}
  ~GpuTransport() override {
    if (fetched_) cu().cuMemFreeHost(fetched_);
    if (event_) cu().cuEventDestroy(event_);
    if (poll_stream_) cu().cuStreamDestroy(poll_stream_);
    if (stream_) cu().cuStreamDestroy(stream_);
  }

  Status init() {
    GSHMEM_CU_CHECK(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
    GSHMEM_CU_CHECK(cuStreamCreate, &poll_stream_, CU_STREAM_NON_BLOCKING);
    GSHMEM_CU_CHECK(cuEventCreate, &event_, CU_EVENT_DISABLE_TIMING);
    void* p = nullptr;
    GSHMEM_CU_CHECK(cuMemHostAlloc, &p, sizeof(uint64_t), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    fetched_ = static_cast<uint64_t*>(p);
    CUdevice dev = 0;
    GSHMEM_CU_CHECK(cuCtxGetDevice, &dev);
    int pageable = 0;
    cu().cuDeviceGetAttribute(&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, dev);
    pageable_access_ = pageable != 0;
    return GSHMEM_SUCCESS;
  }

  const char* name() const override { return "CUDA copy"; }

  Status copy(void* dst, const void* src, size_t n, Completion completion, void* stream) override {
    CUstream s = pick(completion, stream);
    GSHMEM_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n, s);
    return finish(completion);
  }

  Status copy_strided(void* dst, size_t dst_stride, const void* src, size_t src_stride, size_t elem, size_t count,
                      Completion completion, void* stream) override {
    CUstream s = pick(completion, stream);
    // Unified addressing tells the driver where each side is (device, pinned or pageable host
    // memory, or a peer's mapped heap).
    CUDA_MEMCPY2D m{};
    m.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.srcDevice = reinterpret_cast<CUdeviceptr>(src);
    m.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
    m.srcPitch = src_stride;
    m.dstPitch = dst_stride;
    m.WidthInBytes = elem;
    m.Height = count;
    CUresult rc = cu().cuMemcpy2DAsync(&m, s);
    if (rc == CUDA_ERROR_INVALID_VALUE) {
      // A pitch beyond what 2D copies allow: one copy per element.
      const char* d = static_cast<const char*>(dst);
      const char* sp = static_cast<const char*>(src);
      for (size_t i = 0; i < count; ++i) {
        GSHMEM_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(d + i * dst_stride),
                        reinterpret_cast<CUdeviceptr>(sp + i * src_stride), elem, s);
      }
    } else if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR("%s", cuda_error("cuMemcpy2DAsync", rc).c_str());
      return GSHMEM_ERROR_CUDA;
    }
    return finish(completion);
  }

  Status atomic(void* target, const Amo& a, uint64_t* fetched, Completion completion, void* stream) override {
    std::lock_guard<std::mutex> lock(mu_);
    CUstream s = pick(completion, stream);
    int op = static_cast<int>(a.op);
    int bytes = a.bytes;
    unsigned long long operand = a.operand, compare = a.compare;
    unsigned long long* out = fetched ? reinterpret_cast<unsigned long long*>(fetched_) : nullptr;
    void* args[] = {&op, &bytes, &target, &operand, &compare, &out};
    GSHMEM_CU_CHECK(cuLaunchKernel, static_cast<CUfunction>(kernels_.atomic), 1, 1, 1, 1, 1, 1, 0, s, args, nullptr);
    if (fetched) {
      GSHMEM_CU_CHECK(cuStreamSynchronize, s);
      *fetched = *static_cast<volatile uint64_t*>(fetched_);
      return GSHMEM_SUCCESS;
    }
    return finish(completion);
  }

  Status store_on_stream(void* target, const void* value, size_t bytes, void* stream) override {
    unsigned long long bits = 0;
    std::memcpy(&bits, value, bytes);
    int n = static_cast<int>(bytes);
    void* args[] = {&target, &bits, &n};
    GSHMEM_CU_CHECK(cuLaunchKernel, static_cast<CUfunction>(kernels_.store), 1, 1, 1, 1, 1, 1, 0,
                    static_cast<CUstream>(stream), args, nullptr);
    return GSHMEM_SUCCESS;
  }

  Status read_words(void* dst, const void* src, size_t bytes, int) override {
    GSHMEM_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
                    poll_stream_);
    GSHMEM_CU_CHECK(cuStreamSynchronize, poll_stream_);
    return GSHMEM_SUCCESS;
  }

  Status wait_on_stream(const StreamWait& w, void* stream) override {
    int kind = static_cast<int>(w.kind);
    int cmp = w.cmp;
    const void* ivars = w.ivars;
    unsigned long long n = w.n;
    const int* status = w.status;
    const void* values = w.values;
    unsigned long long value = w.value;
    void* args[] = {&kind, &cmp, &ivars, &n, &status, &values, &value};
    GSHMEM_CU_CHECK(cuLaunchKernel, static_cast<CUfunction>(kernels_.wait), 1, 1, 1, 1, 1, 1, 0,
                    static_cast<CUstream>(stream), args, nullptr);
    return GSHMEM_SUCCESS;
  }

  bool device_can_read(const void* p) const override { return pageable_access_ || cuda_pointer_known(p); }

  Status synchronize(void* stream) override {
    GSHMEM_CU_CHECK(cuStreamSynchronize, static_cast<CUstream>(stream));
    return GSHMEM_SUCCESS;
  }
  Status quiet() override {
    GSHMEM_CU_CHECK(cuStreamSynchronize, stream_);
    return GSHMEM_SUCCESS;
  }
  Status quiet_on_stream(void* stream) override {
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    GSHMEM_CU_CHECK(cuStreamIsCapturing, static_cast<CUstream>(stream), &capture);
    if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
      // A graph being captured may not wait for an event of another stream. What the internal
      // stream holds was issued before the graph runs, so complete it now; the graph's own
      // operations are ordered by its edges. A capture in the global or thread-local mode forbids
      // synchronizing any stream from this thread, so relax the mode for this one call (the
      // internal stream is never captured, so the wait is safe) and put it back after.
      CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
      GSHMEM_CU_CHECK(cuThreadExchangeStreamCaptureMode, &mode);
      const CUresult rc = cu().cuStreamSynchronize(stream_);
      GSHMEM_CU_CHECK(cuThreadExchangeStreamCaptureMode, &mode);
      if (rc != CUDA_SUCCESS) {
        GSHMEM_ERROR("%s", cuda_error("cuStreamSynchronize", rc).c_str());
        return GSHMEM_ERROR_CUDA;
      }
      return GSHMEM_SUCCESS;
    }
    GSHMEM_CU_CHECK(cuEventRecord, event_, stream_);
    GSHMEM_CU_CHECK(cuStreamWaitEvent, static_cast<CUstream>(stream), event_, 0);
    return GSHMEM_SUCCESS;
  }

 private:
  CUstream pick(Completion completion, void* stream) const {
    return completion == Completion::kStream ? static_cast<CUstream>(stream) : stream_;
  }
  Status finish(Completion completion) {
    if (completion == Completion::kBlocking) GSHMEM_CU_CHECK(cuStreamSynchronize, stream_);
    return GSHMEM_SUCCESS;
  }

  GpuTransportKernels kernels_;
  CUstream stream_ = nullptr;
  CUstream poll_stream_ = nullptr;
  CUevent event_ = nullptr;
  uint64_t* fetched_ = nullptr;  // host-pinned, written by the atomic kernel
  bool pageable_access_ = false;
  std::mutex mu_;  // the fetched_ slot
};

}  // namespace

Status make_gpu_transport(const GpuTransportKernels& kernels, std::unique_ptr<Transport>* out) {
  auto t = std::make_unique<GpuTransport>(kernels);
  GSHMEM_CHECK(t->init());
  *out = std::move(t);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
