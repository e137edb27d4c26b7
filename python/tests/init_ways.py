"""gshmem.init through what a torch program already has, two sessions each: a torch.distributed store (a FileStore
in the folder given), then an initialised torch.distributed process group (gloo). Run with torchrun's environment
(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT): python3 torchrun_env.py 2 python3 init_ways.py DIR."""

import os
import sys

import torch.distributed as dist

import gshmem

from ring_check import ring


def main():
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    # A file of this run's own (its port is new each run): an old file's keys would hand out an old ID.
    store = dist.FileStore(os.path.join(sys.argv[1], f"store.{os.environ['MASTER_PORT']}"), n)
    for session in range(2):
        with gshmem.init(store=store, rank=rank, nranks=n):
            assert (gshmem.my_pe(), gshmem.n_pes()) == (rank, n)
            ring(10 + session)
    dist.init_process_group("gloo", rank=rank, world_size=n)
    for session in range(2):
        with gshmem.init(process_group=True):
            assert (gshmem.my_pe(), gshmem.n_pes()) == (rank, n)
            ring(20 + session)
    try:
        gshmem.init(store=store)
    except gshmem.UsageError as e:
        assert "store needs rank and nranks" in str(e), e
    else:
        raise AssertionError("init(store=) without rank and nranks was accepted")
    dist.destroy_process_group()
    print(f"init_ways: PE {rank} of {n}: store and process group, 2 sessions each ok", flush=True)


if __name__ == "__main__":
    main()
