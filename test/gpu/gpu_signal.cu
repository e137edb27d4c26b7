// Signals across two GPUs.
//  - put_signal and put_signal_nbi, typed (every RMA type), sized (8 to 128 bits) and mem, at
//    thread, warp and block scope, with NVSHMEM_SIGNAL_SET and NVSHMEM_SIGNAL_ADD. Both PEs run
//    the same kernel: every group (thread, warp or block) sends a block of fresh data each round to
//    its partner group on the other PE and waits for the partner's (alternately with
//    nvshmem_signal_wait_until and with nvshmem_uint64_wait_until followed by
//    nvshmem_signal_fetch), checks every word of it, then acknowledges with nvshmemx_signal_op.
//    The data lands in two alternating buffers, so a signal that overtakes its data shows as words
//    of the round before last. The value a wait returns is checked too (this round or the next).
//    A short sweep covers every combination; long runs of large blocks stress the ordering.
//  - nvshmemx_signal_op and nvshmem_signal_fetch: SET and ADD ping-pong between the PEs with
//    random values, the same on the local PE, and ADD from every thread of both PEs at once.
//  - fence: a warp puts data, fences, then puts a flag with another put to the same PE; the
//    receiver that sees the flag must see the data. quiet: each thread puts data, quiets, then
//    stores a flag with nvshmem_uint64_p.
//  - NVSHMEM's put6_signal names: the signal arrives, the destination is untouched.
#include <cstdint>
#include <string>
#include <vector>

#include "../gen/type_lists.h"
#include "gpu_test.cuh"

