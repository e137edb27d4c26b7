// The device bandwidth perftests of single elements, written once: shmem_p_bw (nvshmem_<T>_p),
// shmem_g_bw (nvshmem_<T>_g) and shmem_st_bw (plain stores through the pointer nvshmem_ptr gives).
//
// A kernel of -c CTAs x -t threads on PE 0 loops -n times; in each iteration the message (size / sizeof
// T elements) is covered element by element, thread k of the grid taking elements k, k + c*t, ...:
//  - p:  nvshmem_<T>_p of each element into PE 1's symmetric buffer; after the last iteration each
//        CTA synchronises and one of its threads calls nvshmem_quiet();
//  - g:  each element is read with nvshmem_<T>_g from PE 1's symmetric buffer into a local buffer;
//  - st: each element is stored into PE 1's buffer through nvshmem_ptr(buffer, 1); without such a
//        pointer (PE 1 not reachable by load/store) the test ends with a message and status 1. The
//        stores are complete when the kernel is.
// T follows the size of -d: 1 byte uint8, 2 bytes uint16 (fp16, bf16), 4 bytes uint32 (int, float,
// ...), 8 bytes double (long, double, ...). Bandwidth (GB/s, decimal) = size * iters / (ms * 1e6),
// timed with CUDA events around the launch after an untimed launch of -w iterations;
// --report_msgrate adds a table of the message rate, elements * iters / (ms * 1e3) in MMPS.
// Output: basic table "<program>", scope "thread", "BW (GB/sec)" (and "msgrate (MMPS)"). The data of
// the largest size is checked.
#pragma once

#include "device_common.cuh"

namespace {

enum class ElemOp { kP, kG, kSt };

// The typed NVSHMEM calls per element type.
template <class T>
struct Elem;
template <>
struct Elem<uint8_t> {
  static __device__ __forceinline__ void p(uint8_t *d, uint8_t v, int pe) { nvshmem_uint8_p(d, v, pe); }
  static __device__ __forceinline__ uint8_t g(const uint8_t *s, int pe) { return nvshmem_uint8_g(s, pe); }
};
template <>
struct Elem<uint16_t> {
  static __device__ __forceinline__ void p(uint16_t *d, uint16_t v, int pe) { nvshmem_uint16_p(d, v, pe); }
  static __device__ __forceinline__ uint16_t g(const uint16_t *s, int pe) { return nvshmem_uint16_g(s, pe); }
};
template <>
struct Elem<uint32_t> {
  static __device__ __forceinline__ void p(uint32_t *d, uint32_t v, int pe) { nvshmem_uint32_p(d, v, pe); }
  static __device__ __forceinline__ uint32_t g(const uint32_t *s, int pe) { return nvshmem_uint32_g(s, pe); }
};
template <>
struct Elem<double> {
  static __device__ __forceinline__ void p(double *d, double v, int pe) { nvshmem_double_p(d, v, pe); }
  static __device__ __forceinline__ double g(const double *s, int pe) { return nvshmem_double_g(s, pe); }
};

// target: the symmetric buffer (p, g) or the load/store pointer to PE 1's copy (st).
template <ElemOp Op, class T>
__global__ void elem_bw_kernel(T *target, T *local, size_t nelems, int peer, int iters) {
  const size_t first = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int i = 0; i < iters; ++i) {
    for (size_t j = first; j < nelems; j += stride) {
      if constexpr (Op == ElemOp::kP) {
        Elem<T>::p(target + j, pattern_value<T>(j), peer);
      } else if constexpr (Op == ElemOp::kG) {
        local[j] = Elem<T>::g(target + j, peer);
      } else {
        target[j] = pattern_value<T>(j);
      }
    }
    compiler_barrier();
  }
  if constexpr (Op == ElemOp::kP) {
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
  }
}

template <ElemOp Op, class T>
int elem_bw_run(DeviceTest &t) {
  const PerftestOptions &o = t.opts;
  const size_t max_elems = o.max_size / sizeof(T);
  T *sym = sym_alloc<T>(t, max_elems * sizeof(T));
  T *local = nullptr;
  CUDA_CHECK(cudaMalloc(&local, max_elems * sizeof(T) + sizeof(T)));
  if (Op == ElemOp::kG && t.mype == 1) fill_pattern_sync(sym, max_elems);  // what PE 0 gets
  T *target = sym;
  if (Op == ElemOp::kSt) {
    target = static_cast<T *>(nvshmem_ptr(sym, t.peer));
    const bool missing = t.mype == 0 && target == nullptr;
    if (missing) {
      std::fprintf(stderr,
                   "%s: PE %d cannot store to PE %d's memory directly: nvshmem_ptr returned NULL (the PEs "
                   "are not on one node, or their GPUs have no peer access)\n",
                   t.name, t.mype, t.peer);
    }
    if (total_errors(t, missing ? 1 : 0) != 0) {
      nvshmem_free(sym);
      CUDA_CHECK(cudaFree(local));
      return device_test_finish(&t, 1);
    }
  }
  nvshmem_barrier_all();

  const std::vector<size_t> sizes = element_sizes(o, sizeof(T));
  std::vector<double> bw(sizes.size(), 0.0), rate(sizes.size(), 0.0);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t nelems = sizes[k] / sizeof(T);
    if (t.mype == 0) {
      if (o.warmup_iters > 0) {
        elem_bw_kernel<Op, T>
            <<<o.ctas, o.threads_per_cta, 0, t.stream>>>(target, local, nelems, t.peer, o.warmup_iters);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
      }
      const float ms = time_launch(t, [&] {
        elem_bw_kernel<Op, T><<<o.ctas, o.threads_per_cta, 0, t.stream>>>(target, local, nelems, t.peer, o.iters);
        CUDA_CHECK_LAUNCH();
      });
      bw[k] = static_cast<double>(sizes[k]) * o.iters / (static_cast<double>(ms) * 1e6);
      rate[k] = static_cast<double>(nelems) * o.iters / (static_cast<double>(ms) * 1e3);
    }
    nvshmem_barrier_all();
  }

  size_t bad = 0;
  if (!sizes.empty()) {
    const size_t n = sizes.back() / sizeof(T);
    if (Op != ElemOp::kG && t.mype == 1) bad = check_pattern(t, Op == ElemOp::kP ? "the p's" : "the stores", sym, n);
    if (Op == ElemOp::kG && t.mype == 0) bad = check_pattern(t, "the g's", local, n);
  }
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    print_table_basic(t.name, "thread", "BW", "GB/sec", '+', sizes.data(), bw.data(), static_cast<int>(sizes.size()));
    if (o.report_msgrate) {
      print_table_basic(t.name, "thread", "msgrate", "MMPS", '+', sizes.data(), rate.data(),
                        static_cast<int>(sizes.size()));
    }
  }
  nvshmem_barrier_all();
  nvshmem_free(sym);
  CUDA_CHECK(cudaFree(local));
  return device_test_finish(&t, errors);
}

template <ElemOp Op>
int elem_bw_main(int argc, char **argv, const char *name) {
  DeviceTest t;
  device_test_start(&t, argc, argv, name);
  if (t.opts.bidir && t.mype == 0) std::printf("Note: --bidir does not apply to this test and is ignored\n");
  switch (t.opts.datatype_size) {
    case 1:
      return elem_bw_run<Op, uint8_t>(t);
    case 2:
      return elem_bw_run<Op, uint16_t>(t);
    case 4:
      return elem_bw_run<Op, uint32_t>(t);
    default:
      return elem_bw_run<Op, double>(t);
  }
}

}  // namespace
