// Kernels the host library launches itself (host barrier, barrier_all_on_stream). Compiled to a
// fatbin at build time and embedded in libgshmem_host, then loaded through the driver API at GPU
// binding, so the library links no CUDA runtime and loads on machines without a driver. The
// module's copy of the device state is found by name (gshmemi_device_state_d).
#include "gshmem/device/device.cuh"

// One warp: the peers are signalled and waited for in parallel.
extern "C" __global__ void gshmemi_barrier_all_kernel() { gshmem::dev::barrier_all<gshmem::Scope::kWarp>(); }
