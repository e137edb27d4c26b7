// The vocabulary types of gshmem's native API (gshmem/host.hpp), shared with the library's own layers.
// Plain C++17, no CUDA headers: host code, device code and bindings include it alike.
#pragma once

#include <stdint.h>

struct CUstream_st;  // CUDA's (global) stream type, declared without CUDA's headers

namespace gshmem {

// A CUDA stream: the type behind cudaStream_t and CUstream. nullptr is CUDA's legacy default stream.
using Stream = ::CUstream_st*;

// When a one-sided operation must be complete.
enum class Completion {
  kBlocking,  // before the call returns
  kNbi,       // by the next quiet (or barrier)
  kStream,    // in order on a CUDA stream
};

// An atomic operation on a word of 2, 4 or 8 bytes. The words are the bits of any AMO type: adding signed
// values is the same as adding their bits, and the integer operations compare and combine bits.
// kFloatAdd adds as an IEEE binary floating-point number of the word's width (2 bytes: half, 4: float,
// 8: double), rounded to nearest even (NVSHMEM's float atomics).
enum class AmoOp : int32_t { kLoad = 0, kStore, kAdd, kAnd, kOr, kXor, kSwap, kCompareSwap, kFloatAdd };

// Whether `op` applies to a word of `bytes` bytes: every operation to 4 and 8 bytes; to 2 bytes (half)
// only a load, a store, a swap and kFloatAdd.
inline bool amo_applies(AmoOp op, int bytes) {
  if (static_cast<int32_t>(op) < 0 || op > AmoOp::kFloatAdd) return false;
  if (bytes == 4 || bytes == 8) return true;
  return bytes == 2 && (op == AmoOp::kLoad || op == AmoOp::kStore || op == AmoOp::kSwap || op == AmoOp::kFloatAdd);
}

// The element types of waits: the width and signedness of NVSHMEM's WAIT types.
enum class WaitKind : int32_t { kI16 = 0, kU16, kI32, kU32, kI64, kU64 };
inline int wait_kind_bytes(WaitKind k) { return 2 << (static_cast<int>(k) / 2); }
inline bool wait_kind_signed(WaitKind k) { return static_cast<int>(k) % 2 == 0; }

// What a wait or test over several variables waits for.
enum class WaitFor { kAll, kAny, kSome };

// The reduction operations, and the element types by representation (NVSHMEM's type names map onto
// these; kF16 and kBF16 are the 16-bit floats' bits).
enum class ReduceOp : int32_t { kAnd = 0, kOr, kXor, kMin, kMax, kSum, kProd, kMaxloc };
enum class ReduceType : int32_t { kI8 = 0, kU8, kI16, kU16, kI32, kU32, kI64, kU64, kF16, kBF16, kF32, kF64 };

// What a team is made with (NVSHMEM's nvshmem_team_config_t, the fields that its mask selects).
struct TeamConfig {
  int num_contexts = 0;
  uint64_t uniqueid = 0;
};

}  // namespace gshmem
