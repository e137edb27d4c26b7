// Kernels the host library launches itself (the host barrier, the stream-ordered forms, and host
// atomics on GPU memory). Compiled to a fatbin at build time and embedded in libgshmem_host, then
// loaded through the driver API at GPU binding, so the library links no CUDA runtime and loads on
// machines without a driver. The module's copy of the device state is found by name
// (gshmemi_device_state_d). Each kernel runs as one thread (one warp for the barrier); their
// parameters are plain integers and pointers because they are launched with cuLaunchKernel.
#include <cstdint>

#include "coll/collectives.h"
#include "gshmem/device/device.cuh"
#include "transport/net_stream_call.h"
#include "transport/transport.h"

namespace {

template <class W>
__device__ unsigned long long apply(W* w, int op, W operand, W compare) {
  using gshmem::AmoOp;
  switch (static_cast<AmoOp>(op)) {
    case AmoOp::kLoad:
      return gshmem::detail::load_relaxed_sys(w);
    case AmoOp::kStore:
      gshmem::detail::store_relaxed_sys(w, operand);
      return 0;
    case AmoOp::kAdd:
      return atomicAdd_system(w, operand);
    case AmoOp::kAnd:
      return atomicAnd_system(w, operand);
    case AmoOp::kOr:
      return atomicOr_system(w, operand);
    case AmoOp::kXor:
      return atomicXor_system(w, operand);
    case AmoOp::kSwap:
      return atomicExch_system(w, operand);
    case AmoOp::kCompareSwap:
      return atomicCAS_system(w, compare, operand);
    case AmoOp::kFloatAdd:
      return gshmem::detail::float_add_sys<true>(w, operand);
  }
  return 0;
}

// A half's atomics (amo_applies: fetch, set, swap and the float add).
__device__ unsigned long long apply16(unsigned short* w, int op, unsigned short operand) {
  using gshmem::AmoOp;
  switch (static_cast<AmoOp>(op)) {
    case AmoOp::kLoad:
      return gshmem::detail::load_relaxed_sys(w);
    case AmoOp::kStore:
      gshmem::detail::store_relaxed_sys(w, operand);
      return 0;
    case AmoOp::kSwap:
      return gshmem::detail::exchange16_sys(w, operand);
    case AmoOp::kFloatAdd:
      return gshmem::detail::float_add_sys<true>(w, operand);
    default:
      return 0;  // not reached: the host checks amo_applies
  }
}

template <class T>
__device__ void wait_all(int cmp, const void* ivars, unsigned long long n, const int* status, const void* values,
                         unsigned long long value) {
  const T* v = static_cast<const T*>(ivars);
  if (values) {
    gshmem::dev::wait_until_all_vector(v, n, status, cmp, static_cast<const T*>(values));
  } else {
    gshmem::dev::wait_until_all(v, n, status, cmp, static_cast<T>(value));
  }
}

}  // namespace

// quiet_on_stream with the copy engines in use: waits for the copies handed to them before.
extern "C" __global__ void gshmemi_quiet_kernel() { gshmem::dev::quiet(); }

namespace {

// The memory operations of the collective algorithms for the library's kernel. Each block takes a
// slice of every copy and each thread of the grid a share of the reduced elements. With `whole` (a
// launch of one block) the algorithm's team sync and barrier run here; otherwise (grid_work) the
// launches before and after this one do them (coll/plan.h). One set of operations for both keeps the
// kernel's instantiations (and its build time) to one per collective, type and operation; its copies,
// syncs and barriers are calls, not inlined into each of them (a few per instantiation of every type and
// operation, the staged reductions' included, would multiply the kernel's code).
struct GridOps : gshmem::dev::detail_coll::DeviceOps<gshmem::Scope::kBlock> {
  bool whole;
  __device__ __noinline__ void put(int i, char* dest, const char* src, size_t bytes) {
    const size_t per = ((bytes + gridDim.x - 1) / gridDim.x + 15) & ~static_cast<size_t>(15);
    const size_t begin = per * blockIdx.x;
    if (begin >= bytes) return;
    const size_t n = bytes - begin < per ? bytes - begin : per;
    namespace route = gshmem::detail::route;
    route::copy<gshmem::Scope::kBlock, route::Dir::kPut, route::Done::kPosted>(dest + begin, src + begin, n, t.pe(i));
  }
  __device__ int rank() const { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }
  __device__ int threads() const { return static_cast<int>(gridDim.x * blockDim.x); }
  __device__ __noinline__ void sync() const {
    if (whole) DeviceOps::sync();
  }
  __device__ __noinline__ void barrier() const {
    if (whole) DeviceOps::barrier();
  }
  __device__ bool packets() const { return whole && DeviceOps::packets(); }
};

}  // namespace

// The host and on-stream collectives of the GPU backend: one block runs the algorithm, or
// (grid_work) every block of the grid moves a share of the data.
extern "C" __global__ void gshmemi_coll_kernel(gshmem::CollCall c) {
  using gshmem::Scope;
  using gshmem::detail::CollOp;
  switch (c.op) {
    case CollOp::kBarrier:
      gshmem::dev::team_barrier<Scope::kBlock>(c.team);
      break;
    case CollOp::kSync:
      gshmem::dev::team_sync<Scope::kBlock>(c.team);
      break;
    default: {
      GridOps ops{{gshmem::dev::detail_team::member_slot(c.team, "a collective")}, c.grid_work == 0};
      // A reduction on a team across the network goes through the team's scratch, in one block (the
      // host checked that the scratch holds an element per member, and planned one launch).
      if ((c.op == CollOp::kReduce || c.op == CollOp::kReducescatter) && !gshmem::detail::route::all_mapped(ops.t)) {
        gshmem::detail::staged_by_value(ops, ops.t, c.dtype, c.redop, c.op == CollOp::kReducescatter, c.dest, c.src,
                                        c.bytes / gshmem::detail::reduce_type_size(c.dtype));
        break;
      }
      gshmem::run_data_collective(ops, ops.t, c);
    }
  }
}

