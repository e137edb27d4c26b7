"""nvshmem4py's nvshmem.bindings over gshmem (gshmem.nvshmem4py.bindings): NVSHMEM's C host functions with addresses
as ints, on the CPU backend (the heap is host memory, read here through ctypes)."""

import ctypes

import numpy as np
import pytest

import gshmem
from gshmem.nvshmem4py import bindings as b
from gshmem.nvshmem4py.core import NvshmemError


def view(address, n, ctype):
    """n elements of ctype at `address` of this PE's heap, as a numpy array."""
    return np.ctypeslib.as_array((ctype * n).from_address(address))


@pytest.fixture(autouse=True)
def cpu_only():
    if gshmem.cuda_device() >= 0:
        pytest.skip("reads the heap through host pointers: the CPU backend's test")


def test_queries_and_enums(me, npes):
    assert b.my_pe() == me and b.n_pes() == npes
    assert b.team_my_pe(b.Team_id.TEAM_WORLD) == me and b.team_n_pes(b.Team_id.TEAM_WORLD) == npes
    assert b.init_status() in (int(b.Init_status.STATUS_IS_INITIALIZED), int(b.Init_status.STATUS_LIMITED_MPG))
    assert int(b.Signal_op.SIGNAL_ADD) == gshmem.SIGNAL_ADD and int(b.Cmp_type.CMP_GE) == gshmem.CMP_GE
    major, minor = np.zeros(1, np.int32), np.zeros(1, np.int32)
    b.info_get_version(major.ctypes.data, minor.ctypes.data)
    assert (major[0], minor[0]) == (1, 3)
    assert "int_put" in dir(b) and "barrier_all_on_stream" in dir(b)


def test_malloc_put_get_and_pointers(me, npes):
    n = 16
    buf = b.malloc(n * 4)
    assert isinstance(buf, int) and buf != 0 and b.ptr(buf, me) == buf
    right, left = (me + 1) % npes, (me - 1) % npes
    src = np.arange(n, dtype=np.int32) + 100 * me
    b.int_put(buf, src.ctypes.data, n, right)
    b.barrier_all()
    assert (view(buf, n, ctypes.c_int32) == np.arange(n) + 100 * left).all()
    got = np.zeros(n, np.int32)
    b.getmem(got.ctypes.data, buf, n * 4, right)
    assert (got == np.arange(n) + 100 * me).all()
    b.barrier_all()  # every PE has read its block before the next write
    b.int_p(buf, -7, right)
    b.barrier_all()
    assert b.int_g(buf, left) == -7 and view(buf, 1, ctypes.c_int32)[0] == -7
    zeroed = b.calloc(8, 8)
    assert (view(zeroed, 8, ctypes.c_uint64) == 0).all()
    b.barrier_all()
    b.free(zeroed)
    b.free(buf)


def test_atomics_signals_and_floats(me, npes):
    word = b.calloc(4, 8)
    b.barrier_all()
    old = b.int64_atomic_fetch_add(word, me + 1, 0)
    assert 0 <= old < npes * (npes + 1) // 2 + 1
    b.uint64_atomic_inc(word + 8, 0)
    b.double_atomic_set(word + 16, 2.5, me)
    b.barrier_all()
    if me == 0:
        assert b.int64_atomic_fetch(word, 0) == npes * (npes + 1) // 2
        assert b.uint64_atomic_fetch(word + 8, 0) == npes
    assert b.double_atomic_fetch(word + 16, me) == 2.5
    assert b.int64_atomic_compare_swap(word + 24, 0, 5, me) == 0 and b.int64_atomic_swap(word + 24, 9, me) == 5
    b.barrier_all()
    sig = b.calloc(1, 8)
    data = b.calloc(4, 8)
    b.barrier_all()
    src = np.full(4, me + 1, np.uint64)
    b.putmem_signal_on_stream(data, src.ctypes.data, 32, sig, 3, b.Signal_op.SIGNAL_ADD, (me + 1) % npes, None)
    b.signal_wait_until_on_stream(sig, b.Cmp_type.CMP_EQ, 3, None)
    assert b.signal_fetch(sig) == 3 and (view(data, 4, ctypes.c_uint64) == (me - 1) % npes + 1).all()
    b.barrier_all()
    for a in (data, sig, word):
        b.free(a)
    if hasattr(b, "half_p"):  # built with CUDA's headers: half and bfloat16 values travel as floats
        h = b.calloc(2, 2)
        b.half_p(h, 1.5, me)
        assert b.half_g(h, me) == 1.5
        b.barrier_all()
        b.free(h)


