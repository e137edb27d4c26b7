"""A Triton kernel in a module that was not set up (gshmem.triton's load hook taken out before it loads) stops with
gshmem's message, not an illegal address: the test expects the message and a failed launch.
    python3 triton_not_set_up.py
Exits 77 ("skipped") without a GPU or Triton."""

import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as e:
    print(f"triton_not_set_up: skipped: {e}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("triton_not_set_up: no usable GPU: skipped")
    sys.exit(77)

import gshmem  # noqa: E402
import gshmem.devlib  # noqa: E402

try:
    gshmem.devlib.files()
except gshmem.devlib.DeviceLibraryNotFound as e:  # built without clang: GSHMEM_DEVICE_LIB_DIR names a copy
    print(f"triton_not_set_up: skipped: {e}")
    sys.exit(77)
import gshmem.triton as nvshmem  # noqa: E402

import os  # noqa: E402

gshmem.init()
if not hasattr(getattr(getattr(triton, "knobs", None), "runtime", None), "kernel_load_end_hook"):
    print("triton_not_set_up: skipped (this Triton has no kernel_load_end_hook to take the set-up out of)")
    sys.exit(77)
triton.knobs.runtime.kernel_load_end_hook.remove(nvshmem._on_load)


@nvshmem.jit
def who(out):
    tl.store(out, nvshmem.my_pe())


out = torch.full((1,), -5, dtype=torch.int32, device="cuda")
try:
    who[(1,)](out)
    torch.cuda.synchronize()
    print(f"triton_not_set_up: FAIL: the kernel ran and stored {out.item()}")
    sys.exit(1)
except RuntimeError as e:
    print(f"triton_not_set_up: the launch failed as it should: {str(e).splitlines()[0]}", flush=True)
    os._exit(3)  # the CUDA context is dead after the trap: no teardown through it
