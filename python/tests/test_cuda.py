"""The package on the GPU backend: torch CUDA tensors and cupy arrays on the symmetric heap, blocking calls,
calls on streams, a captured graph, mapped peer views and the GPU's errors. Every test runs on every PE of
the job in the same order (collective). Without a GPU the module reports skipped."""

import pytest

import gshmem

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the GPU tests are skipped", allow_module_level=True)


@pytest.fixture(scope="module", autouse=True)
def on_gpu(session):
    if gshmem.cuda_device() < 0:
        pytest.skip("gshmem runs on the CPU backend: the GPU tests are skipped", allow_module_level=True)
    torch.cuda.set_device(gshmem.cuda_device())


def test_arrays_are_cuda_tensors_on_the_bound_device(me, npes):
    a = gshmem.zeros((3, 5), torch.float32)
    assert a.is_cuda and a.device.index == gshmem.cuda_device() and a.shape == (3, 5)
    assert torch.count_nonzero(a).item() == 0
    b = gshmem.full(7, me + 2, "int64")  # a dtype by name on GPUs: torch
    assert b.is_cuda and torch.equal(b.cpu(), torch.full((7,), me + 2, dtype=torch.int64))
    assert gshmem.is_symmetric(a) and not gshmem.is_symmetric(torch.zeros(3, device="cuda"))
    gshmem.barrier_all()
    gshmem.free(b)
    gshmem.free(a)


def test_blocking_put_reads_what_the_default_stream_wrote(me, npes):
    # The source is filled by a kernel on torch's stream; the blocking put must see the filled values.
    n = 1 << 20
    box = gshmem.zeros(n, torch.int32)
    src = torch.empty(n, dtype=torch.int32, device="cuda")
    src.fill_(me + 1)
    src.mul_(3)
    gshmem.put(box, src, (me + 1) % npes)
    gshmem.barrier_all()
    assert torch.equal(box, torch.full((n,), ((me - 1) % npes + 1) * 3, dtype=torch.int32, device="cuda"))
    back = torch.zeros(n, dtype=torch.int32, device="cuda")
    gshmem.get(back, box, (me + 1) % npes)
    assert torch.equal(back, torch.full((n,), (me + 1) * 3, dtype=torch.int32, device="cuda"))
    gshmem.barrier_all()
    gshmem.free(box)


def test_p_g_and_host_sources(me, npes):
    box = gshmem.zeros(4, torch.float64)
    gshmem.p(box, 1.5 * me, (me + 1) % npes, index=2)
    gshmem.barrier_all()
    left = (me - 1) % npes
    assert box[2].item() == 1.5 * left and box[0].item() == 0.0
    assert gshmem.g(box, (me + 1) % npes, index=2) == 1.5 * me
    gshmem.barrier_all()  # the left neighbour's g has read box[2] before the put below overwrites it
    gshmem.put(box, torch.arange(4, dtype=torch.float64), me)  # a CPU tensor into the GPU heap
    assert torch.equal(box.cpu(), torch.arange(4, dtype=torch.float64))
    gshmem.barrier_all()
    gshmem.free(box)


def test_put_signal_and_wait_on_a_stream(me, npes):
    s = torch.cuda.Stream()
    n = 4096
    data = gshmem.zeros(n, torch.float32)
    sig = gshmem.zeros(1, torch.int64)
    src = torch.full((n,), float(me + 10), device="cuda")
    torch.cuda.synchronize()
    gshmem.barrier_all()
    gshmem.put_signal(data, src, sig, 1, (me + 1) % npes, op="add", stream=s)
    gshmem.signal_wait_until(sig, "ge", 1, stream=s)
    with torch.cuda.stream(s):
        total = data.sum()  # ordered after the wait on s
    s.synchronize()
    assert total.item() == float((me - 1) % npes + 10) * n
    assert gshmem.signal_fetch(sig) == 1
    gshmem.barrier(stream=s)
    s.synchronize()
    gshmem.free(sig)
    gshmem.free(data)


def test_atomics_on_gpu_memory(me, npes):
    counter = gshmem.zeros(2, torch.int64)
    gshmem.barrier_all()
    for _ in range(5):
        gshmem.atomic_add(counter, 1, 0)
    old = gshmem.atomic_fetch_add(counter, 10, 0, index=1)
    assert old % 10 == 0 and 0 <= old < 10 * npes
    gshmem.barrier_all()
    if me == 0:
        assert counter.tolist() == [5 * npes, 10 * npes]
    assert gshmem.atomic_fetch(counter, 0) == 5 * npes
    gshmem.barrier_all()  # every PE has read the count before one of them swaps it
    assert gshmem.atomic_compare_swap(counter, 5 * npes, -1, 0) in (5 * npes, -1)
    gshmem.barrier_all()
    assert gshmem.atomic_fetch(counter, 0) == -1
    gshmem.barrier_all()
    gshmem.free(counter)


