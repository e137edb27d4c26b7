import numpy as np
import pytest

import gshmem


def test_put_signal_ring(me, npes):
    data = gshmem.zeros(64, np.float32)
    sig = gshmem.zeros(1, np.uint64)
    gshmem.barrier_all()
    for round_ in range(1, 6):
        gshmem.put_signal(data, np.full(64, me * 10 + round_, np.float32), sig, round_, (me + 1) % npes)
        assert gshmem.signal_wait_until(sig, "ge", round_) >= round_
        np.testing.assert_array_equal(data, ((me - 1) % npes) * 10 + round_)
        gshmem.barrier_all()  # nobody overwrites data before its owner has read it
    gshmem.free(data)
    gshmem.free(sig)


def test_signal_add_from_every_pe(me, npes):
    sig = gshmem.zeros(3, np.uint64)
    gshmem.barrier_all()
    for pe in range(npes):
        gshmem.signal_op(sig, me + 1, pe, op="add", index=2)
    gshmem.signal_wait_until(sig, gshmem.CMP_EQ, npes * (npes + 1) // 2, index=2)
    assert gshmem.signal_fetch(sig, index=2) == npes * (npes + 1) // 2
    assert gshmem.signal_fetch(sig) == 0
    gshmem.barrier_all()
    gshmem.signal_op(sig, 7, (me + 1) % npes, op=gshmem.SIGNAL_SET)
    gshmem.signal_wait_until(sig, "eq", 7)
    gshmem.barrier_all()
    gshmem.free(sig)


def test_put_signal_nbi_add(me, npes):
    data = gshmem.zeros((npes, 16), np.int64)
    sig = gshmem.zeros(1, np.uint64)
    row = np.full(16, me, np.int64)  # (an _nbi source stays as it is until quiet)
    gshmem.barrier_all()
    for pe in range(npes):
        gshmem.put_signal(data[me], row, sig, 1, pe, op="add", nbi=True)
    gshmem.signal_wait_until(sig, "eq", npes)
    np.testing.assert_array_equal(data, np.repeat(np.arange(npes), 16).reshape(npes, 16))
    gshmem.quiet()
    gshmem.barrier_all()
    gshmem.free(data)
    gshmem.free(sig)


def test_waits_all_any_some_and_tests(me, npes):
    flags = gshmem.zeros(npes, np.int32)
    # Before the barrier no other PE writes here.
    assert not gshmem.test(flags, "eq", 1)
    assert gshmem.test_any(flags, "eq", 1) is None
    assert gshmem.test_some(flags, "eq", 1) == []
    gshmem.barrier_all()
    for pe in range(npes):
        gshmem.p(flags, 1, pe, index=me)
    gshmem.wait_until(flags, "eq", 1)
    assert gshmem.test(flags, "eq", 1)
    assert gshmem.wait_until_any(flags, "eq", 1) in range(npes)
    assert sorted(gshmem.wait_until_some(flags, "eq", 1)) == list(range(npes))
    # status leaves elements out; per-element values
    status = np.zeros(npes, np.int32)
    status[0] = 1
    assert gshmem.test_some(flags, "eq", 1, status=status) == list(range(1, npes))
    assert gshmem.test(flags, "eq", np.ones(npes, np.int32))
    all_out = np.ones(npes, np.int32)
    assert gshmem.wait_until_any(flags, "eq", 1, status=all_out) is None
    gshmem.barrier_all()
    gshmem.free(flags)


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_wait_types(me, npes, dtype):
    v = gshmem.zeros(1, dtype)
    gshmem.barrier_all()
    gshmem.p(v, 3, (me + 1) % npes)
    gshmem.wait_until(v, "ge", 3)
    assert gshmem.test(v, "ne", 0) and not gshmem.test(v, "lt", 3) and gshmem.test(v, "le", 3)
    gshmem.barrier_all()
    gshmem.free(v)
