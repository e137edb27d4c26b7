// The bulk-copy (TMA) path of device puts and gets to mapped peers (NVSHMEM 3.7's, selected by
// NVSHMEM_TMA_POLICY): one thread of the calling group drives its SM's bulk-copy unit (Hopper's cp.async.bulk)
// through shared memory that its block lent with give_smem, instead of every thread of the group moving bytes.
//
//   tma::give(smem, bytes), tma::release()     give_smem / release_smem (smem.cuh)
//   tma::candidate(to, from, bytes)            whether a copy may take the path: the policy, the size and the
//                                              alignment, the same answer in every thread of the group
//   tma::copy<S>(to, from, bytes)              true when the bulk copy moved the bytes (then complete)
//
// Contracts:
//  - A block is eligible once one of its threads gave at least kHeader bytes (kHeader + kStages * kMinTile for a
//    copy between global memories) and the block synchronised. The
//    record (where the lent memory is, how large) lives in state().tma_slots[block]; blocks past kTmaBlocks
//    stay on the ordinary path. Each record carries the kernel's launch number (%gridid), so a record that a
//    block of another kernel left (without release_smem) or is writing now is never taken for this block's.
//  - Global to global (a put from global memory, every get) goes in kTmaStages tiles through the lent memory,
//    under a lock kept in it: callers of one block that overlap take turns (NVSHMEM leaves that to the program).
//    A put from the block's shared memory goes straight from it. The group's threads fence their earlier stores
//    for the bulk-copy unit (fence.proxy.async) before the copy, so a program need not (NVSHMEM asks it to).
//  - When copy() returns the copy is complete, its writes ordered before the thread's later operations, like
//    the stores of the ordinary path: fence, quiet, flush and put-with-signal need nothing more. What it saves
//    is the group's threads, not the wait.
//  - The group agrees: its first thread decides, every thread learns the answer (a warp's shuffle, a block's
//    __syncthreads_or), so no byte is moved twice or not at all. Warpgroups keep the ordinary path.
//  - Everything here compiles to "no" where GSHMEMI_HAVE_BULK_COPY is 0 (arch.cuh).
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/arch.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace detail {
namespace tma {

constexpr uint32_t kStages = 4;            // tiles in flight of a staged copy
constexpr uint32_t kHeader = 64;           // lock, stage parities, kStages mbarriers
constexpr uint32_t kMinTile = 1024;        // a staged copy needs kStages tiles of at least this
constexpr uint32_t kMaxLent = 16383 * 16;  // what a record can describe (more than any block has)
constexpr uint32_t kTagShift = 28;         // record: tag << 28 | (lent / 16) << 14 | (base / 16)

#if GSHMEMI_HAVE_BULK_COPY

// This kernel launch's number (%gridid), as a record's tag: 36 bits.
__device__ __forceinline__ uint64_t launch_tag() {
  uint64_t g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  return g & ((1ull << (64 - kTagShift)) - 1);
}
__device__ __forceinline__ bool is_shared(const void* p) {
  uint32_t r;
  asm("{ .reg .pred q; isspacep.shared q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "l"(p));
  return r != 0;
}
__device__ __forceinline__ bool is_global(const void* p) {
  uint32_t r;
  asm("{ .reg .pred q; isspacep.global q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "l"(p));
  return r != 0;
}
__device__ __forceinline__ uint32_t shared_address(const void* p) {
  uint64_t a;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
  return static_cast<uint32_t>(a);
}
__device__ __forceinline__ uint64_t global_address(const void* p) {
  uint64_t a;
  asm("cvta.to.global.u64 %0, %1;" : "=l"(a) : "l"(p));
  return a;
}
__device__ __forceinline__ uint32_t ld_shared(uint32_t a) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ void st_shared(uint32_t a, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t barrier_of(uint32_t base, uint32_t stage) { return base + 8 + 8 * stage; }

// Holds the staging tiles of the block's lent memory (a spin on a word in it: the holder's copy ends by
// itself, so a waiter always gets its turn).
__device__ __forceinline__ void lock(uint32_t base) {
  uint32_t old = 1;
  while (true) {
    asm volatile("atom.acquire.cta.shared.cas.b32 %0, [%1], 0, 1;" : "=r"(old) : "r"(base) : "memory");
    if (old == 0) break;
    __nanosleep(32);
  }
}
__device__ __forceinline__ void unlock(uint32_t base) {
  asm volatile("st.release.cta.shared.u32 [%0], 0;" ::"r"(base) : "memory");
}

// The block's record, if this kernel's: where the lent memory starts (a shared address) and its bytes.
__device__ __forceinline__ bool lent_here(uint32_t* base, uint32_t* bytes, uint64_t* record = nullptr) {
  const uint64_t block = linear_block();
  if (block >= kTmaBlocks) return false;
  const uint64_t r = *reinterpret_cast<volatile const uint64_t*>(state().tma_slots + block);
  if (r == 0 || (r >> kTagShift) != launch_tag()) return false;
  if (record != nullptr) *record = r;
  *base = static_cast<uint32_t>(r & 0x3fff) << 4;
  *bytes = static_cast<uint32_t>((r >> 14) & 0x3fff) << 4;
  return true;
}

__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (done == 0);
}
// Tile `stage` <- `bytes` of global memory at `from`; the stage's mbarrier completes when they are there.
__device__ __forceinline__ void load_tile(uint32_t tile, uint64_t from, uint32_t bytes, uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(tile),
               "l"(from), "r"(bytes), "r"(bar)
               : "memory");
}
// Global memory at `to` <- `bytes` of shared memory at `from`, in this thread's current bulk group.
__device__ __forceinline__ void store_tile(uint64_t to, uint32_t from, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(to), "r"(from), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// The thread's bulk stores have read their shared memory (.read) / have written (then ordered before the
// thread's later accesses of the ordinary kind).
__device__ __forceinline__ void stores_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
__device__ __forceinline__ void stores_done() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// Global to global through the lent tiles: kStages loads in flight, each tile stored as soon as it is in and
// loaded again once its store has read it.
__device__ __forceinline__ void staged(uint64_t to, uint64_t from, size_t bytes, uint32_t base, uint32_t lent) {
  const uint32_t tile = ((lent - kHeader) / kStages) & ~15u;
  const uint32_t tiles = base + kHeader;
  const size_t n = (bytes + tile - 1) / tile;
  // Chunk c: bytes [c * tile, c * tile + length(c)) through stage c % kStages.
  auto length = [&](size_t c) { return static_cast<uint32_t>(bytes - c * tile < tile ? bytes - c * tile : tile); };
  lock(base);
  uint32_t parity = ld_shared(base + 4);  // bit s: the parity of stage s's next phase
  auto issue = [&](size_t c) {
    const uint32_t s = static_cast<uint32_t>(c % kStages);
    load_tile(tiles + s * tile, from + c * tile, length(c), barrier_of(base, s));
  };
  for (size_t c = 0; c < n && c < kStages; ++c) issue(c);
  for (size_t c = 0; c < n; ++c) {
    const uint32_t s = static_cast<uint32_t>(c % kStages);
    wait_parity(barrier_of(base, s), (parity >> s) & 1u);
    parity ^= 1u << s;
    store_tile(to + c * tile, tiles + s * tile, length(c));
    if (c + kStages < n) {
      stores_read();
      issue(c + kStages);
    }
  }
  stores_done();
  st_shared(base + 4, parity);
  unlock(base);
}

// One thread's decision shared with its group.
template <Scope S>
__device__ __forceinline__ bool agree(bool first_says) {
  static_assert(S != Scope::kWarpgroup, "warpgroups keep the ordinary path (candidate() says no)");
  if constexpr (S == Scope::kThread) {
    return first_says;
  } else if constexpr (S == Scope::kWarp) {
    const int n = group_size<S>();
    const unsigned mask = n == 32 ? 0xffffffffu : ((1u << n) - 1u);
    __syncwarp(mask);  // (orders the lanes' fences before the first lane's copy; the shuffle does not)
    return __shfl_sync(mask, first_says ? 1 : 0, 0) != 0;
  } else {
    return __syncthreads_or(first_says ? 1 : 0) != 0;
  }
}

#endif  // GSHMEMI_HAVE_BULK_COPY

// Whether a copy of `bytes` from `from` to `to` may take the bulk-copy path: the same answer in every thread
// of the group (the state, the arguments). Warp and block calls only with GSHMEM_TMA_SCOPES=all: with their
// threads the ordinary copy measured faster (docs/figures.md).
template <Scope S>
__device__ __forceinline__ bool candidate(const void* to, const void* from, size_t bytes) {
#if GSHMEMI_HAVE_BULK_COPY
  if constexpr (S == Scope::kWarpgroup) {
    return false;
  } else {
    const DeviceState& st = state();
    return st.tma_slots != nullptr && bytes >= st.tma_min_bytes && (S == Scope::kThread || st.tma_group_calls != 0) &&
           ((reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(from) | bytes) & 15) == 0;
  }
#else
  (void)to, (void)from, (void)bytes;
  return false;
#endif
}

// The copy by the group of scope S (every thread calls it with the same arguments, after candidate() said
// yes): true when the bulk copy moved the bytes, complete on return; false when the block lent no memory for
// it (or too little, or an operand is neither global nor the block's shared memory): the caller copies as usual.
// Out of line, so that the ordinary path around the call keeps its registers.
template <Scope S>
__device__ __noinline__ bool copy(void* to, const void* from, size_t bytes) {
#if GSHMEMI_HAVE_BULK_COPY
  uint32_t base = 0, lent = 0;
  bool take = false, direct = false;
  // Every thread's earlier stores to the source (global memory, or the block's shared memory) become visible to
  // the bulk-copy unit: each thread fences its own, before the group's agreement, which the first thread passes
  // before it issues the copy.
  asm volatile("fence.proxy.async;" ::: "memory");
  if (group_rank<S>() == 0 && lent_here(&base, &lent) && is_global(to)) {
    direct = is_shared(from);
    take = direct || (is_global(from) && lent >= kHeader + kStages * kMinTile);
  }
  if (!agree<S>(take)) return false;
  if (group_rank<S>() == 0) {
    if (direct) {  // (a block's shared memory is far below 4 GiB: one store)
      store_tile(global_address(to), shared_address(from), static_cast<uint32_t>(bytes));
      stores_done();
    } else {
      staged(global_address(to), global_address(from), bytes, base, lent);
    }
  }
  return true;
#else
  (void)to, (void)from, (void)bytes;
  return false;
#endif
}

// give_smem: records `bytes` of the block's shared memory at `smem` for this kernel's bulk copies (one thread
// calls it; the block synchronises before its copies). Too little, or memory that is not shared: no record.
// A block gives once (again only after release_smem): a second give re-initialises barriers that are live.
__device__ __forceinline__ void give(void* smem, size_t bytes) {
#if GSHMEMI_HAVE_BULK_COPY
  const DeviceState& st = state();
  if (st.tma_slots == nullptr || !is_shared(smem)) return;
  const uint64_t block = linear_block();
  if (block >= kTmaBlocks) return;
  const uint32_t at = shared_address(smem);
  const uint32_t base = (at + 15u) & ~15u;
  if (base >= (1u << 18) || bytes < (base - at) + kHeader) return;  // (a record holds base / 16 in 14 bits)
  size_t lent = (bytes - (base - at)) & ~static_cast<size_t>(15);
  if (lent > kMaxLent) lent = kMaxLent;
  st_shared(base, 0);      // the lock
  st_shared(base + 4, 0);  // every stage's next phase has parity 0
  for (uint32_t s = 0; s < kStages; ++s) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrier_of(base, s)) : "memory");
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const uint64_t record = launch_tag() << kTagShift | static_cast<uint64_t>(lent >> 4) << 14 | (base >> 4);
  *reinterpret_cast<volatile uint64_t*>(st.tma_slots + block) = record;
#else
  (void)smem, (void)bytes;
#endif
}

// release_smem: the block's shared memory is its own again (one thread calls it, after the block's copies).
// Where a kernel running at the same time took the block's slot meanwhile, the record is gone and the lent
// memory's barriers are left as they are (the block's copies already took the ordinary path).
__device__ __forceinline__ void release() {
#if GSHMEMI_HAVE_BULK_COPY
  uint32_t base = 0, lent = 0;
  uint64_t record = 0;
  if (state().tma_slots == nullptr || !lent_here(&base, &lent, &record)) return;
  for (uint32_t s = 0; s < kStages; ++s) {
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(barrier_of(base, s)) : "memory");
  }
  // Cleared unless another kernel's block took the slot meanwhile.
  atomicCAS(reinterpret_cast<unsigned long long*>(state().tma_slots + linear_block()),
            static_cast<unsigned long long>(record), 0ull);
#endif
}

}  // namespace tma
}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
