// Chooses the bootstrap from the init request, the settings and the launcher's environment.
#include <cstdlib>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/launcher.h"
#include "bootstrap/launcher_bootstrap.h"
#include "bootstrap/tcp_client.h"
#include "bootstrap/uniqueid.h"
#include "util/config.h"
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {
namespace {

// What the environment says about the launcher.
struct Environment {
  bool gshmrun, pmix, pmi_fd, pmi_port, slurm_pmi2, hydra, srun_task, open_mpi;
  int srun_tasks;
  std::string found;  // a description for messages
};

Environment inspect(const Config& c) {
  Environment e{};
  e.gshmrun = !c.run_root.empty();
  e.pmix = !c.env_pmix_namespace.empty();
  e.pmi_fd = !c.env_pmi_fd.empty();
  e.pmi_port = !c.env_pmi_port.empty();
  e.slurm_pmi2 = e.pmi_fd && (c.env_slurm_mpi_type == "pmi2" || !c.env_pmi_jobid.empty());
  e.hydra = (e.pmi_fd && !e.slurm_pmi2) || e.pmi_port;
  e.srun_task = !c.env_slurm_procid.empty();
  e.srun_tasks = std::atoi(c.env_slurm_ntasks.c_str());
  e.open_mpi = !c.env_ompi_size.empty();
  if (e.gshmrun)
    e.found = "gshmrun (GSHMEM_RUN_ROOT is set)";
  else if (e.pmix && e.open_mpi)
    e.found = "Open MPI's mpirun, a PMIx server (PMIX_NAMESPACE and OMPI_COMM_WORLD_SIZE are set)";
  else if (e.pmix)
    e.found = "a PMIx server such as srun --mpi=pmix (PMIX_NAMESPACE is set)";
  else if (e.slurm_pmi2)
    e.found = "srun --mpi=pmi2, which serves PMI-2 (PMI_FD and PMI_JOBID are set)";
  else if (e.pmi_port)
    e.found = "MPICH Hydra with -pmi-port, which serves PMI-1 (PMI_PORT is set)";
  else if (e.hydra)
    e.found = "MPICH Hydra, which serves PMI-1 (PMI_FD is set without PMI_JOBID)";
  else if (e.srun_task)
    e.found = "srun without a PMI (SLURM_PROCID is set, no PMI_FD or PMIX_NAMESPACE)";
  else
    e.found = "no launcher";
  return e;
}

Status start_launcher(const Config& c, Status made, std::unique_ptr<Launcher> launcher, const std::string& why,
                      std::unique_ptr<Bootstrap>* out) {
  GSHMEM_CHECK(made);
  GSHMEM_INFO(kBootstrap, "bootstrap: %s, rank %d of %d (%s)", launcher->name().c_str(), launcher->rank(),
              launcher->size(), why.c_str());
  return make_launcher_bootstrap(c, std::move(launcher), out);
}

Status use_pmix(const Config& c, const std::string& why, std::unique_ptr<Bootstrap>* out) {
  std::unique_ptr<Launcher> l;
  Status s = make_plugin_launcher(c.bootstrap_pmix_plugin, nullptr, "PMIx", &l);
  return start_launcher(c, s, std::move(l), why, out);
}
Status use_mpi(const Config& c, void* comm, const std::string& what, const std::string& why,
               std::unique_ptr<Bootstrap>* out) {
  std::unique_ptr<Launcher> l;
  Status s = make_plugin_launcher(c.bootstrap_mpi_plugin, comm, what, &l);
  if (s == GSHMEM_ERROR_NOT_SUPPORTED) {
    GSHMEM_ERROR(
        "%s needs an MPI library: install Open MPI (its libmpi.so.40) and the gshmem MPI plugin, or start "
        "the PEs with gshmrun or another launcher and unset NVSHMEM_BOOTSTRAP",
        what.c_str());
  }
  return start_launcher(c, s, std::move(l), why, out);
}
Status use_pmi1(const Config& c, const std::string& why, std::unique_ptr<Bootstrap>* out) {
  std::unique_ptr<Launcher> l;
  Status s = make_pmi1_launcher(c, &l);
  return start_launcher(c, s, std::move(l), why, out);
}
Status use_pmi2(const Config& c, const std::string& why, std::unique_ptr<Bootstrap>* out) {
  std::unique_ptr<Launcher> l;
  Status s = make_pmi2_launcher(c, &l);
  return start_launcher(c, s, std::move(l), why, out);
}
Status use_gshmrun(const Config& c, std::unique_ptr<Bootstrap>* out) {
  std::vector<uint8_t> secret;
  if (!from_hex(c.run_secret, &secret) || secret.size() != 16) {
    GSHMEM_ERROR("GSHMEM_RUN_SECRET is missing or malformed (expected 32 hex digits); start PEs with gshmrun");
    return GSHMEM_ERROR_CONFIG;
  }
  if (c.run_size < 1 || c.run_rank < 0 || c.run_rank >= c.run_size) {
    GSHMEM_ERROR(
        "GSHMEM_RUN_RANK=%lld / GSHMEM_RUN_SIZE=%lld are not a valid rank and job size; start PEs with gshmrun",
        static_cast<long long>(c.run_rank), static_cast<long long>(c.run_size));
    return GSHMEM_ERROR_CONFIG;
  }
  GSHMEM_INFO(kBootstrap, "bootstrap: gshmrun's TCP root at %s, rank %lld of %lld (GSHMEM_RUN_ROOT is set)",
              c.run_root.c_str(), static_cast<long long>(c.run_rank), static_cast<long long>(c.run_size));
  TcpJoin join(c.run_root, secret.data(), static_cast<int>(c.run_rank), static_cast<int>(c.run_size), "gshmrun");
  join.supervised = true;
  return connect_tcp_bootstrap(c, join, out);
}

Status mismatch(const char* setting, const Environment& e, const char* advice) {
  GSHMEM_ERROR("%s, but this process was started by %s: %s", setting, e.found.c_str(), advice);
  return GSHMEM_ERROR_CONFIG;
}

// NVSHMEM_BOOTSTRAP=PMI (or NVSHMEM_BOOTSTRAP_PMI set): the PMI the settings ask for, if the
// environment serves it.
Status use_requested_pmi(const Config& c, const Environment& e, std::unique_ptr<Bootstrap>* out) {
  std::string pmi = c.bootstrap_pmi;
  if (pmi == "auto") {
    if (e.pmix) return use_pmix(c, "NVSHMEM_BOOTSTRAP=PMI, and " + e.found, out);
    if (e.slurm_pmi2) return use_pmi2(c, "NVSHMEM_BOOTSTRAP=PMI, and " + e.found, out);
    if (e.hydra) return use_pmi1(c, "NVSHMEM_BOOTSTRAP=PMI, and " + e.found, out);
    if (e.gshmrun) {
      return mismatch("NVSHMEM_BOOTSTRAP=PMI", e, "gshmrun is not a PMI launcher; unset NVSHMEM_BOOTSTRAP");
    }
    if (e.srun_task) {
      return mismatch("NVSHMEM_BOOTSTRAP=PMI", e,
                      "run srun --mpi=pmi2 or srun --mpi=pmix (srun --mpi=list shows them)");
    }
    GSHMEM_WARN(kBootstrap,
                "NVSHMEM_BOOTSTRAP=PMI, but no PMI launcher started this process: it runs as a job of "
                "one PE");
    *out = make_single_bootstrap();
    return GSHMEM_SUCCESS;
  }
  const std::string setting = "NVSHMEM_BOOTSTRAP_PMI=" + pmi;
  if (pmi == "PMIX") {
    if (!e.pmix) {
      return mismatch(setting.c_str(), e,
                      "it offers no PMIx server (no PMIX_NAMESPACE); start with Open MPI's mpirun or srun --mpi=pmix, "
                      "or unset NVSHMEM_BOOTSTRAP_PMI");
    }
    return use_pmix(c, setting, out);
  }
  if (pmi == "PMI-2" || pmi == "PMI2") {
    if (e.hydra && !e.slurm_pmi2) {
      return mismatch(setting.c_str(), e, "set NVSHMEM_BOOTSTRAP_PMI=PMI for Hydra, or unset it");
    }
    if (!e.pmi_fd) {
      return mismatch(setting.c_str(), e,
                      e.pmix ? "it serves PMIx: set NVSHMEM_BOOTSTRAP_PMI=PMIX, or unset it"
                             : "PMI-2 needs PMI_FD from srun --mpi=pmi2; start the job that way, or unset it");
    }
    return use_pmi2(c, setting, out);
  }
  // PMI (PMI-1)
  if (e.slurm_pmi2)
    return mismatch(setting.c_str(), e, "set NVSHMEM_BOOTSTRAP_PMI=PMI-2 for srun --mpi=pmi2, or unset it");
  if (!e.hydra) {
    return mismatch(setting.c_str(), e,
                    e.pmix ? "it serves PMIx: set NVSHMEM_BOOTSTRAP_PMI=PMIX, or unset it"
                           : "PMI-1 needs PMI_FD or PMI_PORT from a PMI launcher such as mpiexec.hydra");
  }
  return use_pmi1(c, setting, out);
}

// What started the job, in a few words, for the job's description (gshmem-check, gshmem_describe).
std::string describe_start(const Config& c, const BootstrapRequest& request, const Environment& e, int size) {
  if (request.kind == BootstrapRequest::Kind::kUniqueId) return "the application, with a unique ID";
  if (request.kind == BootstrapRequest::Kind::kMpiComm) return "the application's MPI communicator";
  std::string launcher = e.gshmrun              ? "gshmrun"
                         : e.pmix && e.open_mpi ? "Open MPI mpirun"
                         : e.pmix               ? "a PMIx launcher (srun --mpi=pmix)"
                         : e.slurm_pmi2         ? "srun --mpi=pmi2"
                         : e.hydra              ? "MPICH mpiexec.hydra"
                         : e.srun_task          ? "srun"
                                                : "";
  if (launcher.empty()) return size == 1 ? "no launcher (a job of one PE)" : "an unknown launcher";
  if (c.bootstrap == "MPI") return launcher + ", bootstrap through MPI (NVSHMEM_BOOTSTRAP=MPI)";
  if (e.gshmrun) return launcher;
  if (e.pmix) return launcher + ", bootstrap through PMIx";
  if (e.slurm_pmi2) return launcher + ", bootstrap through PMI-2";
  if (e.hydra) return launcher + ", bootstrap through PMI-1";
  return launcher;
}

Status select_bootstrap(const Config& c, const BootstrapRequest& request, const Environment& e,
                        std::unique_ptr<Bootstrap>* out) {
  if (request.kind == BootstrapRequest::Kind::kUniqueId) {
    GSHMEM_INFO(kBootstrap, "bootstrap: unique ID (NVSHMEMX_INIT_WITH_UNIQUEID), rank %d of %d", request.uid_rank,
                request.uid_size);
    return join_unique_id(c, request.uid, request.uid_len, request.uid_rank, request.uid_size, out);
  }
  if (request.kind == BootstrapRequest::Kind::kMpiComm) {
    return use_mpi(c, request.mpi_comm, "NVSHMEMX_INIT_WITH_MPI_COMM", "NVSHMEMX_INIT_WITH_MPI_COMM", out);
  }
  const std::string& b = c.bootstrap;
  if (b == "SHMEM") {
    GSHMEM_ERROR("NVSHMEM_BOOTSTRAP=SHMEM (OpenSHMEM) is not supported by gshmem; found %s. Unset NVSHMEM_BOOTSTRAP",
                 e.found.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  if (b == "plugin") {
    if (c.bootstrap_plugin.empty()) {
      GSHMEM_ERROR("NVSHMEM_BOOTSTRAP=plugin needs NVSHMEM_BOOTSTRAP_PLUGIN, the path of a gshmem bootstrap plugin");
      return GSHMEM_ERROR_CONFIG;
    }
    std::unique_ptr<Launcher> l;
    Status s = make_plugin_launcher(c.bootstrap_plugin, nullptr, "NVSHMEM_BOOTSTRAP=plugin", &l);
    return start_launcher(c, s, std::move(l), "NVSHMEM_BOOTSTRAP=plugin", out);
  }
  if (b == "MPI") return use_mpi(c, nullptr, "NVSHMEM_BOOTSTRAP=MPI", "NVSHMEM_BOOTSTRAP=MPI", out);
  if (b == "PMIX") {
    if (!e.pmix) {
      return mismatch(
          "NVSHMEM_BOOTSTRAP=PMIX", e,
          "it offers no PMIx server (no PMIX_NAMESPACE); start with Open MPI's mpirun or srun --mpi=pmix, or "
          "unset NVSHMEM_BOOTSTRAP");
    }
    return use_pmix(c, "NVSHMEM_BOOTSTRAP=PMIX", out);
  }
  if (b == "PMI" || c.bootstrap_pmi != "auto") return use_requested_pmi(c, e, out);

  // Nothing requested: recognise the launcher.
  if (e.gshmrun) return use_gshmrun(c, out);
  if (e.pmix) {
    Status s = use_pmix(c, "detected " + e.found, out);
    if (s == GSHMEM_ERROR_NOT_SUPPORTED && e.open_mpi) {
      GSHMEM_INFO(kBootstrap, "the PMIx plugin is not available; trying MPI instead");
      return use_mpi(c, nullptr, "Open MPI's mpirun", "detected " + e.found + ", PMIx plugin unavailable", out);
    }
    return s;
  }
  if (e.slurm_pmi2) return use_pmi2(c, "detected " + e.found, out);
  if (e.hydra) return use_pmi1(c, "detected " + e.found, out);
  if (e.srun_task && e.srun_tasks > 1) {
    GSHMEM_ERROR(
        "srun started %d tasks without a PMI (this is task %s): each would be a job of one PE. Run srun "
        "--mpi=pmi2 or srun --mpi=pmix (srun --mpi=list shows which this Slurm has)",
        e.srun_tasks, c.env_slurm_procid.c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  GSHMEM_INFO(kBootstrap, "bootstrap: single PE (%s)", e.found.c_str());
  *out = make_single_bootstrap();
  return GSHMEM_SUCCESS;
}

}  // namespace

Status create_bootstrap(const Config& c, const BootstrapRequest& request, std::unique_ptr<Bootstrap>* out,
                        std::string* started_by) {
  const Environment e = inspect(c);
  GSHMEM_CHECK(select_bootstrap(c, request, e, out));
  *started_by = describe_start(c, request, e, (*out)->size());
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
