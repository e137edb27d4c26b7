"""Bad input raises gshmem.UsageError (a ValueError) that names the call and what is wrong; nothing is done and
the job goes on (each test ends with a barrier that every PE reaches)."""

import numpy as np
import pytest

import gshmem


@pytest.fixture
def box():
    a = gshmem.zeros(8, np.int64)
    yield a
    gshmem.barrier_all()
    gshmem.free(a)


def test_pe_out_of_range(box, npes):
    with pytest.raises(gshmem.UsageError, match=r"gshmem.put: PE %d is out of range: valid PEs are 0 to %d" % (npes, npes - 1)):
        gshmem.put(box, np.zeros(8, np.int64), npes)
    with pytest.raises(ValueError, match="PE -1 is out of range"):
        gshmem.g(box, -1)


def test_not_symmetric(box):
    local = np.zeros(8, np.int64)
    with pytest.raises(gshmem.UsageError, match="gshmem.put: the dest array is not a symmetric array"):
        gshmem.put(local, box, 0)
    with pytest.raises(gshmem.UsageError, match="gshmem.get: the src array is not a symmetric array"):
        gshmem.get(box, local, 0)


def test_freed_array(me):
    a = gshmem.zeros(4, np.int32)
    gshmem.barrier_all()
    gshmem.free(a)
    with pytest.raises(gshmem.UsageError, match="the dest array was freed by gshmem.free"):
        gshmem.put(a, np.zeros(4, np.int32), me)
    with pytest.raises(gshmem.UsageError, match="freed already"):
        gshmem.free(a)
    gshmem.barrier_all()


def test_dtype_and_size_mismatch(box):
    with pytest.raises(gshmem.UsageError, match="the dest array is int64 but the src array is float64"):
        gshmem.put(box, np.zeros(8), 0)
    with pytest.raises(gshmem.UsageError, match="dest has 8 elements but src 9"):
        gshmem.put(box, np.zeros(9, np.int64), 0)
    with pytest.raises(gshmem.UsageError, match="index 8 is outside the dest array of 8 elements"):
        gshmem.p(box, 1, 0, index=8)
    with pytest.raises(gshmem.UsageError, match="does not fit an int8 element"):
        small = gshmem.zeros(1, np.int8)
        try:
            gshmem.p(small, 300, 0)
        finally:
            gshmem.barrier_all()
            gshmem.free(small)


def test_bad_operation_names(box):
    with pytest.raises(gshmem.UsageError, match="the reduction 'avg' is none of"):
        gshmem.reduce(box, box, "avg")
    with pytest.raises(gshmem.UsageError, match="the comparison 'approx' is none of"):
        gshmem.wait_until(box, "approx", 0)
    with pytest.raises(gshmem.UsageError, match="neither 'set' nor 'add'"):
        gshmem.signal_op(box.view(np.uint64), 1, 0, op="mul")


def test_no_such_atomic_and_reduction(box):
    f = box.view(np.float64)
    with pytest.raises(gshmem.UsageError, match="no such atomic on float64"):
        gshmem.atomic_fetch_and(f, 1.0, 0)
    c = box.view(np.complex128)
    with pytest.raises(gshmem.UsageError, match="no reduction on complex128"):
        gshmem.reduce(c, c, "sum")


def test_collective_sizes(box, npes):
    with pytest.raises(gshmem.UsageError, match=r"dest has 8 elements but must have %d" % (8 * npes)):
        gshmem.fcollect(box, box)
    with pytest.raises(gshmem.UsageError, match="root %d is not a member index" % npes):
        gshmem.broadcast(box, box, npes)


def test_bad_team_stream_and_dtype(box):
    with pytest.raises(gshmem.UsageError, match="team 999 is not a team this PE is in"):
        gshmem.barrier(999)
    # A team that is no number at all gets the library's message (the argument is read in the call, not by
    # nanobind's overload matching), on every collective that takes one.
    for call in (lambda: gshmem.sync("world"), lambda: gshmem.reduce(box, box, "sum", "world"),
                 lambda: gshmem.broadcast(box, box, 0, 1.5)):
        with pytest.raises(gshmem.UsageError, match="is neither a gshmem.Team nor a team number"):
            call()
    # The stream is keyword-only, as it is everywhere else.
    with pytest.raises(TypeError):
        gshmem.reduce(box, box, "sum", gshmem.TEAM_WORLD, None)
    with pytest.raises(gshmem.UsageError, match="is not a CUDA stream"):
        gshmem.put(box, np.zeros(8, np.int64), 0, stream="fast")
    with pytest.raises(gshmem.UsageError, match="nbi=True and a stream"):
        gshmem.put(box, np.zeros(8, np.int64), 0, nbi=True, stream=1)
    with pytest.raises(gshmem.UsageError, match="is not one gshmem's arrays hold"):
        gshmem.empty(4, "complex64")
    with pytest.raises(gshmem.UsageError, match="like='jax'"):
        gshmem.empty(4, "int32", like="jax")


def test_module_init_refusals():
    # Setting up a module for the bitcode device library: a NULL handle is named, and nothing is registered.
    import gshmem.devlib

    with pytest.raises(gshmem.Error, match="gshmem.module_init: the module is NULL"):
        gshmem.devlib.module_init(0)
    with pytest.raises(gshmem.Error, match="gshmem.module_finalize: .*was not registered with the matching _init call"):
        gshmem.devlib.module_finalize(0)
    gshmem.barrier_all()
