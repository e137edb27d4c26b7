// nvshmemx_buffer_register_symmetric ("bring your own buffer"): each PE makes a buffer with
// cuMemCreate (with the POSIX file-descriptor handle type, as NVSHMEM's user-buffer example does),
// maps it, and registers it; the returned alias is symmetric memory for every operation.
//
// Checked, on any number of PEs (n) on one node, PEs possibly sharing a GPU:
//   - the alias lies at the same offset of the symmetric space on every PE, differs from the buffer,
//     and nvshmem_ptr reaches the next PE's copy;
//   - a kernel's nvshmem_int_p and nvshmemx_int_put_block into the next PE's alias land in that
//     PE's buffer (read through its own pointer), a kernel's nvshmem_int_g reads the previous PE's
//     buffer, and nvshmem_int_atomic_add from every PE sums up on PE 0;
//   - host nvshmem_putmem into the alias lands in the buffer; what a PE writes through its own
//     pointer, nvshmem_getmem of its alias reads from another PE;
//   - nvshmem_int_fcollect and nvshmem_int_broadcast work with source and dest in registered memory;
//   - a second buffer goes below the first; the first is unregistered and registered again, and
//     its new alias reaches the same memory; after unregistering, the program's own pointer still
//     works (copies and a kernel).
// "errors" (argv[1]) instead checks the refusals, each with its message (see the expect test):
// cudaMalloc memory, flags 1, a pointer inside an allocation, a size that is not a multiple of the
// granularity or exceeds the allocation, size 0, an allocation without the descriptor handle type,
// sizes that differ between PEs, heap memory, no room left (run with NVSHMEM_SYMMETRIC_SIZE=64M
// NVSHMEM_MAX_MEMORY_PER_GPU=128M and a small team region), a heap that cannot grow past a registered buffer until it
// is unregistered, unregistering what was not registered or with another size, and nvshmem_free of an alias; the
// library goes on working after each.
//
// The driver functions come from the CUDA runtime (cudaGetDriverEntryPointByVersion), so that the
// program starts, and says "skipped", where there is no driver.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test.cuh"

namespace {

struct Driver {
  decltype(&cuMemGetAllocationGranularity) MemGetAllocationGranularity = nullptr;
  decltype(&cuMemCreate) MemCreate = nullptr;
  decltype(&cuMemRelease) MemRelease = nullptr;
  decltype(&cuMemAddressReserve) MemAddressReserve = nullptr;
  decltype(&cuMemAddressFree) MemAddressFree = nullptr;
  decltype(&cuMemMap) MemMap = nullptr;
  decltype(&cuMemUnmap) MemUnmap = nullptr;
  decltype(&cuMemSetAccess) MemSetAccess = nullptr;
};
Driver drv;

void load_driver() {
  gputest::driver_entry(&drv.MemGetAllocationGranularity, "cuMemGetAllocationGranularity");
  gputest::driver_entry(&drv.MemCreate, "cuMemCreate");
  gputest::driver_entry(&drv.MemRelease, "cuMemRelease");
  gputest::driver_entry(&drv.MemAddressReserve, "cuMemAddressReserve");
  gputest::driver_entry(&drv.MemAddressFree, "cuMemAddressFree");
  gputest::driver_entry(&drv.MemMap, "cuMemMap");
  gputest::driver_entry(&drv.MemUnmap, "cuMemUnmap");
  gputest::driver_entry(&drv.MemSetAccess, "cuMemSetAccess");
}

using gputest::hash64;

constexpr int kN = 1024;  // ints per data block
constexpr int kThreads = 256;
// Blocks of the first buffer, in ints: kernel puts [0, 2 kN), host puts [2 kN, 3 kN), writes through
// the program's pointer [3 kN, 4 kN), the atomic counter, the fcollect source and dest, the broadcast
// source and dest.
constexpr int kKernelPuts = 0;
constexpr int kHostPuts = 2 * kN;
constexpr int kOwnWrites = 3 * kN;
constexpr int kCounter = 4 * kN;
constexpr int kCollSrc = 4 * kN + 64;
constexpr int kCollDest = 5 * kN + 64;  // n_pes * kN ints
constexpr int kMaxPes = 64;
constexpr int kBcastSrc = kCollDest + kMaxPes * kN;
constexpr int kBcastDest = kBcastSrc + kN;
constexpr int kInts = kBcastDest + kN;

__host__ __device__ inline int value(int pe, int what, int i) {
  return static_cast<int>(hash64((static_cast<uint64_t>(pe) << 40) ^ (static_cast<uint64_t>(what) << 24) ^ i));
}

// A buffer of the program's own: cuMemCreate'd, mapped at a reservation of its own, readable and
// writable by this PE's GPU.
struct OwnBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  CUmemGenericAllocationHandle handle = 0;
  int* ints() const { return reinterpret_cast<int*>(ptr); }
  char* chars() const { return reinterpret_cast<char*>(ptr); }
};

