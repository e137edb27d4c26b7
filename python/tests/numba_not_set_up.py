"""A numba-cuda kernel in a module that was not set up (the LTO-IR library linked by its path, so without
gshmem.numba's set-up callback) stops with gshmem's message, not an illegal address: the test expects the message
and a failed launch.
    python3 numba_not_set_up.py
Exits 77 ("skipped") without a GPU or numba-cuda."""

import os
import sys

try:
    import torch
    from numba import cuda
except ImportError as e:
    print(f"numba_not_set_up: skipped: {e}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("numba_not_set_up: no usable GPU: skipped")
    sys.exit(77)

import gshmem  # noqa: E402
import gshmem.devlib  # noqa: E402

try:
    library = gshmem.devlib.lto_path()
except gshmem.devlib.DeviceLibraryNotFound as e:
    print(f"numba_not_set_up: skipped: {e}")
    sys.exit(77)

gshmem.init()
try:
    my_pe = cuda.declare_device("nvshmem_my_pe", "int32()", link=[library], abi="c")
except TypeError as e:  # numba-cuda before C-ABI declarations
    print(f"numba_not_set_up: skipped: this numba-cuda declares no C functions: {e}")
    sys.exit(77)


@cuda.jit
def who(out):
    out[0] = my_pe()


out = cuda.to_device([-5])
try:
    who[1, 1](out)
    cuda.synchronize()
    print(f"numba_not_set_up: FAIL: the kernel ran and stored {out.copy_to_host()[0]}")
    sys.exit(1)
except Exception as e:  # numba-cuda's CudaAPIError: the launch failed
    print(f"numba_not_set_up: the launch failed as it should: {str(e).splitlines()[0]}", flush=True)
    os._exit(3)  # the CUDA context is dead after the trap: no teardown through it
