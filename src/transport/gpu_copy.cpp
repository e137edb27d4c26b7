// GPU backend, host-initiated: copies between any host or device address and a heap window go
// through cuMemcpyAsync (the copy engines, over NVLink or PCIe for a peer's window). Blocking and
// non-blocking copies share one internal stream, so quiet() is one stream synchronisation.
#ifdef GSHMEM_HAVE_CUDA

#include "transport/transport.h"
#include "util/cuda_driver.h"
#include "util/log.h"

namespace gshmem {
namespace {

class GpuTransport final : public Transport {
 public:
  GpuTransport(CUstream stream, CUevent event) : stream_(stream), event_(event) {}
  ~GpuTransport() override {
    if (event_) cu().cuEventDestroy(event_);
    if (stream_) cu().cuStreamDestroy(stream_);
  }
  const char* name() const override { return "CUDA copy"; }

  Status copy(void* dst, const void* src, size_t n, Completion completion, void* stream) override {
    CUstream s = completion == Completion::kStream ? static_cast<CUstream>(stream) : stream_;
    GSHMEM_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n, s);
    if (completion == Completion::kBlocking) GSHMEM_CU_CHECK(cuStreamSynchronize, stream_);
    return GSHMEM_SUCCESS;
  }
  Status quiet() override {
    GSHMEM_CU_CHECK(cuStreamSynchronize, stream_);
    return GSHMEM_SUCCESS;
  }
  Status quiet_on_stream(void* stream) override {
    GSHMEM_CU_CHECK(cuEventRecord, event_, stream_);
    GSHMEM_CU_CHECK(cuStreamWaitEvent, static_cast<CUstream>(stream), event_, 0);
    return GSHMEM_SUCCESS;
  }

 private:
  CUstream stream_;
  CUevent event_;
};

}  // namespace

Status make_gpu_transport(std::unique_ptr<Transport>* out) {
  CUstream stream = nullptr;
  CUevent event = nullptr;
  GSHMEM_CU_CHECK(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  CUresult rc = cu().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
  if (rc != CUDA_SUCCESS) {
    cu().cuStreamDestroy(stream);
    GSHMEM_ERROR("%s", cuda_error("cuEventCreate", rc).c_str());
    return GSHMEM_ERROR_CUDA;
  }
  *out = std::make_unique<GpuTransport>(stream, event);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
