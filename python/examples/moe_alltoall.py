"""Mixture-of-experts style dispatch: each PE routes tokens to the experts (one per PE) that its router picked.
The counts are exchanged first (an alltoall of one integer per pair), then every PE puts its tokens straight
into the right slots of each expert's receive buffer and signals how many rows it sent.
    gshmrun -n 4 python3 moe_alltoall.py"""

import numpy as np

import gshmem

HIDDEN, TOKENS = 16, 64

with gshmem.init():
    me, n = gshmem.my_pe(), gshmem.n_pes()
    rng = np.random.default_rng(me)
    tokens = rng.standard_normal((TOKENS, HIDDEN)).astype(np.float32)
    tokens[:, 0] = me * 1000 + np.arange(TOKENS)  # a tag: sender and row
    expert = rng.integers(0, n, TOKENS)  # the router's choice for each token
    order = np.argsort(expert, kind="stable")

    # 1. How many tokens go to each expert, exchanged so that each expert knows what it will receive.
    send_counts = gshmem.zeros(n, np.int64)
    recv_counts = gshmem.zeros(n, np.int64)
    send_counts[:] = np.bincount(expert, minlength=n)
    gshmem.barrier_all()
    gshmem.alltoall(recv_counts, send_counts)

    # 2. Where each sender's rows start in each expert's buffer: the counts of the senders before it.
    offsets = gshmem.zeros(n * n, np.int64)  # row i: what expert i receives from each sender
    gshmem.fcollect(offsets, recv_counts)
    starts = np.cumsum(offsets.reshape(n, n), axis=1) - offsets.reshape(n, n)  # [expert, sender]

    # 3. The tokens, put directly into place, and a signal per expert counting the senders that finished.
    capacity = TOKENS * n
    recv = gshmem.zeros((capacity, HIDDEN), np.float32)
    done = gshmem.zeros(1, np.uint64)
    gshmem.barrier_all()
    first = 0
    for e in range(n):
        rows = order[first : first + send_counts[e]]
        first += send_counts[e]
        start = starts[e, me]
        gshmem.put_signal(recv[start : start + len(rows)], np.ascontiguousarray(tokens[rows]), done, 1, e, op="add")
    gshmem.signal_wait_until(done, "eq", n)
    got = int(recv_counts.sum())
    senders = (recv[:got, 0] // 1000).astype(int)
    assert (np.bincount(senders, minlength=n) == recv_counts).all()
    print(f"expert {me}: {got} tokens from {n} PEs ({', '.join(str(c) for c in recv_counts)})")
    gshmem.barrier_all()
    for a in (done, recv, offsets, recv_counts, send_counts):
        gshmem.free(a)
