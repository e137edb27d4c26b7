// Kernels loaded through the driver API: a cubin built without -rdc (cumodule_kernel.cu, path in
// argv[1]) is loaded twice, once with cuLibraryLoadFromFile + nvshmemx_culibrary_init before the
// GPU is bound (the state is written when it is), once with cuModuleLoad + nvshmemx_cumodule_init
// after. Each time its kernel, launched with cuLaunchKernel, must see the right PE number and
// reach the peer with p, a fetching atomic and a block put; _finalize then forgets the module
// (a second _finalize is an error).
//
// The driver functions come from the CUDA runtime (cudaGetDriverEntryPointByVersion) rather than
// from linking libcuda: a program linked with libcuda does not even start where there is no
// driver, and this one must say "skipped" there.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test.cuh"

namespace {

struct Driver {
  decltype(&cuModuleLoad) ModuleLoad = nullptr;
  decltype(&cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&cuModuleUnload) ModuleUnload = nullptr;
  decltype(&cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&cuLibraryLoadFromFile) LibraryLoadFromFile = nullptr;
  decltype(&cuLibraryGetKernel) LibraryGetKernel = nullptr;
  decltype(&cuKernelGetFunction) KernelGetFunction = nullptr;
  decltype(&cuLibraryUnload) LibraryUnload = nullptr;
};
Driver drv;

void load_driver() {
  gputest::driver_entry(&drv.ModuleLoad, "cuModuleLoad");
  gputest::driver_entry(&drv.ModuleGetFunction, "cuModuleGetFunction");
  gputest::driver_entry(&drv.ModuleUnload, "cuModuleUnload");
  gputest::driver_entry(&drv.LaunchKernel, "cuLaunchKernel");
  gputest::driver_entry(&drv.LibraryLoadFromFile, "cuLibraryLoadFromFile");
  gputest::driver_entry(&drv.LibraryGetKernel, "cuLibraryGetKernel");
  gputest::driver_entry(&drv.KernelGetFunction, "cuKernelGetFunction");
  gputest::driver_entry(&drv.LibraryUnload, "cuLibraryUnload");
}

constexpr int kN = 256;  // ints of the block put
constexpr int kInts = 16 + kN;

struct Buffers {
  int* dest = nullptr;  // symmetric
  int* src = nullptr;   // device
  int* out = nullptr;   // device
};

// Runs the module's kernel on both PEs and checks what arrived here and what the kernel saw.
void run_kernel(CUfunction fn, const Buffers& b, const char* how, uint64_t round) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), from = (me + npes - 1) % npes;
  const int value = static_cast<int>(gputest::hash64(round) & 0xffffff);
  std::vector<int> src(kN);
  for (int i = 0; i < kN; ++i) src[i] = static_cast<int>(gputest::hash64(mp::seed_of(me, round, i)));
  CUDA_CHECK(cudaMemcpy(b.src, src.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(b.dest, 0, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(b.out, 0xff, 3 * sizeof(int)));
  gputest::sync_and_barrier();
  int* dest = b.dest;
  const int* s = b.src;
  int n = kN;
  int* out = b.out;
  int v = value;
  void* args[] = {&dest, &v, &s, &n, &out};
  CU_CHECK(drv.LaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  gputest::sync_or_die(0, 30, [&] { return std::string("the kernel of the cubin loaded with ") + how; });
  gputest::sync_and_barrier();
  int seen[3];
  CUDA_CHECK(cudaMemcpy(seen, b.out, sizeof seen, cudaMemcpyDeviceToHost));
  MP_CHECK(seen[0] == me && seen[1] == npes,
           "%s: in the module's kernel nvshmem_my_pe() = %d and nvshmem_n_pes() = %d, expected %d and %d (the "
           "module's device state was not written)",
           how, seen[0], seen[1], me, npes);
  MP_CHECK(seen[2] == 0, "%s: nvshmem_int_atomic_fetch_add on the next PE's zeroed counter returned %d", how, seen[2]);
  std::vector<int> got(kInts);
  CUDA_CHECK(cudaMemcpy(got.data(), b.dest, kInts * sizeof(int), cudaMemcpyDeviceToHost));
  MP_CHECK(got[from] == value + from, "%s: nvshmem_int_p from PE %d stored %d, expected %d", how, from, got[from],
           value + from);
  MP_CHECK(got[8] == 1, "%s: the counter that PE %d added 1 to is %d", how, from, got[8]);
  for (int i = 0; i < kN; ++i) {
    const int want = static_cast<int>(gputest::hash64(mp::seed_of(from, round, i)));
    MP_CHECK(got[16 + i] == want, "%s: nvshmemx_int_put_block from PE %d: int %d is %d, expected %d", how, from, i,
             got[16 + i], want);
  }
  gputest::sync_and_barrier();
  if (me == 0) std::printf("gpu_cumodule: %s: my_pe, p, atomic_fetch_add and put_block work in the kernel\n", how);
}

}  // namespace

int main(int argc, char** argv) {
  gputest::init_and_select_gpu();
  MP_CHECK(argc == 2, "usage: gpu_cumodule path/to/cumodule_kernel.cubin");
  const char* cubin = argv[1];
  CUDA_CHECK(cudaFree(nullptr));  // the primary context, current for the driver API calls below
  load_driver();

  // The library first, before anything binds the GPU: its state is written at binding.
  CUlibrary lib = nullptr;
  CU_CHECK(drv.LibraryLoadFromFile(&lib, cubin, nullptr, nullptr, 0, nullptr, nullptr, 0));
  int rc = nvshmemx_culibrary_init(lib);
  MP_CHECK(rc == 0, "nvshmemx_culibrary_init returned %d before the GPU was bound", rc);

  Buffers b;
  b.dest = static_cast<int*>(nvshmem_malloc(kInts * sizeof(int)));  // binds the GPU
  MP_CHECK(b.dest, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMalloc(&b.src, kN * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&b.out, 3 * sizeof(int)));

  CUkernel kernel = nullptr;
  CUfunction fn = nullptr;
  CU_CHECK(drv.LibraryGetKernel(&kernel, lib, "cumodule_put"));
  CU_CHECK(drv.KernelGetFunction(&fn, kernel));
  run_kernel(fn, b, "cuLibraryLoadFromFile + nvshmemx_culibrary_init", 1);
  rc = nvshmemx_culibrary_finalize(lib);
  MP_CHECK(rc == 0, "nvshmemx_culibrary_finalize returned %d", rc);
  rc = nvshmemx_culibrary_finalize(lib);
  MP_CHECK(rc != 0, "a second nvshmemx_culibrary_finalize of the same library returned 0");
  CU_CHECK(drv.LibraryUnload(lib));

  // The module after binding: its state is written at once.
  CUmodule mod = nullptr;
  CU_CHECK(drv.ModuleLoad(&mod, cubin));
  rc = nvshmemx_cumodule_init(mod);
  MP_CHECK(rc == 0, "nvshmemx_cumodule_init returned %d", rc);
  CU_CHECK(drv.ModuleGetFunction(&fn, mod, "cumodule_put"));
  run_kernel(fn, b, "cuModuleLoad + nvshmemx_cumodule_init", 2);
  run_kernel(fn, b, "cuModuleLoad + nvshmemx_cumodule_init, again", 3);
  rc = nvshmemx_cumodule_finalize(mod);
  MP_CHECK(rc == 0, "nvshmemx_cumodule_finalize returned %d", rc);
  rc = nvshmemx_cumodule_finalize(mod);
  MP_CHECK(rc != 0, "a second nvshmemx_cumodule_finalize of the same module returned 0");
  CU_CHECK(drv.ModuleUnload(mod));

  gputest::sync_and_barrier();
  CUDA_CHECK(cudaFree(b.src));
  CUDA_CHECK(cudaFree(b.out));
  nvshmem_free(b.dest);
  if (nvshmem_my_pe() == 0) std::printf("gpu_cumodule: every check passed on 2 PEs\n");
  nvshmem_finalize();
  return 0;
}
