"""Launchers that the C++ library does not read itself: torchrun (its store hands out the unique ID)."""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Optional, Tuple

from . import _native

# Variables by which the C++ library recognises its launchers (gshmrun, PMI, PMIx, srun, Open MPI) or an
# explicit bootstrap choice; where one is set, it starts the job.
_LIBRARY_LAUNCHERS = (
    "GSHMEM_RUN_RANK",
    "PMI_FD",
    "PMI_PORT",
    "PMIX_NAMESPACE",
    "SLURM_PROCID",
    "OMPI_COMM_WORLD_SIZE",
    "NVSHMEM_BOOTSTRAP",
)


def unique_id_from_environment() -> Optional[Tuple[bytes, int, int]]:
    """(unique ID, rank, nranks) for a job started by torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and no
    launcher the library knows); None otherwise. Rank 0 makes the ID and sets it in torchrun's store (the one at
    MASTER_ADDR:MASTER_PORT), the others read it there."""
    env = os.environ
    if any(env.get(v) for v in _LIBRARY_LAUNCHERS):
        return None
    if not all(env.get(v) for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")):
        return None
    rank, size = int(env["RANK"]), int(env["WORLD_SIZE"])
    if size == 1:
        return None  # one PE starts without a bootstrap
    from torch.distributed import TCPStore  # torchrun implies torch

    store = TCPStore(
        env["MASTER_ADDR"], int(env["MASTER_PORT"]), size, False, timeout=timedelta(seconds=120)
    )
    prefix = f"gshmem/unique_id/{env.get('TORCHELASTIC_RUN_ID', '')}/{env.get('TORCHELASTIC_RESTART_COUNT', '0')}"
    return unique_id_through_store(store, rank, prefix), rank, size


_generation = 0


def unique_id_through_store(store: object, rank: int, prefix: str) -> bytes:
    """The session's unique ID through a torch.distributed store: rank 0 makes it and sets it, the others wait for it.
    One key per session of this process (every rank counts its sessions alike), so that init after finalize does not
    read the last session's ID."""
    global _generation
    _generation += 1
    key = f"{prefix}/{_generation}"
    if rank == 0:
        store.set(key, _native.get_unique_id())
    return bytes(store.get(key))