def test_collectives_and_teams(me, npes):
    n = 8
    src, dest = b.malloc(n * 4), b.malloc(n * 4 * npes)
    view(src, n, ctypes.c_float)[:] = me + 1
    b.barrier_all()
    b.float_sum_reduce(b.Team_id.TEAM_WORLD, dest, src, n)
    assert (view(dest, n, ctypes.c_float) == npes * (npes + 1) / 2).all()
    b.barrier_all()  # every PE has read the sum before the fcollect writes into its dest
    b.float_fcollect_on_stream(b.Team_id.TEAM_WORLD, dest, src, n, None)
    assert (view(dest, n * npes, ctypes.c_float) == np.repeat(np.arange(1, npes + 1), n)).all()
    team = np.full(1, -1, np.int32)
    b.team_split_strided(b.Team_id.TEAM_WORLD, 0, 2, (npes + 1) // 2, None, 0, team.ctypes.data)
    if me % 2 == 0:
        assert b.team_n_pes(int(team[0])) == (npes + 1) // 2 and b.team_my_pe(int(team[0])) == me // 2
        b.team_destroy(int(team[0]))
    else:
        assert team[0] == int(b.Team_id.TEAM_INVALID)
    b.barrier_all()
    b.free(dest)
    b.free(src)


def test_errors(me, npes):
    buf = b.malloc(8)
    with pytest.raises(NvshmemError, match=f"PE {npes + 5} is out of range"):
        b.int_p(buf, 1, npes + 5)
    local = np.zeros(2, np.int64)
    with pytest.raises(NvshmemError, match="not .*symmetric heap"):
        b.long_p(local.ctypes.data, 1, me)
    with pytest.raises(TypeError, match="int_p takes 3 argument"):
        b.int_p(buf, 1)
    with pytest.raises(TypeError, match="argument 1 must be an address"):
        b.int_p("here", 1, me)
    with pytest.raises(AttributeError, match="no host function nvshmem_no_such_call"):
        b.no_such_call()
    b.barrier_all()
    b.free(buf)


def test_structures(me, npes):
    # A new structure holds the C initializer's values: the version set (NVSHMEM's (major << 16) + size), the
    # rest zero; the layout is the C one.
    uid = b.uniqueid()
    assert len(uid) == 1 and uid.version == (1 << 16) + b.SIZEOF_UNIQUEID == (1 << 16) + b.uniqueid_dtype.itemsize
    assert (uid.internal == 0).all() and uid.internal.shape == (124,)
    assert b.UniqueId is b.uniqueid and b.InitAttr is b.init_attr and b.TeamConfig is b.team_config
    assert b.init_attr_dtype.itemsize == b.SIZEOF_INIT_ATTR and b.team_config_dtype.itemsize == b.SIZEOF_TEAM_CONFIG
    uid.internal[:3] = [7, 8, me]
    same = b.uniqueid.from_ptr(uid.ptr)  # the same memory
    assert same == uid and same.internal[2] == me and int(same) == uid.ptr
    same.version = 5
    assert uid.version == 5
    with pytest.raises(ValueError, match="read-only"):
        b.uniqueid.from_ptr(uid.ptr, readonly=True).version = 6
    many = b.uniqueid(3)
    assert len(many) == 3 and list(many.version) == [(1 << 16) + b.SIZEOF_UNIQUEID] * 3
    many[1] = uid
    assert many[1] == uid and many[-3] == many[0] and many[0] != uid
    with pytest.raises(IndexError):
        many[3]
    with pytest.raises(TypeError, match="use .ptr"):
        int(many)
    assert many[np.int64(1)] == uid  # any integer index
    with pytest.raises(ValueError, match="dtype"):
        b.uniqueid.from_data(np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        b.uniqueid.from_data(many._data[::2])
    assert len(many[::2]) == 2 and many[::2][1] == many[2]  # a strided slice is a contiguous copy

    # The C initializer's values, not zeros: no rank nor size yet; padding does not count in ==.
    args, other = b.uniqueid_args(), b.uniqueid_args()
    assert (args.myrank, args.nranks, args.id) == (-1, -1, 0) and args.version == (1 << 16) + args._dtype.itemsize
    raw = other._data.view(np.uint8)
    raw[4:8] = 0xAB  # the padding between version and the pointer
    assert args == other

    # set_attr_uniqueid_args fills an InitAttr's arguments with the rank, the size and the ID's address.
    attr = b.InitAttr()
    assert attr.version == (2 << 16) + b.SIZEOF_INIT_ATTR and attr.mpi_comm == 0
    b.set_attr_uniqueid_args(me, npes, uid.ptr, attr.ptr)
    args_at = attr.ptr + b.init_attr_dtype.fields["args"][1]
    uid_args = b.uniqueid_args.from_ptr(args_at + ctypes.alignment(ctypes.c_void_p))
    assert (uid_args.myrank, uid_args.nranks, uid_args.id) == (me, npes, uid.ptr)

    # A team made with a configuration reports it back through team_get_config.
    config = b.team_config()
    assert config.version == (2 << 16) + b.SIZEOF_TEAM_CONFIG and config.num_contexts == 0
    config.num_contexts = 2
    team = np.full(1, -1, np.int32)
    b.team_split_strided(b.Team_id.TEAM_WORLD, 0, 1, npes, config.ptr, b.TEAM_CONFIG_MASK_NUM_CONTEXTS, team.ctypes.data)
    got = b.TeamConfig()
    b.team_get_config(int(team[0]), got.ptr)
    assert got.num_contexts == 2 and got.version == config.version
    b.team_destroy(int(team[0]))
    b.barrier_all()


def test_status_and_flags():
    assert b.Status.SUCCESS == 0 and b.Status(b.Status.ERROR_INVALID_VALUE).name == "ERROR_INVALID_VALUE"
    assert int(b.Flags.INIT_WITH_UNIQUEID) == 8 and int(b.Flags.INIT_WITH_MPI_COMM) == 2
    assert b.TEAM_WORLD == int(b.Team_id.TEAM_WORLD) and b.STATUS_IS_INITIALIZED == 2
    assert b.TEAM_WORLD_INDEX == 0 and b.TEAM_SAME_MYPE_NODE_INDEX == 3  # aliases of the team values
    b.check_status(0)
    with pytest.raises(NvshmemError, match=r"ERROR_INVALID_VALUE \(1\)"):
        b.check_status(1)
