"""init and finalize through the context manager; calls before init and after finalize; finalize twice; init
again after finalize, three sessions in one process, each with its own heap (an array of the last session is
refused). Run under a launcher (gshmrun -n 2 python3 lifecycle.py) or torchrun (a new unique ID each session);
prints one line per PE at the end."""

import warnings

import numpy as np

import gshmem


def expect_usage_error(fn, text):
    try:
        fn()
    except gshmem.UsageError as e:
        assert text in str(e), f"expected {text!r} in {e}"
        return
    raise AssertionError(f"no UsageError for {text!r}")


def main():
    assert not gshmem.initialized()
    expect_usage_error(lambda: gshmem.zeros(4, np.int32), "gshmem is not initialised: call gshmem.init() first")
    expect_usage_error(lambda: gshmem.barrier_all(), "gshmem is not initialised")
    sessions = 3
    old = None
    for session in range(sessions):
        with gshmem.init():
            me, n = gshmem.my_pe(), gshmem.n_pes()
            if old is not None:
                # The last session's array: its heap is gone, whatever this session's heap is.
                expect_usage_error(lambda: gshmem.put(old, np.zeros(2, np.int32), 0), "belongs to an earlier session")
            box = gshmem.zeros(4, np.int64)
            gshmem.put(box, np.full(4, session * 100 + me, np.int64), (me + 1) % n)
            gshmem.barrier_all()
            assert (box == session * 100 + (me - 1) % n).all(), box
            gshmem.free(box)
            leftover = gshmem.zeros(2, np.int32)  # not freed: finalize releases the heap, and warns
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                gshmem.finalize()
            assert any("1 symmetric array(s) were not freed" in str(w.message) for w in caught), caught
        assert not gshmem.initialized()
        expect_usage_error(lambda: gshmem.put(leftover, np.zeros(2, np.int32), 0), "gshmem is not initialised")
        gshmem.finalize()  # idempotent
        old = leftover
    print(f"lifecycle: PE {me} of {n}: {sessions} sessions ok", flush=True)


if __name__ == "__main__":
    main()
