import numpy as np
import pytest

import gshmem

OPS = {
    "sum": lambda rows: rows.sum(axis=0),
    "prod": lambda rows: rows.prod(axis=0),
    "min": lambda rows: rows.min(axis=0),
    "max": lambda rows: rows.max(axis=0),
    "and": lambda rows: np.bitwise_and.reduce(rows, axis=0),
    "or": lambda rows: np.bitwise_or.reduce(rows, axis=0),
    "xor": lambda rows: np.bitwise_xor.reduce(rows, axis=0),
}


def contribution(pe, n, dtype):
    return ((np.arange(n) * 3 + pe * 5) % 7 + 1).astype(dtype)


CASES = [
    (op, dtype)
    for op in OPS
    for dtype in ["int8", "uint16", "int32", "uint64", "float32", "float64"]
    if not (op in ("and", "or", "xor") and dtype.startswith("float"))  # bitwise reductions take integers
]


@pytest.mark.parametrize("op,dtype", CASES)
def test_reduce_every_op(me, npes, op, dtype):
    n = 33
    src = gshmem.empty(n, dtype)
    dest = gshmem.zeros(n, dtype)
    src[:] = contribution(me, n, dtype)
    gshmem.barrier_all()
    gshmem.reduce(dest, src, op)
    rows = np.stack([contribution(pe, n, dtype) for pe in range(npes)])
    np.testing.assert_array_equal(dest, OPS[op](rows).astype(dtype))
    gshmem.barrier_all()
    gshmem.free(dest)
    gshmem.free(src)


def test_reducescatter_sum(me, npes):
    n = 8
    src = gshmem.empty(n * npes, np.int64)
    src[:] = np.arange(n * npes) + me
    dest = gshmem.zeros(n, np.int64)
    gshmem.barrier_all()
    gshmem.reducescatter(dest, src, "sum")
    total = sum(np.arange(n * npes) + pe for pe in range(npes))
    np.testing.assert_array_equal(dest, total[me * n : (me + 1) * n])
    gshmem.barrier_all()
    gshmem.free(dest)
    gshmem.free(src)


def test_broadcast_fcollect_alltoall(me, npes):
    n = 6
    src = gshmem.empty(n, np.int32)
    src[:] = np.arange(n) + 100 * me
    dest = gshmem.zeros(n, np.int32)
    root = npes - 1
    gshmem.barrier_all()
    gshmem.broadcast(dest, src, root)
    np.testing.assert_array_equal(dest, np.arange(n) + 100 * root)

    all_ = gshmem.zeros(n * npes, np.int32)
    gshmem.fcollect(all_, src)
    np.testing.assert_array_equal(all_, np.concatenate([np.arange(n) + 100 * pe for pe in range(npes)]))

    blocks = gshmem.empty(2 * npes, np.int32)
    blocks[:] = [me * 1000 + j for j in range(npes) for _ in range(2)]  # block j for member j
    out = gshmem.zeros(2 * npes, np.int32)
    gshmem.alltoall(out, blocks)
    np.testing.assert_array_equal(out, [i * 1000 + me for i in range(npes) for _ in range(2)])
    gshmem.barrier_all()
    for a in (src, dest, all_, blocks, out):
        gshmem.free(a)


def test_teams_split_translate_and_collectives(me, npes):
    world = gshmem.TEAM_WORLD
    assert world.my_pe() == me and world.n_pes() == npes
    # A Team is its team number (an int), so it passes and compares wherever one does.
    assert isinstance(world, int) and world == 0 and hash(world) == hash(0) and repr(world) == "Team(0)"
    assert gshmem.Team(int(gshmem.TEAM_SHARED)) == gshmem.TEAM_SHARED
    evens = world.split_strided(0, 2, (npes + 1) // 2)
    if me % 2 == 0:
        assert evens is not None and evens.my_pe() == me // 2 and evens.n_pes() == (npes + 1) // 2
        assert evens.translate_pe(evens.my_pe(), world) == me
        assert world.translate_pe(me, evens) == me // 2
        x = gshmem.zeros(1, np.int64)
        y = gshmem.zeros(1, np.int64)
    else:
        assert evens is None
    # allocations are collective over the world: the odd PEs make theirs too
    if me % 2:
        x = gshmem.zeros(1, np.int64)
        y = gshmem.zeros(1, np.int64)
    x[0] = me + 1
    if evens is not None:
        gshmem.barrier(evens)
        gshmem.reduce(y, x, "sum", evens)
        assert y[0] == sum(pe + 1 for pe in range(0, npes, 2))
        gshmem.sync(evens)
        evens.destroy()
    gshmem.barrier_all()
    gshmem.free(x)
    gshmem.free(y)


def test_split_2d(me, npes):
    if npes < 2:
        pytest.skip("needs 2 PEs")
    row, col = gshmem.TEAM_WORLD.split_2d(2)
    assert row is not None and col is not None
    assert row.n_pes() == min(2, npes - (me // 2) * 2) and row.my_pe() == me % 2
    assert col.my_pe() == me // 2
    gshmem.barrier(col)
    row.destroy()
    col.destroy()
    gshmem.barrier_all()


def test_team_from_uniqueid(me, npes):
    box = gshmem.zeros(1, np.uint64)
    got = gshmem.zeros(1, np.uint64)
    if me == 0:
        box[0] = gshmem.Team.uniqueid()
    gshmem.barrier_all()
    gshmem.broadcast(got, box, 0)
    team = gshmem.Team.from_uniqueid(int(got[0]), npes, npes - 1 - me)  # members in reverse order
    assert team is not None and team.my_pe() == npes - 1 - me and team.n_pes() == npes
    gshmem.barrier(team)
    team.destroy()
    gshmem.barrier_all()
    gshmem.free(got)
    gshmem.free(box)
