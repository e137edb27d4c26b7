// A stream-ordered operation on a PE that this GPU reaches through the network (the _on_stream forms
// of the host API): the parameter of the library's kernel that posts it to the network proxy, in order
// on the caller's stream (gshmemi_net_kernel in device_kernels.cu). The kernel waits until the proxy
// has completed it at the target, so work queued on the stream after it starts after that, the host
// never waits for the stream, and a CUDA graph captures it like any kernel. Plain integers: it is
// passed by value through cuLaunchKernel.
#pragma once

#include <cstdint>

namespace gshmem {

struct NetStreamCall {
  enum Kind : int32_t {
    kPut = 0,   // `count` elements of `bytes` from `local` (or `value`) to `pe`'s heap at `offset`
    kGet,       // `count` elements of `bytes` from `pe`'s heap at `offset` into `local`
    kSignal,    // `sig_op` with `signal` on the word at `sig_offset` of `pe`
    kPutSignal  // kPut (when bytes > 0), a fence, then kSignal: the data arrives first
  };
  int32_t kind;
  int32_t pe;
  uint64_t offset;         // the first element's heap offset at `pe`
  uint64_t local;          // the first element in this process (GPU memory, or host memory); 0: `value`
  uint64_t bytes;          // per element; with `local` 0, at most 8 (p_on_stream)
  uint64_t count;          // elements: 1, or iput/iget's nelems
  uint64_t remote_stride;  // bytes between elements at `pe`
  uint64_t local_stride;   // bytes between elements in `local`
  uint64_t value;          // the stored bits when `local` is 0
  uint64_t sig_offset;     // the signal word's heap offset at `pe`
  uint64_t signal;         // the signal's operand
  int32_t sig_op;          // the AmoOp of the signal: kStore (SIGNAL_SET) or kAdd (SIGNAL_ADD)
  int32_t reserved;
};
static_assert(sizeof(NetStreamCall) == 88, "the host and the library's kernel must agree on the layout");

}  // namespace gshmem
