"""Starts a command on N processes the way torchrun does: RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT set, and a TCPStore served at MASTER_ADDR:MASTER_PORT by this (the agent's) process. Where torchrun
itself works (torch 2 and later) it is used instead.
    python3 torchrun_env.py N command args...
Debian 12's torch 1.13 has a torchrun that fails on Python 3.11 before it starts a worker (its Std enum); the
workers see the same environment either way, and gshmem reads nothing else of torchrun."""

import os
import socket
import subprocess
import sys
import time
from datetime import timedelta

import torch


def main():
    n, cmd = int(sys.argv[1]), sys.argv[2:]
    if int(torch.__version__.split(".")[0]) >= 2:
        print(f"torchrun_env: torch {torch.__version__}: torchrun --standalone --nproc_per_node {n}", flush=True)
        os.execv(sys.executable, [sys.executable, "-m", "torch.distributed.run", "--standalone",
                                  f"--nproc_per_node={n}"] + cmd)
    from torch.distributed import TCPStore

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    store = TCPStore("127.0.0.1", port, n + 1, True, timeout=timedelta(seconds=120), wait_for_workers=False)
    print(f"torchrun_env: torch {torch.__version__}: {n} workers with torchrun's environment, store at port {port}",
          flush=True)
    procs = []
    for rank in range(n):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(n),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), TORCHELASTIC_RUN_ID="gshmem-test",
                   TORCHELASTIC_USE_AGENT_STORE="True", TORCHELASTIC_RESTART_COUNT="0")
        procs.append(subprocess.Popen(cmd, env=env))
    # As torchrun does: a worker that fails ends the others.
    while any(p.poll() is None for p in procs):
        if any(p.returncode not in (None, 0) for p in procs):
            for p in procs:
                if p.poll() is None:
                    p.terminate()
            break
        time.sleep(0.05)
    codes = [p.wait() for p in procs]
    del store
    sys.exit(max(abs(c) for c in codes))


if __name__ == "__main__":
    main()
