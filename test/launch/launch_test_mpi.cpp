// Launcher tests that need MPI in the application: init from an MPI communicator (the world, or a
// split one), and a unique ID broadcast over MPI.
//   launch_test_mpi --comm-world | --comm-split | --uid-bcast [SESSIONS]
// With SESSIONS, init, the checks and finalize that many times (each a new job: a new ID, or the
// communicator again).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <string>

#include "launch_checks.h"

int main(int argc, char** argv) {
  const double started = now_ms();
  MPI_Init(&argc, &argv);
  int wrank = 0, wsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const std::string mode = argc > 1 ? argv[1] : "";
  const int sessions = argc > 2 ? std::atoi(argv[2]) : 1;
  MPI_Comm comm = MPI_COMM_WORLD;
  if (mode == "--comm-split") {
    // Two jobs: the even and the odd ranks of the world, each with its own gshmem.
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comm);
  }
  for (int session = 0; session < sessions; ++session) {
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    int rc = 0;
    if (mode == "--comm-world" || mode == "--comm-split") {
      nvshmemx_set_attr_mpi_comm_args(&comm, &attr);
      rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
      if (rc == 0) {
        int expected = mode == "--comm-split" ? (wsize + 1 - wrank % 2) / 2 : wsize;
        LAUNCH_CHECK(nvshmem_n_pes() == expected, "%d PEs, the communicator has %d", nvshmem_n_pes(), expected);
        int crank = 0;
        MPI_Comm_rank(comm, &crank);
        LAUNCH_CHECK(nvshmem_my_pe() == crank, "PE %d is rank %d of the communicator", nvshmem_my_pe(), crank);
      }
    } else if (mode == "--uid-bcast") {
      nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
      if (wrank == 0) nvshmemx_get_uniqueid(&id);
      MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
      nvshmemx_set_attr_uniqueid_args(wrank, wsize, &id, &attr);
      rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    } else {
      std::fprintf(stderr, "usage: launch_test_mpi --comm-world | --comm-split | --uid-bcast\n");
      rc = 2;
    }
    if (rc != 0) {
      std::fprintf(stderr, "launch_test_mpi: init failed (%d)\n", rc);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    launch_checks(-1, started, mode.c_str() + 2);
  }
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
