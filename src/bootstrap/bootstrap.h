// The bootstrap: how PEs find each other and exchange small amounts of data on the host.
//
// Every operation is collective over all PEs of the job and blocking; all PEs must call the same
// operations in the same order with the same sizes. Each has a deadline
// (GSHMEM_BOOTSTRAP_TIMEOUT); a step that waits longer fails with a message naming the PEs that
// did not arrive. Implementations: a single PE (no launcher) and TCP through a root (gshmrun).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "util/status.h"

namespace gshmem {

struct Config;

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  // Short name for logs ("tcp", "single").
  virtual const char* name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Each PE contributes `bytes` bytes from `in`; `out` receives size() * bytes, ordered by rank.
  // `in` may point into `out`.
  virtual Status allgather(const void* in, void* out, size_t bytes) = 0;
  // `in` holds size() blocks of `bytes`, block j for PE j; `out` receives block rank() of every
  // PE, ordered by the sender's rank.
  virtual Status alltoall(const void* in, void* out, size_t bytes) = 0;
  virtual Status barrier() = 0;
  // Copies `bytes` bytes from `buf` of PE `root` into `buf` of every PE.
  virtual Status broadcast(void* buf, size_t bytes, int root) = 0;
  // Ends the whole job: every PE exits with `code`. Returns only if that could not be arranged,
  // in which case the caller exits by itself.
  virtual void abort_job(int code, const std::string& why) = 0;
  // Leaves the job cleanly. No other call may follow.
  virtual Status finalize() = 0;
  // Sessions (nvshmem_finalize, then nvshmem_init again in the same process): park() ends this PE's
  // session but keeps its place in the job, and lets the launcher go; until rejoin(), the end of another
  // PE or of the root is no longer fatal to this process (rejoin() then fails, saying so). rejoin() starts
  // the next session: the same collective calls of every PE follow. Neither is collective. A parked
  // bootstrap is finalized when the process exits.
  virtual Status park() { return GSHMEM_SUCCESS; }
  virtual Status rejoin() { return GSHMEM_SUCCESS; }

  // Liveness, where the bootstrap keeps a connection to the job's root (every launcher but a job of
  // one PE). The handler runs on a bootstrap thread when PE `rank` has ended before
  // nvshmem_finalize, or ended the job (rank -1: the root itself can no longer be reached); `why`
  // says how, `exit_code` is what this PE should end with. It is expected not to return.
  using PeerGoneHandler = void (*)(int rank, int exit_code, const std::string& why);
  virtual void set_peer_gone_handler(PeerGoneHandler handler) {}
  // The PEs that have called nvshmem_finalize and left (asks the root; thread-safe). NOT_SUPPORTED
  // where nobody knows.
  virtual Status finished_pes(std::vector<int>* ranks) { return GSHMEM_ERROR_NOT_SUPPORTED; }
  // Tells the root that this process ends with `code` without nvshmem_finalize, so that the other
  // PEs learn how it ended. Called while the process exits; waits briefly at most.
  virtual void announce_exit(int code) {}
};

// How the application asked to start (nvshmemx_init_attr flags).
struct BootstrapRequest {
  enum class Kind { kAuto, kMpiComm, kUniqueId };
  Kind kind = Kind::kAuto;
  void* mpi_comm = nullptr;   // kMpiComm: points to an MPI_Comm (nullptr: MPI_COMM_WORLD)
  const void* uid = nullptr;  // kUniqueId: the ID's opaque bytes
  size_t uid_len = 0;
  int uid_rank = -1;
  int uid_size = -1;
};

// Picks and starts the bootstrap for this process. With no request and no NVSHMEM_BOOTSTRAP, the
// launcher is recognised from its environment: gshmrun, a PMIx server (Open MPI mpirun, srun
// --mpi=pmix), srun --mpi=pmi2, MPICH Hydra; otherwise a job of one PE. NVSHMEM_BOOTSTRAP and
// NVSHMEM_BOOTSTRAP_PMI win when set. A setting that does not fit the environment is an error
// that names what was found and what to set. Logs the choice and why at INFO. *started_by receives
// a short description of what started the job ("gshmrun", "Open MPI mpirun (PMIx)", ...).
Status create_bootstrap(const Config& config, const BootstrapRequest& request, std::unique_ptr<Bootstrap>* out,
                        std::string* started_by);

// A job of one PE.
std::unique_ptr<Bootstrap> make_single_bootstrap();

}  // namespace gshmem
