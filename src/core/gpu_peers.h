// Which GPU every PE uses: learnt at bind time (a collective step), so that every PE knows its node peers'
// GPUs, whether it can reach them, and whether PEs share GPUs. CUDA builds only.
#pragma once

#include <string>
#include <vector>

#include "core/gpu_resources.h"
#include "util/cuda_driver.h"
#include "util/status.h"

namespace gshmem {

struct GpuPeers {
  GpuSharing sharing = GpuSharing::kOwn;
  std::vector<std::string> device_of;  // by PE: "<name>, bus <id>" for this node's PEs, "" for the others
  std::vector<std::string> uuid_of;    // by PE: the GPU's UUID for this node's PEs, "" for the others
};

// Collective: exchanges every PE's GPU (this PE's is `device`) and checks that each reaches its node peers'
// GPUs (unless NVSHMEM_DISABLE_P2P: mapping needs it); applies NVSHMEM_CPU_AFFINITY=AUTO by this GPU's bus;
// the lowest PE of a shared GPU warns that its PEs take turns on it.
Status exchange_gpus(const GpuBinding& b, CUdevice device, GpuPeers* out);

}  // namespace gshmem