namespace {

using gputest::Failure;
using gputest::hash64;

// ---- the NVSHMEM names: one struct per family, with every scope and the _nbi forms ------------------

#define GSHMEMT_SEND_BODY(PUT, PUTX, T, ELEM)        \
  T* d = static_cast<T*>(dst);                       \
  const T* s = static_cast<const T*>(src);           \
  const size_t n = bytes / (ELEM);                   \
  if (nbi) {                                         \
    if (scope == 0) {                                \
      PUT##_nbi(d, s, n, sig, value, op, pe);        \
    } else if (scope == 1) {                         \
      PUTX##_nbi_warp(d, s, n, sig, value, op, pe);  \
    } else {                                         \
      PUTX##_nbi_block(d, s, n, sig, value, op, pe); \
    }                                                \
  } else {                                           \
    if (scope == 0) {                                \
      PUT(d, s, n, sig, value, op, pe);              \
    } else if (scope == 1) {                         \
      PUTX##_warp(d, s, n, sig, value, op, pe);      \
    } else {                                         \
      PUTX##_block(d, s, n, sig, value, op, pe);     \
    }                                                \
  }

#define GSHMEMT_SEND_ARGS \
  int scope, bool nbi, void *dst, const void *src, size_t bytes, uint64_t *sig, uint64_t value, int op, int pe

#define GSHMEMT_TYPED(NAME, TYPE)                                                                      \
  struct Typed_##NAME {                                                                                \
    static constexpr const char* name = "nvshmem_" #NAME "_put_signal";                                \
    __device__ static void send(GSHMEMT_SEND_ARGS) {                                                   \
      GSHMEMT_SEND_BODY(nvshmem_##NAME##_put_signal, nvshmemx_##NAME##_put_signal, TYPE, sizeof(TYPE)) \
    }                                                                                                  \
  };
GSHMEMT_TYPES_RMA(GSHMEMT_TYPED)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
GSHMEMT_TYPES_RMA_FP16(GSHMEMT_TYPED)
#endif
#undef GSHMEMT_TYPED

#define GSHMEMT_SIZED(BITS)                                                                  \
  struct Sized_##BITS {                                                                      \
    static constexpr const char* name = "nvshmem_put" #BITS "_signal";                       \
    static constexpr size_t elem = (BITS) / 8;                                               \
    __device__ static void send(GSHMEMT_SEND_ARGS) {                                         \
      GSHMEMT_SEND_BODY(nvshmem_put##BITS##_signal, nvshmemx_put##BITS##_signal, void, elem) \
    }                                                                                        \
  };
GSHMEMT_SIZED(8)
GSHMEMT_SIZED(16)
GSHMEMT_SIZED(32)
GSHMEMT_SIZED(64)
GSHMEMT_SIZED(128)
#undef GSHMEMT_SIZED

struct Mem {
  static constexpr const char* name = "nvshmem_putmem_signal";
  __device__ static void send(GSHMEMT_SEND_ARGS) {
    GSHMEMT_SEND_BODY(nvshmem_putmem_signal, nvshmemx_putmem_signal, void, 1)
  }
};

// ---- groups: a thread, a warp (the last one of a block may be partial) or a block --------------------

enum Scope { kThread, kWarp, kBlock };

struct Group {
  int id;    // among all groups of the PE's grid
  int rank;  // of the calling thread in its group
  int size;
  int scope;
};

__device__ inline Group group_of(int scope) {
  Group g;
  g.scope = scope;
  const int t = static_cast<int>(threadIdx.x);
  if (scope == kThread) {
    g.id = static_cast<int>(blockIdx.x * blockDim.x) + t;
    g.rank = 0;
    g.size = 1;
  } else if (scope == kWarp) {
    const int warps = static_cast<int>(blockDim.x + 31) / 32;
    g.id = static_cast<int>(blockIdx.x) * warps + t / 32;
    g.rank = t & 31;
    const int left = static_cast<int>(blockDim.x) - (t & ~31);
    g.size = left < 32 ? left : 32;
  } else {
    g.id = static_cast<int>(blockIdx.x);
    g.rank = t;
    g.size = static_cast<int>(blockDim.x);
  }
  return g;
}
__device__ inline void group_sync(const Group& g) {
  if (g.scope == kWarp) {
    __syncwarp(g.size == 32 ? 0xffffffffu : ((1u << g.size) - 1u));
  } else if (g.scope == kBlock) {
    __syncthreads();
  }
}
int groups_of(int scope, int blocks, int threads) {
  return scope == kThread ? blocks * threads : scope == kWarp ? blocks * ((threads + 31) / 32) : blocks;
}

// ---- the exchange -------------------------------------------------------------------------------

// Word i of the data that `pe`'s group `g` sends in round `r`.
__host__ __device__ inline uint32_t round_base(uint64_t seed, int pe, int g, long long r) {
  return static_cast<uint32_t>(
      hash64(seed ^ (static_cast<uint64_t>(pe) << 56) ^ (static_cast<uint64_t>(g) << 32) ^ static_cast<uint64_t>(r)));
}
__host__ __device__ inline uint32_t data_word(uint32_t base, size_t i) {
  return base ^ static_cast<uint32_t>(i * 0x9e3779b1u);
}

struct Channel {
  int scope;
  int nbi;
  int sig_op;  // NVSHMEM_SIGNAL_SET or _ADD (for the data signal and the acknowledgement)
  int rounds;
  size_t bytes;        // per group and round
  char* recv;          // symmetric: [group][2][bytes]
  char* stage;         // device memory: [group][bytes], the source of the sends
  uint64_t* data_sig;  // symmetric: [group]
  uint64_t* ack_sig;   // symmetric: [group]
  uint64_t* flag_src;  // device memory: [group], the source of a flag put
  int me, peer;
  uint64_t seed;
  Failure* f;
  unsigned long long* progress;
};

// Checks (the `check` of a Failure).
enum Check { kDataWord, kSignalWaitValue, kSignalFetchValue };
const char* const check_names[] = {
    "a data word after the signal",
    "the value nvshmem_signal_wait_until returned (expected this round or, at most, the next)",
    "the value nvshmem_signal_fetch returned after nvshmem_uint64_wait_until (this round or the next)",
};

// put_signal through the API `A`; the acknowledgement is a signal_op.
template <class A>
struct PutSignal {
  __device__ static void send(const Channel& c, const Group& g, long long r, char* dst, const char* src) {
    const uint64_t value = c.sig_op == NVSHMEM_SIGNAL_SET ? static_cast<uint64_t>(r) : 1;
    A::send(c.scope, c.nbi != 0, dst, src, c.bytes, c.data_sig + g.id, value, c.sig_op, c.peer);
  }
  __device__ static void ack(const Channel& c, const Group& g, long long r) {
    nvshmemx_signal_op(c.ack_sig + g.id, c.sig_op == NVSHMEM_SIGNAL_SET ? static_cast<uint64_t>(r) : 1, c.sig_op,
                       c.peer);
  }
};

// A warp puts the data, fences, then puts the flag (a second put to the same PE).
struct FenceThenPut {
  __device__ static void send(const Channel& c, const Group& g, long long r, char* dst, const char* src) {
    nvshmemx_putmem_nbi_warp(dst, src, c.bytes, c.peer);
    nvshmem_fence();
    if (g.rank == 0) c.flag_src[g.id] = static_cast<uint64_t>(r);
    __syncwarp(g.size == 32 ? 0xffffffffu : ((1u << g.size) - 1u));
    nvshmemx_uint64_put_nbi_warp(c.data_sig + g.id, c.flag_src + g.id, 1, c.peer);
  }
  __device__ static void ack(const Channel& c, const Group& g, long long r) {
    nvshmem_uint64_p(c.ack_sig + g.id, static_cast<uint64_t>(r), c.peer);
  }
};

// A thread puts the data, quiets, then stores the flag with p.
struct QuietThenP {
  __device__ static void send(const Channel& c, const Group& g, long long r, char* dst, const char* src) {
    nvshmem_putmem_nbi(dst, src, c.bytes, c.peer);
    nvshmem_quiet();
    nvshmem_uint64_p(c.data_sig + g.id, static_cast<uint64_t>(r), c.peer);
  }
  __device__ static void ack(const Channel& c, const Group& g, long long r) {
    nvshmem_uint64_p(c.ack_sig + g.id, static_cast<uint64_t>(r), c.peer);
  }
};

// Every group, every round: wait until the partner has checked the round before last (its buffer
// is then free), send this round, wait for the partner's round, check it, acknowledge it.
template <class Send>
__global__ void __launch_bounds__(1024) exchange(Channel c) {
  const Group g = group_of(c.scope);
  char* stage = c.stage + static_cast<size_t>(g.id) * c.bytes;
  const size_t words = c.bytes / 4;
  for (long long r = 1; r <= c.rounds; ++r) {
    if (r > 2) nvshmem_uint64_wait_until(c.ack_sig + g.id, NVSHMEM_CMP_GE, static_cast<uint64_t>(r - 2));
    // Fresh data for this round.
    const uint32_t mine = round_base(c.seed, c.me, g.id, r);
    uint32_t* out = reinterpret_cast<uint32_t*>(stage);
    for (size_t i = g.rank; i < words; i += g.size) out[i] = data_word(mine, i);
    group_sync(g);
    char* dst = c.recv + (static_cast<size_t>(g.id) * 2 + static_cast<size_t>(r % 2)) * c.bytes;
    Send::send(c, g, r, dst, stage);
    if (c.nbi) nvshmem_quiet();  // the stage is reused next round
    // The partner's data of this round.
    if (r % 2) {
      const uint64_t v = nvshmem_signal_wait_until(c.data_sig + g.id, NVSHMEM_CMP_GE, static_cast<uint64_t>(r));
      if (v != static_cast<uint64_t>(r) && v != static_cast<uint64_t>(r + 1)) {
        gputest::fail(c.f, kSignalWaitValue, g.id, r, static_cast<unsigned long long>(r), v);
      }
    } else {
      nvshmem_uint64_wait_until(c.data_sig + g.id, NVSHMEM_CMP_GE, static_cast<uint64_t>(r));
      const uint64_t v = nvshmem_signal_fetch(c.data_sig + g.id);
      if (v != static_cast<uint64_t>(r) && v != static_cast<uint64_t>(r + 1)) {
        gputest::fail(c.f, kSignalFetchValue, g.id, r, static_cast<unsigned long long>(r), v);
      }
    }
    const uint32_t theirs = round_base(c.seed, c.peer, g.id, r);
    const uint32_t* in = reinterpret_cast<const uint32_t*>(dst);
    for (size_t i = g.rank; i < words; i += g.size) {
      const uint32_t want = data_word(theirs, i);
      const uint32_t got = in[i];
      if (got != want) gputest::fail(c.f, kDataWord, static_cast<long long>(i), r, want, got);
    }
    group_sync(g);
    if (g.rank == 0) {
      nvshmem_quiet();  // the reads above are done before the partner may overwrite the buffer
      Send::ack(c, g, r);
    }
    if (g.id == 0 && g.rank == 0) gputest::note(c.progress, 0, static_cast<unsigned long long>(r));
  }
}

// ---- signal_op and signal_fetch ---------------------------------------------------------------------

enum PingCheck { kWaitReturn, kFetchAfterWait, kLocalSet, kLocalAdd, kPingChecks };
const char* const ping_check_names[] = {
    "nvshmem_signal_wait_until's return value",
    "nvshmem_signal_fetch after the wait",
    "nvshmem_signal_fetch after nvshmemx_signal_op(SET) on the local PE",
    "nvshmem_signal_fetch after nvshmemx_signal_op(ADD) on the local PE",
};

// One thread per PE. Turn k belongs to PE k % 2: it updates the other PE's signal (SET to a random
// value, or ADD a random amount), and the other PE waits for exactly the resulting value. Then
// each PE does the same on its own signal.
__global__ void ping_pong(uint64_t* sig, uint64_t* local_sig, int me, int peer, int turns, uint64_t seed, Failure* f,
                          unsigned long long* progress) {
  uint64_t expect[2] = {0, 0};  // the value of each PE's signal (both start at 0)
  for (int k = 0; k < turns; ++k) {
    const bool set = (k / 64) % 2 == 0;  // 64 turns of SET, 64 of ADD, ...
    const uint64_t x = hash64(seed + static_cast<uint64_t>(k));
    const int receiver = 1 - k % 2;
    expect[receiver] = set ? x : expect[receiver] + x;
    if (receiver != me) {
      nvshmemx_signal_op(sig, x, set ? NVSHMEM_SIGNAL_SET : NVSHMEM_SIGNAL_ADD, peer);
    } else {
      const uint64_t v = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, expect[me]);
      if (v != expect[me]) gputest::fail(f, kWaitReturn, k, k, expect[me], v);
      const uint64_t w = nvshmem_signal_fetch(sig);
      if (w != expect[me]) gputest::fail(f, kFetchAfterWait, k, k, expect[me], w);
    }
    gputest::note(progress, 0, static_cast<unsigned long long>(k + 1));
  }
  // The local PE: SET, then ADDs, each checked with signal_fetch.
  uint64_t v = hash64(seed ^ 0x10ca1);
  nvshmemx_signal_op(local_sig, v, NVSHMEM_SIGNAL_SET, me);
  nvshmem_quiet();
  uint64_t w = nvshmem_signal_fetch(local_sig);
  if (w != v) gputest::fail(f, kLocalSet, 0, 0, v, w);
  for (int k = 0; k < 100; ++k) {
    const uint64_t d = hash64(seed ^ static_cast<uint64_t>(k) ^ 0xadd);
    nvshmemx_signal_op(local_sig, d, NVSHMEM_SIGNAL_ADD, me);
    nvshmem_quiet();
    v += d;
    w = nvshmem_signal_fetch(local_sig);
    if (w != v) gputest::fail(f, kLocalAdd, k, 0, v, w);
  }
}

