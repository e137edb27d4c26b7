import numpy as np
import pytest

import gshmem

INTS = ["int32", "uint32", "int64", "uint64"]


@pytest.mark.parametrize("dtype", INTS)
def test_fetch_add_from_every_pe(me, npes, dtype):
    counter = gshmem.zeros(2, dtype)
    gshmem.barrier_all()
    seen = [gshmem.atomic_fetch_add(counter, me + 1, 0, index=1) for _ in range(25)]
    gshmem.barrier_all()
    if me == 0:
        assert counter[1] == 25 * sum(range(1, npes + 1)) and counter[0] == 0
    assert all(isinstance(v, int) for v in seen) and seen == sorted(seen)  # each PE's own adds come in order
    gshmem.barrier_all()
    gshmem.free(counter)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_family(me, npes, dtype):
    w = gshmem.zeros(1, dtype)
    right = (me + 1) % npes
    gshmem.barrier_all()
    gshmem.atomic_set(w, 0b1100, right)
    gshmem.barrier_all()
    assert gshmem.atomic_fetch(w, right) == 0b1100
    assert gshmem.atomic_fetch_and(w, 0b0100, right) == 0b1100
    assert gshmem.atomic_fetch_or(w, 0b0011, right) == 0b0100
    assert gshmem.atomic_fetch_xor(w, 0b0001, right) == 0b0111
    assert gshmem.atomic_swap(w, 40, right) == 0b0110
    assert gshmem.atomic_compare_swap(w, 41, 99, right) == 40  # no swap: 40 != 41
    assert gshmem.atomic_compare_swap(w, 40, 42, right) == 40
    gshmem.atomic_inc(w, right)
    assert gshmem.atomic_fetch_inc(w, right) == 43
    gshmem.atomic_and(w, 0xF, right)
    gshmem.atomic_or(w, 0x30, right)
    gshmem.atomic_xor(w, 0x1, right)
    gshmem.atomic_add(w, 2, right)
    assert gshmem.atomic_fetch(w, right) == ((((44 & 0xF) | 0x30) ^ 0x1) + 2)
    gshmem.barrier_all()
    gshmem.free(w)


def test_unsigned_wraps_and_signed_negative(me, npes):
    u = gshmem.zeros(1, np.uint32)
    s = gshmem.zeros(1, np.int64)
    gshmem.barrier_all()
    if me == 0:
        gshmem.atomic_set(u, 2**32 - 1, 0)
        gshmem.atomic_add(u, 2, 0)
        assert gshmem.atomic_fetch(u, 0) == 1
        gshmem.atomic_add(s, -5, 0)
        assert gshmem.atomic_fetch(s, 0) == -5
    gshmem.barrier_all()
    gshmem.free(u)
    gshmem.free(s)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_add_and_swap(me, npes, dtype):
    f = gshmem.zeros(1, dtype)
    gshmem.barrier_all()
    for _ in range(4):
        gshmem.atomic_add(f, 0.25, 0)
    gshmem.barrier_all()
    if me == 0:
        assert f[0] == 0.25 * 4 * npes
    gshmem.barrier_all()
    old = gshmem.atomic_fetch_add(f, 0.5, 0) if me == 0 else None
    if me == 0:
        assert old == 0.25 * 4 * npes
        assert gshmem.atomic_swap(f, 3.0, 0) == old + 0.5
        assert gshmem.atomic_fetch(f, 0) == 3.0
    gshmem.barrier_all()
    gshmem.free(f)