CUmemAllocationProp properties(bool fd_handle) {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = fd_handle ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
  return prop;
}

size_t granularity() {
  const CUmemAllocationProp prop = properties(true);
  size_t g = 0;
  CU_CHECK(drv.MemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  return g;
}

OwnBuffer make_buffer(size_t bytes, bool fd_handle = true) {
  OwnBuffer b;
  b.bytes = bytes;
  const CUmemAllocationProp prop = properties(fd_handle);
  CU_CHECK(drv.MemCreate(&b.handle, bytes, &prop, 0));
  CU_CHECK(drv.MemAddressReserve(&b.ptr, bytes, 0, 0, 0));
  CU_CHECK(drv.MemMap(b.ptr, bytes, 0, b.handle, 0));
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(drv.MemSetAccess(b.ptr, bytes, &access, 1));
  CUDA_CHECK(cudaMemset(b.chars(), 0, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

void free_buffer(OwnBuffer& b) {
  CU_CHECK(drv.MemUnmap(b.ptr, b.bytes));
  CU_CHECK(drv.MemRelease(b.handle));
  CU_CHECK(drv.MemAddressFree(b.ptr, b.bytes));
  b = OwnBuffer();
}

// The alias must lie at the same offset of the symmetric space on every PE (as nvshmem_malloc's
// blocks do): its distance from a symmetric block is the same everywhere.
void check_same_everywhere(void* alias, const char* what) {
  const int n = nvshmem_n_pes();
  auto* all = static_cast<int64_t*>(nvshmem_malloc(sizeof(int64_t) * n));
  MP_CHECK(all, "nvshmem_malloc");
  const int64_t mine = static_cast<char*>(alias) - reinterpret_cast<char*>(all);
  for (int pe = 0; pe < n; ++pe) nvshmem_putmem(all + nvshmem_my_pe(), &mine, sizeof mine, pe);
  nvshmem_barrier_all();
  std::vector<int64_t> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), all, sizeof(int64_t) * n, cudaMemcpyDeviceToHost));
  for (int pe = 0; pe < n; ++pe) {
    MP_CHECK(got[pe] == mine, "%s: PE %d has its alias %lld bytes from a symmetric block, this PE %lld", what, pe,
             static_cast<long long>(got[pe]), static_cast<long long>(mine));
  }
  nvshmem_barrier_all();
  nvshmem_free(all);
}

// Thread i puts value(me, 0, i) with p, then the block puts `src` (value(me, 1, i)) after it, into
// the next PE's alias; then reads the previous PE's first block with g into `got`, and adds
// me + 1 to PE 0's counter.
__global__ void rma_kernel(int* alias, const int* src, int* got, int me, int next, int prev) {
  for (int i = threadIdx.x; i < kN; i += blockDim.x) nvshmem_int_p(alias + kKernelPuts + i, value(me, 0, i), next);
  nvshmemx_int_put_block(alias + kKernelPuts + kN, src, kN, next);
  if (threadIdx.x == 0) {
    nvshmem_quiet();
    nvshmem_int_atomic_add(alias + kCounter, me + 1, 0);
  }
  // The previous PE's own-writes block, written through its pointer before the launch.
  for (int i = threadIdx.x; i < kN; i += blockDim.x) got[i] = nvshmem_int_g(alias + kOwnWrites + i, prev);
}

__global__ void fill_kernel(int* dst, int pe, int what) {
  for (int i = threadIdx.x; i < kN; i += blockDim.x) dst[i] = value(pe, what, i);
}

void expect_block(const int* dev, int pe, int what, const char* how) {
  std::vector<int> h(kN);
  CUDA_CHECK(cudaMemcpy(h.data(), dev, sizeof(int) * kN, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    MP_CHECK(h[i] == value(pe, what, i), "%s: int %d is %d, expected %d (from PE %d)", how, i, h[i], value(pe, what, i),
             pe);
  }
}

void* register_ok(const OwnBuffer& b, size_t size) {
  void* alias = nvshmemx_buffer_register_symmetric(b.chars(), size, 0);
  MP_CHECK(alias != nullptr, "nvshmemx_buffer_register_symmetric(%p, %zu, 0) returned NULL", b.chars(), size);
  MP_CHECK(alias != b.chars(), "the alias is the buffer itself");
  return alias;
}

void run_all() {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n, prev2 = (me + 2 * n - 2) % n;
  MP_CHECK(n <= kMaxPes, "at most %d PEs", kMaxPes);
  const size_t g = granularity();
  const size_t bytes_a = (sizeof(int) * kInts + g - 1) / g * g + g;  // one granule more than needed
  OwnBuffer a = make_buffer(bytes_a);
  OwnBuffer b = make_buffer(g);

  // What this PE writes through its own pointer; peers read it through the alias.
  fill_kernel<<<1, kThreads>>>(a.ints() + kOwnWrites, me, 2);
  fill_kernel<<<1, kThreads>>>(a.ints() + kCollSrc, me, 3);
  fill_kernel<<<1, kThreads>>>(a.ints() + kBcastSrc, me, 4);
  KERNEL_CHECK();
  gputest::sync_and_barrier();

  int* alias = static_cast<int*>(register_ok(a, bytes_a));
  check_same_everywhere(alias, "the first buffer");
  MP_CHECK(nvshmem_ptr(alias, me) == alias, "nvshmem_ptr(alias, my PE) must be the alias");
  MP_CHECK(nvshmem_ptr(alias, next) != nullptr, "nvshmem_ptr of the alias for PE %d is NULL", next);

  // Kernel RMA and atomics through the alias, seen through the program's pointer.
  int *src = nullptr, *got = nullptr;
  CUDA_CHECK(cudaMalloc(&src, sizeof(int) * kN));
  CUDA_CHECK(cudaMalloc(&got, sizeof(int) * kN));
  fill_kernel<<<1, kThreads>>>(src, me, 1);
  KERNEL_CHECK();
  rma_kernel<<<1, kThreads>>>(alias, src, got, me, next, prev);
  KERNEL_CHECK();
  gputest::sync_and_barrier();
  expect_block(a.ints() + kKernelPuts, prev, 0, "nvshmem_int_p into the alias, read through the buffer");
  expect_block(a.ints() + kKernelPuts + kN, prev, 1, "nvshmemx_int_put_block into the alias, read through the buffer");
  expect_block(got, prev, 2, "nvshmem_int_g of the previous PE's alias (written through its buffer)");
  if (me == 0) {
    int counter = 0;
    CUDA_CHECK(cudaMemcpy(&counter, a.ints() + kCounter, sizeof counter, cudaMemcpyDeviceToHost));
    MP_CHECK(counter == n * (n + 1) / 2, "the counter is %d after nvshmem_int_atomic_add from %d PEs, expected %d",
             counter, n, n * (n + 1) / 2);
  }

  // Host RMA.
  std::vector<int> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = value(me, 5, i);
  nvshmem_putmem(alias + kHostPuts, host.data(), sizeof(int) * kN, next);
  nvshmem_barrier_all();
  expect_block(a.ints() + kHostPuts, prev, 5, "host nvshmem_putmem into the alias, read through the buffer");
  nvshmem_getmem(host.data(), alias + kOwnWrites, sizeof(int) * kN, prev);
  for (int i = 0; i < kN; ++i) {
    MP_CHECK(host[i] == value(prev, 2, i), "host nvshmem_getmem of the alias: int %d is %d, expected %d", i, host[i],
             value(prev, 2, i));
  }

  // Collectives with source and dest in registered memory.
  int rc = nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, alias + kCollDest, alias + kCollSrc, kN);
  MP_CHECK(rc == 0, "nvshmem_int_fcollect returned %d", rc);
  for (int pe = 0; pe < n; ++pe) expect_block(a.ints() + kCollDest + pe * kN, pe, 3, "nvshmem_int_fcollect");
  rc = nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, alias + kBcastDest, alias + kBcastSrc, kN, n - 1);
  MP_CHECK(rc == 0, "nvshmem_int_broadcast returned %d", rc);
  expect_block(a.ints() + kBcastDest, n - 1, 4, "nvshmem_int_broadcast");
  nvshmem_barrier_all();

  // A second buffer goes below the first.
  char* alias_b = static_cast<char*>(register_ok(b, g));
  check_same_everywhere(alias_b, "the second buffer");
  MP_CHECK(alias_b + g <= reinterpret_cast<char*>(alias), "the second alias %p is not below the first %p",
           static_cast<void*>(alias_b), static_cast<void*>(alias));
  for (int i = 0; i < kN; ++i) host[i] = value(me, 6, i);
  nvshmem_putmem(alias_b + g - sizeof(int) * kN, host.data(), sizeof(int) * kN, next);  // its last bytes
  nvshmem_barrier_all();
  expect_block(reinterpret_cast<int*>(b.chars() + g) - kN, prev, 6, "nvshmem_putmem into the second alias");

  // The first one goes and comes back: its new alias reaches the same memory on every PE.
  rc = nvshmemx_buffer_unregister_symmetric(alias, bytes_a);
  MP_CHECK(rc == 0, "nvshmemx_buffer_unregister_symmetric(first) returned %d", rc);
  MP_CHECK(nvshmem_ptr(alias, next) == nullptr, "nvshmem_ptr of an unregistered alias must be NULL");
  int* again = static_cast<int*>(register_ok(a, bytes_a));
  check_same_everywhere(again, "the first buffer registered again");
  nvshmem_getmem(host.data(), again + kKernelPuts, sizeof(int) * kN, prev);
  for (int i = 0; i < kN; ++i) {
    MP_CHECK(host[i] == value(prev2, 0, i), "the re-registered alias of PE %d: int %d is %d, expected %d", prev, i,
             host[i], value(prev2, 0, i));
  }
  nvshmem_barrier_all();

  rc = nvshmemx_buffer_unregister_symmetric(alias_b, g);
  MP_CHECK(rc == 0, "nvshmemx_buffer_unregister_symmetric(second) returned %d", rc);
  rc = nvshmemx_buffer_unregister_symmetric(again, bytes_a);
  MP_CHECK(rc == 0, "nvshmemx_buffer_unregister_symmetric(first, again) returned %d", rc);

  // The program's own pointer still works.
  fill_kernel<<<1, kThreads>>>(a.ints(), me, 7);
  KERNEL_CHECK();
  expect_block(a.ints(), me, 7, "a kernel writing through the buffer after unregistering");
  for (int i = 0; i < kN; ++i) host[i] = value(me, 8, i);
  CUDA_CHECK(cudaMemcpy(b.chars(), host.data(), sizeof(int) * kN, cudaMemcpyHostToDevice));
  expect_block(b.ints(), me, 8, "a copy through the second buffer after unregistering");

  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(got));
  nvshmem_barrier_all();
  free_buffer(a);
  free_buffer(b);
  if (me == 0) {
    std::printf(
        "gpu_byob: %d PEs: kernel p/put/g/atomic, host putmem/getmem, fcollect and broadcast on registered buffers; "
        "register, unregister and register again\n",
        n);
  }
}

