// A kernel for gpu_cumodule: built alone into a cubin (without -rdc), loaded through the driver API
// (cuModuleLoad, cuLibraryLoadFromFile) and made able to use the device API by
// nvshmemx_cumodule_init / nvshmemx_culibrary_init.
#include <nvshmem.h>
#include <nvshmemx.h>

// dest (symmetric ints): [pe] a p from PE pe, [8] a counter, [16 .. 16 + n) a block put.
// out (device ints): [0] nvshmem_my_pe(), [1] nvshmem_n_pes(), [2] what fetch_add returned.
extern "C" __global__ void cumodule_put(int* dest, int value, const int* src, int n, int* out) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes;
  if (threadIdx.x == 0) {
    out[0] = me;
    out[1] = npes;
    nvshmem_int_p(dest + me, value + me, next);
    out[2] = nvshmem_int_atomic_fetch_add(dest + 8, 1, next);
  }
  nvshmemx_int_put_block(dest + 16, src, static_cast<size_t>(n), next);
  nvshmem_quiet();
}