// A stream-ordered operation across the network (see net_stream_call.h): its requests go into the proxy's
// ring in order, then the kernel waits until the proxy has completed them at the target. The stream's earlier
// work has finished when the kernel starts, so what the requests read is in place.
extern "C" __global__ void gshmemi_net_kernel(gshmem::NetStreamCall c) {
  using gshmem::NetStreamCall;
  namespace d = gshmem::detail;
  uint64_t last = 0;
  bool posted = false;
  if (c.kind == NetStreamCall::kPut || c.kind == NetStreamCall::kGet ||
      (c.kind == NetStreamCall::kPutSignal && c.bytes > 0)) {
    const bool put = c.kind != NetStreamCall::kGet;
    for (uint64_t i = 0; i < c.count; ++i) {
      d::ProxyRequest r = d::net_request(put ? d::kProxyPut : d::kProxyGet, c.pe, c.offset + i * c.remote_stride);
      r.bytes = c.bytes;
      if (c.local != 0) {
        r.local = c.local + i * c.local_stride;
      } else {
        r.data[0] = c.value;  // a put of at most 8 bytes that travels in the request
      }
      last = d::proxy_post(r);
      posted = true;
    }
  }
  if (c.kind == NetStreamCall::kPutSignal && posted) d::net_fence();
  if (c.kind == NetStreamCall::kSignal || c.kind == NetStreamCall::kPutSignal) {
    d::ProxyRequest r = d::net_request(d::kProxyAmo, c.pe, c.sig_offset);
    r.amo = c.sig_op;
    r.amo_bytes = 8;
    r.bytes = 8;
    r.data[0] = c.signal;
    last = d::proxy_post(r);
    posted = true;
  }
  if (posted) d::proxy_wait_completed(last + 1);
}

// One warp: the peers are signalled and waited for in parallel.
extern "C" __global__ void gshmemi_barrier_all_kernel() { gshmem::dev::barrier_all<gshmem::Scope::kWarp>(); }

// A host atomic (or a stream-ordered signal) on a word of `bytes` bytes; the previous value goes
// to *fetched (host-pinned) when set. A release fence first, so that a signal sent after stream-
// ordered copies is seen after their data. A blocking one then writes `seq` to *done (host-pinned):
// the host polls that instead of synchronising the stream (gpu_copy.cpp).
extern "C" __global__ void gshmemi_atomic_kernel(int op, int bytes, void* target, unsigned long long operand,
                                                 unsigned long long compare, unsigned long long* fetched,
                                                 unsigned long long* done, unsigned long long seq) {
  gshmem::detail::fence_acq_rel_sys();
  unsigned long long old = bytes == 2
                               ? apply16(static_cast<unsigned short*>(target), op, static_cast<unsigned short>(operand))
                           : bytes == 4 ? apply(static_cast<unsigned int*>(target), op,
                                                static_cast<unsigned int>(operand), static_cast<unsigned int>(compare))
                                        : apply(static_cast<unsigned long long*>(target), op, operand, compare);
  if (fetched) gshmem::detail::store_relaxed_sys(fetched, old);
  if (fetched || done) gshmem::detail::fence_sc_sys();
  if (done) gshmem::detail::store_relaxed_sys(done, seq);
}

// p_on_stream: one store of 1, 2, 4 or 8 bytes.
extern "C" __global__ void gshmemi_store_kernel(void* target, unsigned long long bits, int bytes) {
  switch (bytes) {
    case 1:
      *static_cast<volatile uint8_t*>(target) = static_cast<uint8_t>(bits);
      break;
    case 2:
      *static_cast<volatile uint16_t*>(target) = static_cast<uint16_t>(bits);
      break;
    case 4:
      *static_cast<volatile uint32_t*>(target) = static_cast<uint32_t>(bits);
      break;
    default:
      *static_cast<volatile uint64_t*>(target) = bits;
  }
}

// The stream-ordered waits: until every element not excluded holds the comparison.
extern "C" __global__ void gshmemi_wait_kernel(int kind, int cmp, const void* ivars, unsigned long long n,
                                               const int* status, const void* values, unsigned long long value) {
  using gshmem::WaitKind;
  switch (static_cast<WaitKind>(kind)) {
    case WaitKind::kI16:
      wait_all<int16_t>(cmp, ivars, n, status, values, value);
      break;
    case WaitKind::kU16:
      wait_all<uint16_t>(cmp, ivars, n, status, values, value);
      break;
    case WaitKind::kI32:
      wait_all<int32_t>(cmp, ivars, n, status, values, value);
      break;
    case WaitKind::kU32:
      wait_all<uint32_t>(cmp, ivars, n, status, values, value);
      break;
    case WaitKind::kI64:
      wait_all<int64_t>(cmp, ivars, n, status, values, value);
      break;
    case WaitKind::kU64:
      wait_all<uint64_t>(cmp, ivars, n, status, values, value);
      break;
  }
}
