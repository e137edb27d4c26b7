"""gshmem.init(mpi_comm=...) with mpi4py, under mpirun: the world communicator for two sessions, then a split one
(two jobs, the even and the odd ranks), then nvshmem4py's init with initializer_method="mpi" (gshmem.nvshmem4py.core).
Prints one line per rank at the end."""

from mpi4py import MPI

import gshmem
from gshmem.nvshmem4py import core as nvshmem

from ring_check import ring


def main():
    world = MPI.COMM_WORLD
    rank, n = world.Get_rank(), world.Get_size()
    for session in range(2):
        with gshmem.init(mpi_comm=world):
            assert (gshmem.my_pe(), gshmem.n_pes()) == (rank, n)
            ring(session)
    half = world.Split(rank % 2, rank)
    with gshmem.init(mpi_comm=half):
        assert (gshmem.my_pe(), gshmem.n_pes()) == (half.Get_rank(), half.Get_size())
        ring(10 + rank % 2)
    me_half = half.Get_rank()
    half.Free()
    nvshmem.init(mpi_comm=world, initializer_method="mpi")
    assert (nvshmem.my_pe(), nvshmem.n_pes()) == (rank, n)
    ring(20)
    nvshmem.finalize()
    print(f"init_mpi4py: rank {rank} of {n}: world twice, then PE {me_half} of a split communicator ok", flush=True)


if __name__ == "__main__":
    main()
