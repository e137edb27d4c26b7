// What gshmem needs from a launcher (PMI-1, PMI-2, PMIx, MPI): the rank and size, one broadcast
// of a small blob from rank 0, ending the job, and leaving. Everything else goes through gshmem's
// own TCP root, which rank 0 runs (see launcher_bootstrap.cpp).
#pragma once

#include <memory>
#include <string>

#include "util/status.h"

namespace gshmem {

struct Config;

class Launcher {
 public:
  virtual ~Launcher() = default;
  // "PMI-1 (MPICH Hydra)", "PMIx (Open MPI mpirun)", ...
  virtual std::string name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Copies `bytes` from rank 0's `buf` to every rank's. Collective; fails after `timeout_s`.
  virtual Status broadcast_root(void* buf, size_t bytes, double timeout_s) = 0;
  // Ends every process of the job with `code` (through the launcher). May not return.
  virtual void abort_job(int code, const std::string& why) = 0;
  virtual Status finalize() = 0;
};

// PMI-1 over PMI_FD (+PMI_RANK, PMI_SIZE) or PMI_PORT (+PMI_ID), as MPICH Hydra serves it.
Status make_pmi1_launcher(const Config& config, std::unique_ptr<Launcher>* out);
// PMI-2 over PMI_FD, as srun --mpi=pmi2 (and Hydra) serve it.
Status make_pmi2_launcher(const Config& config, std::unique_ptr<Launcher>* out);
// A bootstrap plugin (include/gshmem/plugin/bootstrap_v1.h) loaded from `path`. `what` names the
// request in messages ("NVSHMEM_BOOTSTRAP=MPI").
Status make_plugin_launcher(const std::string& path, void* arg, const std::string& what,
                            std::unique_ptr<Launcher>* out);

}  // namespace gshmem
