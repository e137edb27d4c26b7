"""A ring of puts: each PE sends its number to the next one, which waits for the signal that says it landed.
    gshmrun -n 4 python3 ring.py"""

import numpy as np

import gshmem

with gshmem.init():
    me, n = gshmem.my_pe(), gshmem.n_pes()
    inbox = gshmem.zeros(8, np.int64)
    arrived = gshmem.zeros(1, np.uint64)
    gshmem.barrier_all()  # every PE has its inbox before anyone writes into one
    gshmem.put_signal(inbox, np.full(8, me, np.int64), arrived, 1, (me + 1) % n)
    gshmem.signal_wait_until(arrived, "eq", 1)
    assert (inbox == (me - 1) % n).all()
    print(f"PE {me} of {n}: got {inbox[0]} from PE {(me - 1) % n}")
    gshmem.barrier_all()
    gshmem.free(arrived)
    gshmem.free(inbox)