__host__ __device__ inline uint64_t storm_operand(uint64_t seed, uint64_t id) {
  return hash64(seed ^ (id << 8)) >> 20;  // 44 bits: 2 x 8192 of them do not wrap
}

// Every thread of both PEs adds its operand to the signal on PE `tgt`.
__global__ void add_storm(uint64_t* sig, int tgt, int me, uint64_t seed) {
  const uint64_t tid = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t id = static_cast<uint64_t>(me) * gridDim.x * blockDim.x + tid;
  nvshmemx_signal_op(sig, storm_operand(seed, id), NVSHMEM_SIGNAL_ADD, tgt);
}

// ---- host -------------------------------------------------------------------------------------------

struct Buffers {
  char* recv = nullptr;
  char* stage = nullptr;
  uint64_t* data_sig = nullptr;
  uint64_t* ack_sig = nullptr;
  uint64_t* flag_src = nullptr;
  size_t max_groups = 0;
  size_t capacity = 0;  // bytes of recv (2 buffers per group); stage holds half of it
};

struct Config {
  const char* api;
  int scope;
  int nbi;
  int sig_op;
  int blocks, threads;
  size_t bytes;
  int rounds;
};

template <class Send>
void run_exchange(const Buffers& b, const Config& cfg, gputest::Failures& failures, gputest::Progress& progress,
                  uint64_t seed) {
  const int me = nvshmem_my_pe();
  const int groups = groups_of(cfg.scope, cfg.blocks, cfg.threads);
  MP_CHECK(static_cast<size_t>(groups) <= b.max_groups && 2 * static_cast<size_t>(groups) * cfg.bytes <= b.capacity,
           "configuration too large for the buffers");
  CUDA_CHECK(cudaMemset(b.data_sig, 0, b.max_groups * sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(b.ack_sig, 0, b.max_groups * sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(b.recv, 0, 2 * static_cast<size_t>(groups) * cfg.bytes));
  failures.reset();
  progress.clear();
  gputest::sync_and_barrier();
  Channel c{cfg.scope, cfg.nbi,    cfg.sig_op, cfg.rounds, cfg.bytes, b.recv,         b.stage,       b.data_sig,
            b.ack_sig, b.flag_src, me,         1 - me,     seed,      failures.dev(), progress.dev()};
  char what[256];
  std::snprintf(what, sizeof what, "%s%s, %s scope, %s, %d groups of %zu bytes, %d rounds", cfg.api,
                cfg.nbi ? " (_nbi)" : "", gputest::scope_name(cfg.scope),
                cfg.sig_op == NVSHMEM_SIGNAL_SET ? "NVSHMEM_SIGNAL_SET" : "NVSHMEM_SIGNAL_ADD", groups, cfg.bytes,
                cfg.rounds);
  exchange<Send><<<cfg.blocks, cfg.threads>>>(c);
  CUDA_CHECK(cudaGetLastError());
  gputest::sync_or_die(
      0, 60, [&] { return std::string(what) + " (group 0 finished round " + std::to_string(progress.read(0)) + ")"; });
  gputest::sync_and_barrier();
  const gputest::Failure fl = failures.get();
  if (fl.count != 0) {
    if (fl.check == kDataWord) {
      const int warps = (cfg.threads + 31) / 32;
      const int group = cfg.scope == kThread ? fl.block * cfg.threads + fl.thread
                        : cfg.scope == kWarp ? fl.block * warps + fl.thread / 32
                                             : fl.block;
      const bool older = fl.actual == data_word(round_base(seed, 1 - me, group, fl.round - 2), fl.index);
      MP_CHECK(false,
               "%s: %llu words wrong after the signal; the first: round %lld, group %d, byte %lld: 0x%08llx, expected "
               "0x%08llx%s",
               what, fl.count, fl.round, group, 4 * fl.index, fl.actual, fl.expected,
               older ? " (the word of the round before last: the signal overtook the data)" : "");
    }
    MP_CHECK(false, "%s: %llu checks failed; the first: %s, round %lld: %llu (expected %llu)", what, fl.count,
             check_names[fl.check], fl.round, fl.actual, fl.expected);
  }
}

// Under the network scale (gputest::net_scale), where every put_signal and acknowledgement is a network
// round trip: 4 rounds (both buffers, each reused once, both waits), thread scope with 8 threads per
// block (16 groups instead of 128), warp scope with 48 threads (a full warp and a partial one of 16).
// There each API runs a third of the 12 combinations of scope, _nbi and operation, chosen by its place
// in the list (`sweep_no`), so that every combination still runs for about a third of the types and
// every type at every scope: the whole product of 25 APIs took over 600 s across the network.
template <class A>
void sweep(const Buffers& b, gputest::Failures& failures, gputest::Progress& progress, uint64_t* round, int sweep_no) {
  const bool share = gputest::net_scale() > 1;
  int combination = 0;
  for (int scope = kThread; scope <= kBlock; ++scope) {
    for (int nbi = 0; nbi < 2; ++nbi) {
      for (int sig_op : {NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD}) {
        const bool chosen = !share || (combination + sweep_no) % 3 == 0;
        ++combination;
        if (!chosen) continue;
        Config cfg{A::name, scope, nbi, sig_op, 2, 0, 0, gputest::scaled(6, 4)};
        if (scope == kThread) {
          cfg.threads = gputest::scaled(64, 8);
          cfg.bytes = 512;
        } else if (scope == kWarp) {
          cfg.threads = gputest::net_scale() > 1 ? 48 : 112;  // 3 (or 1) full warps and a partial one of 16 threads
          cfg.bytes = 4096;
        } else {
          cfg.threads = 256;
          cfg.bytes = 32768;
        }
        run_exchange<PutSignal<A>>(b, cfg, failures, progress, mp::seed_of(0, ++*round, 0x5167));
      }
    }
  }
  if (nvshmem_my_pe() == 0) {
    std::printf("gpu_signal: %s: thread, warp, block, _nbi, SET and ADD%s\n", A::name,
                share ? " (a third of the combinations)" : "");
  }
}

void check_ping(const gputest::Failure& fl, const char* what) {
  MP_CHECK(fl.count == 0, "%s: %llu checks failed; the first: %s at turn %lld: %llu, expected %llu", what, fl.count,
           ping_check_names[fl.check], fl.index, fl.actual, fl.expected);
}

// ---- NVSHMEM's put6_signal names --------------------------------------------------------------------

// NVSHMEM's header declares nvshmemx_put6_signal{,_nbi}_{warp,block} (for put16): they move
// nelems * 0 bytes and update the signal. One block of 64 threads; variant 0..3 = warp, nbi_warp,
// block, nbi_block (warp 0 calls the warp forms); SET for the plain forms, ADD for the _nbi ones.
__global__ void put6_signal(void* dst, const void* src, size_t nelems, uint64_t* sig, int variant, int peer) {
  const uint64_t value = static_cast<uint64_t>(variant) + 1;
  const int op = variant % 2 == 0 ? NVSHMEM_SIGNAL_SET : NVSHMEM_SIGNAL_ADD;
  if (variant == 0 && threadIdx.x < 32) nvshmemx_put6_signal_warp(dst, src, nelems, sig, value, op, peer);
  if (variant == 1 && threadIdx.x < 32) nvshmemx_put6_signal_nbi_warp(dst, src, nelems, sig, value, op, peer);
  if (variant == 2) nvshmemx_put6_signal_block(dst, src, nelems, sig, value, op, peer);
  if (variant == 3) nvshmemx_put6_signal_nbi_block(dst, src, nelems, sig, value, op, peer);
  if (threadIdx.x == 0) {
    nvshmem_quiet();
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, value);  // the peer's signal; its data came before it
  }
}

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe();
  MP_CHECK(nvshmem_n_pes() == 2, "run with 2 PEs");
  Buffers b;
  b.max_groups = 1024;
  b.capacity = 8u << 20;  // recv: groups x 2 x bytes
  b.recv = static_cast<char*>(nvshmem_malloc(b.capacity));
  b.data_sig = static_cast<uint64_t*>(nvshmem_malloc(b.max_groups * sizeof(uint64_t)));
  b.ack_sig = static_cast<uint64_t*>(nvshmem_malloc(b.max_groups * sizeof(uint64_t)));
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
  MP_CHECK(b.recv && b.data_sig && b.ack_sig && sig, "nvshmem_malloc failed");
  CUDA_CHECK(cudaMalloc(&b.stage, b.capacity / 2));
  CUDA_CHECK(cudaMalloc(&b.flag_src, b.max_groups * sizeof(uint64_t)));
  uint64_t round = 0;
  {
    gputest::Failures failures;
    gputest::Progress progress;

    // Every API, scope, _nbi and operation, a few rounds each.
    int sweep_no = 0;
#define GSHMEMT_SWEEP(NAME, TYPE) sweep<Typed_##NAME>(b, failures, progress, &round, sweep_no++);
    GSHMEMT_TYPES_RMA(GSHMEMT_SWEEP)
#if defined(GSHMEMI_HAVE_CUDA_FP16)
    GSHMEMT_TYPES_RMA_FP16(GSHMEMT_SWEEP)
#endif
#undef GSHMEMT_SWEEP
    sweep<Sized_8>(b, failures, progress, &round, sweep_no++);
    sweep<Sized_16>(b, failures, progress, &round, sweep_no++);
    sweep<Sized_32>(b, failures, progress, &round, sweep_no++);
    sweep<Sized_64>(b, failures, progress, &round, sweep_no++);
    sweep<Sized_128>(b, failures, progress, &round, sweep_no++);
    sweep<Mem>(b, failures, progress, &round, sweep_no++);

    // Long runs of large blocks: a signal that overtakes its data shows. Under the network scale the
    // rounds are divided by it (at least 8), with every group and block size kept.
    {
      const int r1500 = gputest::scaled(1500, 8), r2000 = gputest::scaled(2000, 8);
      const int r3000 = gputest::scaled(3000, 8);
      Config c1{Mem::name, kBlock, 0, NVSHMEM_SIGNAL_SET, 4, 512, 256u << 10, r1500};
      run_exchange<PutSignal<Mem>>(b, c1, failures, progress, mp::seed_of(0, ++round, 1));
      Config c2{Typed_uint64::name, kBlock, 1, NVSHMEM_SIGNAL_ADD, 8, 1024, 128u << 10, r1500};
      run_exchange<PutSignal<Typed_uint64>>(b, c2, failures, progress, mp::seed_of(0, ++round, 2));
      Config c3{Sized_128::name, kWarp, 0, NVSHMEM_SIGNAL_ADD, 8, 256, 16u << 10, r3000};
      run_exchange<PutSignal<Sized_128>>(b, c3, failures, progress, mp::seed_of(0, ++round, 3));
      Config c4{Typed_int::name, kWarp, 1, NVSHMEM_SIGNAL_SET, 8, 240, 8u << 10, r3000};
      run_exchange<PutSignal<Typed_int>>(b, c4, failures, progress, mp::seed_of(0, ++round, 4));
      Config c5{Typed_char::name, kThread, 0, NVSHMEM_SIGNAL_SET, 4, 128, 2048, r2000};
      run_exchange<PutSignal<Typed_char>>(b, c5, failures, progress, mp::seed_of(0, ++round, 5));
      Config c6{Sized_64::name, kThread, 1, NVSHMEM_SIGNAL_ADD, 4, 128, 1024, r2000};
      run_exchange<PutSignal<Sized_64>>(b, c6, failures, progress, mp::seed_of(0, ++round, 6));
      if (me == 0) std::printf("gpu_signal: long runs of large blocks at every scope\n");
    }

    // fence between two puts to the same PE, quiet before a flag.
    {
      // (_nbi: a quiet after each round, before the sources are reused; it plays no part in the order.)
      Config f1{"nvshmemx_putmem_nbi_warp + nvshmem_fence + nvshmemx_uint64_put_nbi_warp (flag)",
                kWarp,
                1,
                0,
                8,
                256,
                16u << 10,
                gputest::scaled(3000, 8)};
      run_exchange<FenceThenPut>(b, f1, failures, progress, mp::seed_of(0, ++round, 7));
      Config q1{"nvshmem_putmem_nbi + nvshmem_quiet + nvshmem_uint64_p (flag)",
                kThread,
                0,
                0,
                4,
                128,
                2048,
                gputest::scaled(2000, 8)};
      run_exchange<QuietThenP>(b, q1, failures, progress, mp::seed_of(0, ++round, 8));
      if (me == 0) std::printf("gpu_signal: fence orders two puts; quiet completes puts before a flag\n");
    }

    // signal_op and signal_fetch.
    {
      failures.reset();
      progress.clear();
      CUDA_CHECK(cudaMemset(sig, 0, 2 * sizeof(uint64_t)));
      gputest::sync_and_barrier();
      // Under the network scale 128 turns: 64 of SET, then 64 of ADD.
      const int turns = gputest::scaled(2048, 128);
      ping_pong<<<1, 1>>>(sig, sig + 1, me, 1 - me, turns, mp::seed_of(0, ++round, 9), failures.dev(), progress.dev());
      CUDA_CHECK(cudaGetLastError());
      gputest::sync_or_die(0, 30, [&] {
        return "signal_op/signal_wait_until ping-pong (at turn " + std::to_string(progress.read(0)) + ")";
      });
      gputest::sync_and_barrier();
      check_ping(failures.get(), "nvshmemx_signal_op (SET, ADD) ping-pong with nvshmem_signal_wait_until(EQ)");
      // The storm: 8 blocks of 1024 threads per PE; under the network scale 2 blocks of 64 (128 per PE).
      const int storm_blocks = gputest::scaled(8, 2), storm_threads = gputest::scaled(1024, 64);
      const uint64_t storm_ids = 2ull * static_cast<uint64_t>(storm_blocks) * static_cast<uint64_t>(storm_threads);
      for (int tgt = 0; tgt < 2; ++tgt) {
        const uint64_t seed = mp::seed_of(0, ++round, 10);
        const uint64_t start = hash64(seed) >> 8;
        if (me == tgt) CUDA_CHECK(cudaMemcpy(sig, &start, sizeof start, cudaMemcpyHostToDevice));
        gputest::sync_and_barrier();
        add_storm<<<storm_blocks, storm_threads>>>(sig, tgt, me, seed);
        CUDA_CHECK(cudaGetLastError());
        gputest::sync_or_die(0, 30, [] { return std::string("nvshmemx_signal_op(ADD) from every thread"); });
        gputest::sync_and_barrier();
        if (me == tgt) {
          uint64_t want = start;
          for (uint64_t id = 0; id < storm_ids; ++id) want += storm_operand(seed, id);
          uint64_t got = 0;
          CUDA_CHECK(cudaMemcpy(&got, sig, sizeof got, cudaMemcpyDeviceToHost));
          MP_CHECK(got == want,
                   "nvshmemx_signal_op(NVSHMEM_SIGNAL_ADD) by %llu threads of both PEs on PE %d's signal: %llu, "
                   "expected %llu",
                   static_cast<unsigned long long>(storm_ids), tgt, static_cast<unsigned long long>(got),
                   static_cast<unsigned long long>(want));
        }
        gputest::sync_and_barrier();
      }
      if (me == 0) std::printf("gpu_signal: signal_op SET/ADD, signal_fetch, signal_wait_until, local and remote\n");
    }
    // put6_signal: the signal and no data.
    {
      const char* names[] = {"nvshmemx_put6_signal_warp", "nvshmemx_put6_signal_nbi_warp", "nvshmemx_put6_signal_block",
                             "nvshmemx_put6_signal_nbi_block"};
      const size_t nelems = 512, span = 4 * nelems;  // put16 would move 2 * nelems bytes
      std::vector<unsigned char> got(span);
      for (int variant = 0; variant < 4; ++variant) {
        CUDA_CHECK(cudaMemset(b.recv, 0xab, span));
        CUDA_CHECK(cudaMemset(b.stage, 0xcd, span));
        CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
        gputest::sync_and_barrier();
        put6_signal<<<1, 64>>>(b.recv, b.stage, nelems, sig, variant, 1 - me);
        CUDA_CHECK(cudaGetLastError());
        gputest::sync_or_die(0, 30, [&] { return std::string(names[variant]) + ": waiting for the peer's signal"; });
        gputest::sync_and_barrier();
        CUDA_CHECK(cudaMemcpy(got.data(), b.recv, span, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < span; ++i) {
          MP_CHECK(got[i] == 0xab,
                   "%s(nelems = %zu) changed byte %zu of the destination to 0x%02x (NVSHMEM moves "
                   "nelems * 0 bytes)",
                   names[variant], nelems, i, got[i]);
        }
      }
      if (me == 0) std::printf("gpu_signal: put6_signal (warp, block, _nbi): the signal, no data\n");
    }
    gputest::sync_and_barrier();
  }
  CUDA_CHECK(cudaFree(b.stage));
  CUDA_CHECK(cudaFree(b.flag_src));
  nvshmem_free(sig);
  nvshmem_free(b.ack_sig);
  nvshmem_free(b.data_sig);
  nvshmem_free(b.recv);
  if (me == 0) std::printf("gpu_signal: every check passed on 2 PEs%s\n", gputest::scale_note().c_str());
  nvshmem_finalize();
  return 0;
}
