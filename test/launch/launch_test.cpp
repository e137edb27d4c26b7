// A multi-PE program for every launcher: started by gshmrun, mpirun, mpiexec.hydra or srun, or
// joined through a unique ID passed in a file.
//   launch_test [--expect-node-pes K] [--late-rank R --late-s S [--late-after-init | --late-before-barrier]]
//               [--print-env NAME]                 print the variable NAME as the PE sees it, before init
//               [--sessions N]                     init, the checks and finalize N times in the process
//               [--leave-rank R]                   with --sessions: PE R ends after its first session
//               [--quick-exit]                     end with _exit(0) after the last finalize (no exit handlers)
//   launch_test --make-uid FILE                      write a unique ID to FILE and exit
//   launch_test --uid-file FILE --rank R --size N    PE R of N; rank 0 also writes the ID
#include <unistd.h>

#include <cstring>
#include <string>

#include "launch_checks.h"

namespace {

bool write_uid(const std::string& path, const nvshmemx_uniqueid_t& id) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f || std::fwrite(&id, sizeof id, 1, f) != 1) return false;
  std::fclose(f);
  return std::rename(tmp.c_str(), path.c_str()) == 0;  // readers never see half an ID
}

bool read_uid(const std::string& path, nvshmemx_uniqueid_t* id, double wait_s) {
  for (double waited = 0; waited < wait_s; waited += 0.01) {
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      bool ok = std::fread(id, sizeof *id, 1, f) == 1;
      std::fclose(f);
      if (ok) return true;
    }
    usleep(10000);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const double started = now_ms();
  int expect_node = -1, rank = -1, size = -1, late_rank = -1, sessions = 1, leave_rank = -1;
  bool quick_exit = false;
  double late_s = 0;
  bool late_after_init = false, late_before_barrier = false;
  std::string uid_file, make_uid;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--expect-node-pes")
      expect_node = std::atoi(v), ++i;
    else if (a == "--uid-file")
      uid_file = v, ++i;
    else if (a == "--make-uid")
      make_uid = v, ++i;
    else if (a == "--rank")
      rank = std::atoi(v), ++i;
    else if (a == "--size")
      size = std::atoi(v), ++i;
    else if (a == "--sessions")
      sessions = std::atoi(v), ++i;
    else if (a == "--leave-rank")
      leave_rank = std::atoi(v), ++i;
    else if (a == "--quick-exit")
      quick_exit = true;
    else if (a == "--late-rank")
      late_rank = std::atoi(v), ++i;
    else if (a == "--late-s")
      late_s = std::atof(v), ++i;
    else if (a == "--late-after-init")
      late_after_init = true;
    else if (a == "--late-before-barrier")
      late_before_barrier = true;
    else if (a == "--print-env") {
      const char* e = getenv(v);
      std::printf("launch_test: %s=%s\n", v, e ? e : "(unset)");
      std::fflush(stdout);
      ++i;
    } else {
      std::fprintf(stderr, "launch_test: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (!make_uid.empty()) {
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (nvshmemx_get_uniqueid(&id) != 0 || !write_uid(make_uid, id)) return 1;
    std::printf("launch_test: wrote a unique ID to %s\n", make_uid.c_str());
    return 0;  // the ID's root ends with this process
  }
  if (!uid_file.empty()) {
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0) {
      if (nvshmemx_get_uniqueid(&id) != 0 || !write_uid(uid_file, id)) return 1;
    } else if (!read_uid(uid_file, &id, 60)) {
      std::fprintf(stderr, "launch_test: no unique ID in %s\n", uid_file.c_str());
      return 1;
    }
    // Every session joins the same ID: the same job again.
    for (int s = 0; s < sessions; ++s) {
      nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
      nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr);
      if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) return 1;
      launch_checks(expect_node, started, sessions > 1 ? "unique ID from a file, a session" : "unique ID from a file");
    }
    return 0;
  }
  if (late_rank >= 0 && !late_after_init && !late_before_barrier) {
    // Find our rank before init the way each launcher tells it, to be the late one.
    const char* names[] = {"GSHMEM_RUN_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "PMIX_RANK"};
    for (const char* n : names) {
      if (const char* v = getenv(n)) {
        if (std::atoi(v) == late_rank) usleep(static_cast<useconds_t>(late_s * 1e6));
        break;
      }
    }
  }
  nvshmem_init();
  if (late_rank >= 0 && late_after_init) {
    // The late PE joins the first collective allocation late: the others' bootstrap step waits.
    if (nvshmem_my_pe() == late_rank) usleep(static_cast<useconds_t>(late_s * 1e6));
    nvshmem_free(nvshmem_malloc(64));
  }
  if (late_rank >= 0 && late_before_barrier && nvshmem_my_pe() == late_rank) {
    usleep(static_cast<useconds_t>(late_s * 1e6));  // the others wait in launch_checks' first barrier
  }
  const int me = nvshmem_my_pe();
  launch_checks(expect_node, started, "nvshmem_init");
  if (me == leave_rank) return 0;
  // Init again after finalize: a new session of the same job.
  for (int s = 1; s < sessions; ++s) {
    const double again = now_ms();
    nvshmem_init();
    launch_checks(expect_node, again, "nvshmem_init again");
  }
  if (quick_exit) {
    std::fflush(nullptr);
    _exit(0);  // after finalize: a clean end, though the process says nothing more to the root
  }
  return 0;
}