void run_errors() {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const size_t g = granularity();
  OwnBuffer a = make_buffer(2 * g);
  auto refused = [](void* p, size_t size, int flags, const char* what) {
    void* alias = nvshmemx_buffer_register_symmetric(p, size, flags);
    MP_CHECK(alias == nullptr, "%s: registration must fail, not return %p", what, alias);
  };
  void* dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, 2 * g));
  refused(dev, 2 * g, 0, "cudaMalloc memory");
  refused(a.chars(), 2 * g, 1, "flags 1");
  refused(a.chars() + g, g, 0, "a pointer inside the allocation");
  refused(a.chars(), g / 2, 0, "half a granule");
  refused(a.chars(), 4 * g, 0, "more than the allocation");
  refused(a.chars(), 0, 0, "size 0");
  refused(a.chars(), me == 0 ? g : 2 * g, 0, "sizes that differ between PEs");
  OwnBuffer plain = make_buffer(g, false);
  refused(plain.chars(), g, 0, "an allocation without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
  void* heap = nvshmem_malloc(g);
  MP_CHECK(heap, "nvshmem_malloc");
  refused(heap, g, 0, "heap memory");

  // Run with a 64 MiB heap (about 62 MiB of it free) in a 128 MiB window: 96 MiB do not fit above
  // it, 32 MiB do, and then 100 MiB, which need the heap to grow past 96 MiB, fit only once that
  // buffer is unregistered.
  OwnBuffer big = make_buffer(96u << 20);
  refused(big.chars(), big.bytes, 0, "96 MiB above a 64 MiB heap in a 128 MiB window");
  OwnBuffer top = make_buffer(32u << 20);
  void* alias = nvshmemx_buffer_register_symmetric(top.chars(), top.bytes, 0);
  MP_CHECK(alias, "32 MiB fit above the heap");
  void* grown = nvshmem_malloc(100u << 20);
  MP_CHECK(grown == nullptr, "the heap must not grow into a registered buffer");

  // Unregistering what was not registered, or with another size.
  MP_CHECK(nvshmemx_buffer_unregister_symmetric(top.chars(), top.bytes) != 0, "the buffer itself is no alias");
  MP_CHECK(nvshmemx_buffer_unregister_symmetric(alias, 2 * g) != 0, "unregistering with another size must fail");
  nvshmem_free(alias);  // an error: nothing freed
  MP_CHECK(nvshmemx_buffer_unregister_symmetric(alias, top.bytes) == 0, "unregistering the buffer");
  MP_CHECK(nvshmemx_buffer_unregister_symmetric(alias, top.bytes) != 0, "unregistering twice must fail");
  grown = nvshmem_malloc(100u << 20);
  MP_CHECK(grown != nullptr, "the heap grows once the buffer is unregistered");

  // The library still works.
  int* word = static_cast<int*>(heap);
  nvshmem_int_p(word, me + 100, (me + 1) % n);
  nvshmem_barrier_all();
  MP_CHECK(nvshmem_int_g(word, me) == (me + n - 1) % n + 100, "a put after the errors");
  nvshmem_barrier_all();
  nvshmem_free(grown);
  nvshmem_free(heap);
  CUDA_CHECK(cudaFree(dev));
  free_buffer(a);
  free_buffer(plain);
  free_buffer(big);
  free_buffer(top);
  std::printf("PE %d: errors survived\n", me);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string sub = argc > 1 ? argv[1] : "all";
  gputest::init_and_select_gpu();
  CUDA_CHECK(cudaFree(nullptr));  // the primary context, current for the driver API calls
  load_driver();
  nvshmem_barrier_all();  // binds the GPU
  if (sub == "errors") {
    run_errors();
  } else {
    run_all();
  }
  nvshmem_finalize();
  return 0;
}
