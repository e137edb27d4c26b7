// The GPU backend's engine of the host and on-stream collectives (coll/collectives.h): the copy engines
// for what the plan gives them, then the library's collective kernel, on the caller's stream or on the
// internal one, waited for with the diagnostics of every host wait.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "coll/collectives.h"
#include "core/gpu_resources.h"
#include "core/wait_watch.h"

namespace gshmem {

class SymmetricHeap;
class TransportManager;
struct Config;

struct GpuCollSetup {
  const SymmetricHeap* heap = nullptr;
  const TransportManager* transports = nullptr;
  GpuResources* gpu = nullptr;
  const Config* config = nullptr;  // the tuning settings (NVSHMEM_*_NTHREADS, GSHMEM_COLL_*)
  uint32_t reduce_scratch = 0;     // bytes of each team's reduction scratch (Teams::Services::reduce_scratch)
  std::function<WaitWatch::Options(const char* api)> watch;  // how a host wait checks
};

std::unique_ptr<CollEngine> make_gpu_coll_engine(GpuCollSetup setup);

}  // namespace gshmem
