"""A check that a session works, for the scripts that start sessions in several ways: a ring of puts."""

import numpy as np

import gshmem


def ring(tag):
    """Every PE puts (tag, its number) into the next PE's symmetric array; each checks what its left neighbour sent."""
    me, n = gshmem.my_pe(), gshmem.n_pes()
    box = gshmem.zeros(2, np.int64)
    gshmem.put(box, np.array([tag, me], np.int64), (me + 1) % n)
    gshmem.barrier_all()
    assert box.tolist() == [tag, (me - 1) % n], box
    gshmem.free(box)