@pytest.mark.parametrize("on_stream", [False, True])
def test_collectives_on_cuda_tensors(me, npes, on_stream):
    s = torch.cuda.Stream() if on_stream else None
    kw = {"stream": s} if on_stream else {}
    # Every array first: an allocation is a collective of the world team on the host, which must not run while
    # the stream's collectives of that team are pending.
    src = gshmem.full(1000, me + 1, torch.float32)
    dest = gshmem.zeros(1000, torch.float32)
    gathered = gshmem.zeros(npes * 3, torch.int32)
    mine = gshmem.full(3, me, torch.int32)
    blocks = gshmem.full(npes * 2, me, torch.int64)
    swapped = gshmem.zeros(npes * 2, torch.int64)
    root_data = gshmem.full(5, 100 + me, torch.bfloat16)
    bcast = gshmem.zeros(5, torch.bfloat16)
    gshmem.reduce(dest, src, "sum", **kw)
    gshmem.fcollect(gathered, mine, **kw)
    gshmem.alltoall(swapped, blocks, **kw)
    gshmem.broadcast(bcast, root_data, root=npes - 1, **kw)
    if on_stream:
        s.synchronize()
    assert torch.equal(dest, torch.full((1000,), npes * (npes + 1) / 2, device="cuda"))
    assert gathered.cpu().tolist() == [pe for pe in range(npes) for _ in range(3)]
    assert swapped.cpu().tolist() == [pe for pe in range(npes) for _ in range(2)]
    assert torch.equal(bcast.cpu(), torch.full((5,), 100 + npes - 1, dtype=torch.bfloat16))
    gshmem.barrier_all()
    for a in (src, dest, gathered, mine, blocks, swapped, root_data, bcast):
        gshmem.free(a)


def test_reduce_captured_in_a_cuda_graph(me, npes):
    src = gshmem.zeros(256, torch.float32)
    dest = gshmem.zeros(256, torch.float32)
    s = torch.cuda.Stream()
    torch.cuda.synchronize()
    gshmem.barrier_all()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=s):
        gshmem.reduce(dest, src, "max", stream=s)
    for step in range(3):
        src.fill_(float(me * 10 + step))
        torch.cuda.synchronize()
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(dest, torch.full((256,), float((npes - 1) * 10 + step), device="cuda"))
        gshmem.barrier_all()
    del graph
    gshmem.free(dest)
    gshmem.free(src)


def test_peer_views_reach_the_other_pe(me, npes):
    box = gshmem.zeros(8, torch.int32)
    right = (me + 1) % npes
    view = gshmem.peer_array(box, right)
    if view is None:
        pytest.skip(f"PE {right}'s heap is not mapped here (another node, or P2P disabled)")
    assert view.is_cuda and view.shape == box.shape
    view.fill_(me + 7)  # a store straight into the right neighbour's memory
    torch.cuda.synchronize()
    gshmem.barrier_all()
    assert torch.equal(box.cpu(), torch.full((8,), (me - 1) % npes + 7, dtype=torch.int32))
    gshmem.barrier_all()
    gshmem.free(box)


def test_cupy_arrays(me, npes):
    cupy = pytest.importorskip("cupy")
    # cupy's dtypes are numpy's: like= picks the library (by default a GPU array is a torch tensor)
    a = gshmem.zeros(16, cupy.float64, like="cupy")
    assert isinstance(a, cupy.ndarray) and a.dtype == cupy.float64
    gshmem.put(a, cupy.full(16, me + 0.25), (me + 1) % npes)
    gshmem.barrier_all()
    assert bool((a == (me - 1) % npes + 0.25).all())
    stream = cupy.cuda.Stream(non_blocking=True)
    total = gshmem.zeros(16, "float64", like="cupy")
    gshmem.reduce(total, a, "sum", stream=stream)
    stream.synchronize()
    assert bool((total == sum(pe + 0.25 for pe in range(npes))).all())
    gshmem.barrier_all()
    gshmem.free(total)
    gshmem.free(a)


def test_errors_on_gpu_arrays(me, npes):
    box = gshmem.zeros(4, torch.float32)
    with pytest.raises(gshmem.UsageError, match="float32 but the src array is float64"):
        gshmem.put(box, torch.zeros(4, dtype=torch.float64, device="cuda"), 0)
    with pytest.raises(gshmem.UsageError, match="nbi=True and a stream"):
        gshmem.put(box, torch.zeros(4, device="cuda"), 0, nbi=True, stream=torch.cuda.current_stream())
    with pytest.raises(gshmem.UsageError, match="not a CUDA stream"):
        gshmem.put(box, torch.zeros(4, device="cuda"), 0, stream="default")

    class OtherDevicesStream:  # what torch.cuda.Stream says of a stream of another GPU
        cuda_stream = 0
        device_index = gshmem.cuda_device() + 1

    with pytest.raises(gshmem.UsageError, match=f"is on CUDA device {gshmem.cuda_device() + 1}, but this PE's heap"):
        gshmem.barrier_all(stream=OtherDevicesStream())
    with pytest.raises(gshmem.UsageError):
        gshmem.put(torch.zeros(4, device="cuda"), torch.zeros(4, device="cuda"), 0)  # dest not symmetric
    gshmem.barrier_all()
    gshmem.free(box)
    with pytest.raises(gshmem.UsageError):
        gshmem.put(box, torch.zeros(4, device="cuda"), 0)  # freed
