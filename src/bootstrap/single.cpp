#include <cstring>

#include "bootstrap/bootstrap.h"

namespace gshmem {
namespace {

class SingleBootstrap final : public Bootstrap {
 public:
  const char* name() const override { return "single"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status allgather(const void* in, void* out, size_t bytes) override {
    if (in != out) std::memmove(out, in, bytes);
    return GSHMEM_SUCCESS;
  }
  Status alltoall(const void* in, void* out, size_t bytes) override { return allgather(in, out, bytes); }
  Status barrier() override { return GSHMEM_SUCCESS; }
  Status broadcast(void*, size_t, int) override { return GSHMEM_SUCCESS; }
  void abort_job(int, const std::string&) override {}
  Status finalize() override { return GSHMEM_SUCCESS; }
};

}  // namespace

std::unique_ptr<Bootstrap> make_single_bootstrap() { return std::make_unique<SingleBootstrap>(); }

}  // namespace gshmem
