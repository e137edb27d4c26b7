// Which GPU every PE uses (see gpu_peers.h): one record per PE, exchanged through the bootstrap twice (first to
// learn the node peers' GPUs, then to share whether each PE reaches them).
#ifdef GSHMEM_HAVE_CUDA
#include "core/gpu_peers.h"

#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "util/config.h"
#include "util/cpu_affinity.h"
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {

namespace {

// The GPU's UUID as CUDA prints it (8-4-4-4-12 hex digits).
std::string uuid_text(const CUuuid& u) {
  return to_hex(u.bytes, 4) + "-" + to_hex(u.bytes + 4, 2) + "-" + to_hex(u.bytes + 6, 2) + "-" +
         to_hex(u.bytes + 8, 2) + "-" + to_hex(u.bytes + 10, 6);
}

struct GpuRecord {
  CUuuid uuid;
  int32_t ordinal;
  int32_t can_reach_all;  // 1 when this PE's GPU has peer access to every node peer's GPU it can see
  int32_t mps;            // 1 when this PE's context is an MPS client
  char name[48];
  char bus[24];
};

// PEs that use the same GPU (by UUID, so across CUDA_VISIBLE_DEVICES views) share it: their heaps map
// into each other like any node peer's, and everything works, but their grids are not guaranteed to
// be resident at once. Without MPS the GPU runs the processes' kernels in turns; under MPS a grid
// that filled its client's share of SMs was seen to wait forever for the other client's grid, even
// with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE summing to 100. So sharing is always NVSHMEM's "limited
// MPG": collective launch runs, but the grids take turns with the other PEs'. Every PE decides from the same records,
// so all agree; the lowest PE of each shared GPU says so.
GpuSharing decide_sharing(const std::vector<GpuRecord>& all, int me) {
  GpuSharing mode = GpuSharing::kOwn;
  const int n = static_cast<int>(all.size());
  for (int first = 0; first < n; ++first) {
    std::string pes;
    int members = 0, mps_clients = 0;
    bool seen_before = false;
    for (int pe = 0; pe < n; ++pe) {
      if (std::memcmp(all[pe].uuid.bytes, all[first].uuid.bytes, sizeof all[pe].uuid.bytes) != 0) continue;
      if (pe < first) seen_before = true;
      pes += log::format("%s%d", pes.empty() ? "" : ", ", pe);
      ++members;
      mps_clients += all[pe].mps;
    }
    if (seen_before || members < 2) continue;
    mode = GpuSharing::kLimited;
    if (me != first) continue;
    GSHMEM_WARN(
        kInit,
        "PEs %s share GPU %s (%s)%s: all of gshmem works, but the GPU does not keep their kernels resident "
        "side by side, so a kernel that waits for another PE of this GPU is slow (it waits for the GPU to switch "
        "contexts), and nvshmemx_collective_launch runs with a warning (NVSHMEM_STATUS_LIMITED_MPG). Give "
        "each PE a GPU of its own for full speed",
        pes.c_str(), uuid_text(all[first].uuid).c_str(), all[first].name,
        mps_clients == members ? " under MPS" : " (taking turns: no MPS)");
  }
  return mode;
}

}  // namespace

Status exchange_gpus(const GpuBinding& b, CUdevice device, GpuPeers* out) {
  Bootstrap& boot = *b.boot;
  int ndev = 0;
  GSHMEM_CU_CHECK(cuDeviceGetCount, &ndev);
  // Which GPU every PE uses, and whether each can reach its node peers' GPUs.
  GpuRecord mine{};
  GSHMEM_CU_CHECK(cuDeviceGetUuid, &mine.uuid, device);
  mine.ordinal = static_cast<int32_t>(device);
  cu().cuDeviceGetName(mine.name, sizeof mine.name, device);
  cu().cuDeviceGetPCIBusId(mine.bus, sizeof mine.bus, device);
  if (b.config->cpu_affinity == "AUTO") {
    std::string why;
    const std::string done = narrow_to_device_cpus(mine.bus, &why);
    if (!done.empty()) GSHMEM_INFO(kInit, "NVSHMEM_CPU_AFFINITY=AUTO: %s", done.c_str());
    if (!why.empty()) GSHMEM_INFO(kInit, "NVSHMEM_CPU_AFFINITY=AUTO: the CPU set stays: %s", why.c_str());
  }
  int mps = 0;
  if (cu().cuDeviceGetAttribute(&mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, device) != CUDA_SUCCESS) mps = 0;
  mine.mps = mps ? 1 : 0;
  std::vector<GpuRecord> all(static_cast<size_t>(boot.size()));
  // First pass: learn the node peers' GPUs, then check peer access to the ones this PE can see.
  GSHMEM_CHECK(boot.allgather(&mine, all.data(), sizeof mine));
  mine.can_reach_all = 1;
  std::string unreachable;
  for (int pe : b.node_pes) {
    if (pe == boot.rank()) continue;
    for (int d = 0; d < ndev; ++d) {
      CUdevice other;
      CUuuid u;
      if (cu().cuDeviceGet(&other, d) != CUDA_SUCCESS || cu().cuDeviceGetUuid(&u, other) != CUDA_SUCCESS) continue;
      if (std::memcmp(u.bytes, all[pe].uuid.bytes, sizeof u.bytes) != 0 || other == device) continue;
      int can = 0;
      cu().cuDeviceCanAccessPeer(&can, device, other);
      if (!can) {
        mine.can_reach_all = 0;
        unreachable += log::format(" PE %d (GPU %d)", pe, d);
      }
    }
  }
  GSHMEM_CHECK(boot.allgather(&mine, all.data(), sizeof mine));
  out->sharing = decide_sharing(all, boot.rank());
  out->device_of.assign(all.size(), std::string());
  out->uuid_of.assign(all.size(), std::string());
  for (int pe : b.node_pes) {
    out->device_of[pe] = log::format("%s, bus %s", all[pe].name, all[pe].bus);
    out->uuid_of[pe] = uuid_text(all[pe].uuid);
  }
  if (!b.config->disable_p2p) {
    for (int pe : b.node_pes) {
      if (!all[pe].can_reach_all) {
        GSHMEM_ERROR(
            "the GPU of PE %d (%s, bus %s) has no peer access to the GPUs of other PEs on this node%s; "
            "gshmem maps every local PE's heap and needs it (NVSHMEM_DISABLE_P2P=1 turns mapping off, but "
            "then PEs cannot reach each other in this version)",
            pe, all[pe].name, all[pe].bus, pe == boot.rank() ? unreachable.c_str() : "");
        return GSHMEM_ERROR_NOT_SUPPORTED;
      }
    }
  }
  GSHMEM_INFO(kInit, "bound GPU %d (%s, bus %s, uuid %s)", static_cast<int>(device), mine.name, mine.bus,
              uuid_text(mine.uuid).c_str());

  return GSHMEM_SUCCESS;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
