import numpy as np
import pytest

import gshmem

DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]


def pattern(pe, n, dtype, salt=0):
    return ((np.arange(n) * 7 + pe * 1000 + salt) % 120).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_put_ring_every_dtype(me, npes, dtype):
    n = 37
    box = gshmem.zeros(n, dtype)
    assert isinstance(box, np.ndarray) and box.dtype == np.dtype(dtype)
    gshmem.put(box, pattern(me, n, dtype), (me + 1) % npes)
    gshmem.barrier_all()
    np.testing.assert_array_equal(box, pattern((me - 1) % npes, n, dtype))
    gshmem.barrier_all()
    gshmem.free(box)


def test_get_from_every_pe_2d(me, npes):
    src = gshmem.empty((3, 5), np.float64)
    src[...] = np.arange(15).reshape(3, 5) + 100 * me
    gshmem.barrier_all()
    for pe in range(npes):
        out = np.zeros((3, 5))
        gshmem.get(out, src, pe)
        np.testing.assert_array_equal(out, np.arange(15).reshape(3, 5) + 100 * pe)
    gshmem.barrier_all()
    gshmem.free(src)


def test_nbi_completed_by_quiet(me, npes):
    n = 1 << 16
    box = gshmem.zeros(n * npes, np.int32)
    data = np.full(n, me + 1, np.int32)
    for pe in range(npes):
        gshmem.put(box[me * n : (me + 1) * n], data, pe, nbi=True)
    gshmem.quiet()
    gshmem.barrier_all()
    np.testing.assert_array_equal(box.reshape(npes, n), np.repeat(np.arange(1, npes + 1, dtype=np.int32), n).reshape(npes, n))
    gshmem.barrier_all()
    gshmem.free(box)


def test_strided_put_and_get(me, npes):
    box = gshmem.zeros(20, np.int64)
    src = np.arange(40, dtype=np.int64) + 1000 * me
    gshmem.put(box[::2], src[::4], (me + 1) % npes)  # every 4th element into every 2nd slot
    gshmem.barrier_all()
    left = (me - 1) % npes
    np.testing.assert_array_equal(box[::2], np.arange(0, 40, 4) + 1000 * left)
    np.testing.assert_array_equal(box[1::2], 0)
    got = np.zeros(30, np.int64)
    gshmem.get(got[::3], box[::2], left)  # the left neighbour's box holds what its own left neighbour sent
    np.testing.assert_array_equal(got[::3], np.arange(0, 40, 4) + 1000 * ((left - 1) % npes))
    np.testing.assert_array_equal(got[1::3], 0)
    gshmem.barrier_all()
    gshmem.free(box)


@pytest.mark.parametrize("dtype,value", [("int8", -7), ("uint16", 65535), ("int64", -(2**62)), ("uint64", 2**64 - 1),
                                         ("float32", 1.5), ("float64", -2.25), ("float16", 0.5), ("bool", True)])
def test_p_and_g(me, npes, dtype, value):
    box = gshmem.zeros(4, dtype)
    gshmem.p(box, value, (me + 1) % npes, index=2)
    gshmem.barrier_all()
    assert box[2] == value and box[0] == 0
    got = gshmem.g(box, (me + 1) % npes, index=2)
    assert got == value and type(got) is type(value)
    gshmem.barrier_all()
    gshmem.free(box)


def test_peer_array_maps_node_peers(me, npes):
    box = gshmem.zeros(8, np.int32)
    gshmem.barrier_all()
    right = (me + 1) % npes
    view = gshmem.peer_array(box, right)
    if view is not None:  # the CPU backend maps the heaps of the PEs of this host
        view[:] = me + 10
    else:
        gshmem.put(box, np.full(8, me + 10, np.int32), right)
    gshmem.barrier_all()
    np.testing.assert_array_equal(box, (me - 1) % npes + 10)
    mine = gshmem.peer_array(box, me)
    if mine is not None:
        assert np.shares_memory(mine, box)  # this PE's own copy is the array itself
    gshmem.barrier_all()
    gshmem.free(box)


def test_empty_array_and_zero_sized_put(me, npes):
    box = gshmem.empty(0, np.float32)
    assert box.size == 0
    gshmem.put(box, np.zeros(0, np.float32), (me + 1) % npes)
    gshmem.barrier_all()
    gshmem.free(box)
