// gshmem's native host API: what the NVSHMEM names of nvshmem.h forward to (one line each), and what
// bindings for other languages call. The device API is gshmem/device/device.cuh.
//
//   init, finalize, my_pe, n_pes, global_exit               lifecycle and queries
//   malloc, calloc, align, realloc, free, ptr, register_buffer, unregister_buffer   symmetric memory
//   putmem, getmem, put<T>, get<T>, iput<T>, iget<T>, p<T>, g<T>, p_on_stream<T>, g_on_stream<T>
//   atomic_fetch<T>, atomic_set, atomic_swap, atomic_compare_swap, atomic_[fetch_]{inc,add,and,or,xor}
//   put_signal, signal_op, signal_fetch, signal_wait_until(_on_stream)
//   wait_until<T>, test<T>, wait and wait_on_stream (every _all/_any/_some/_vector form)
//   quiet, fence, flush, barrier_all, sync_all and their _on_stream forms
//   region_start, region_stop, region_is_active                 RMA regions (hints for the transports)
//   team_my_pe, team_n_pes, team_translate_pe, team_split_strided, team_split_2d, team_config,
//   team_destroy, team_uniqueid, team_init
//   barrier, team_sync, broadcastmem, fcollectmem, alltoallmem, reduce, reducescatter (and typed forms)
//   cumodule_init, culibrary_init and their _finalize
//
// Vocabulary: team ids, comparisons and signal operations are those of gshmem/constants.h; statuses are
// gshmem_status_t; a CUDA stream is a gshmem::Stream. How an operation completes is a Mode: kBlocking,
// kNbi (by the next quiet), or on(stream) (in order on a CUDA stream).
//
// Errors: a call that returns a Status or a pointer reports failure that way (nullptr, or the status),
// after a message naming the call. The others end the job with a message naming the call, as NVSHMEM's
// void functions do: an invalid PE or team, a pointer outside the symmetric heap, a size that overflows.
// Every call takes an optional last argument `api`, the name its messages give it (a binding passes its
// own); nullptr names the native call ("gshmem::host::putmem").
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "gshmem/constants.h"
#include "gshmem/detail/export.h"
#include "gshmem/status.h"
#include "gshmem/types.hpp"

namespace gshmem {
namespace host {

using Status = gshmem_status_t;

// How a one-sided operation or a collective completes.
struct Mode {
  Completion completion;
  Stream stream;
};
inline constexpr Mode kBlocking{Completion::kBlocking, nullptr};
inline constexpr Mode kNbi{Completion::kNbi, nullptr};
inline constexpr Mode on(Stream stream) { return Mode{Completion::kStream, stream}; }

// ---- Errors ----

// How misuse found before a call had any effect (an invalid PE, a pointer outside the heap, a call before
// init) is reported: kExit ends the job with the message (NVSHMEM's way; the default), kThrow throws
// gshmem::UsageError (gshmem/error.hpp) out of the call. Process-wide; bindings for other languages choose
// kThrow. Failures during an operation (a peer that is gone, a transfer that failed) end the job either way.
enum class ErrorMode { kExit, kThrow };
GSHMEM_API void set_error_mode(ErrorMode mode);
// The last error message this thread's calls wrote (why a call returned a failed Status), or "".
GSHMEM_API const char* last_error();

// ---- Lifecycle and queries ----

// How the PEs find each other at init. kLauncher: from the launcher's environment (gshmrun, mpirun,
// srun, or the NVSHMEM_BOOTSTRAP setting); kUniqueId: rank `rank` of `size` PEs that share the ID
// `unique_id` (of `unique_id_bytes` bytes, from make_unique_id on one PE); kMpiComm: the MPI
// communicator `*mpi_comm` (an MPI_Comm*).
struct InitAttr {
  enum class Bootstrap { kLauncher, kUniqueId, kMpiComm };
  Bootstrap bootstrap = Bootstrap::kLauncher;
  const void* unique_id = nullptr;
  size_t unique_id_bytes = 0;
  int rank = -1, size = -1;
  void* mpi_comm = nullptr;
  int cuda_device = -1;  // bind this CUDA device at init (-1: the current one, when a context is current)
};
// Starts a session of this PE (collective). After finalize, init starts a new session of the same job
// (the same launcher's job, or the same unique ID; a new unique ID or an MPI communicator starts another
// job): every PE of the job must initialise again before any of them ends.
GSHMEM_API Status init(const InitAttr& attr = InitAttr(), const char* api = nullptr);
// An ID for a job whose rank 0 this process is (before init): `bytes` bytes into `id`.
GSHMEM_API Status make_unique_id(void* id, size_t bytes, const char* api = nullptr);
// Ends the session (collective): the heap, teams and GPU resources are released; the process stays in
// the job until it exits, so that init may follow.
GSHMEM_API Status finalize(const char* api = nullptr);
// 0: not initialised; 1: initialised, the GPU not yet bound; 2: ready.
GSHMEM_API int init_state();
// Binds the GPU now where init left it for later (state 1: no device named, no CUDA context current; the first
// allocation or barrier would bind it): the device named at init, else the current one, else the node rank
// modulo the visible GPUs. Collective. Nothing to do in state 2 or on the CPU backend.
GSHMEM_API Status bind_gpu(const char* api = nullptr);
// Whether PEs share this PE's GPU (NVSHMEM's "limited MPG").
GSHMEM_API bool gpu_shared();
// The CUDA device ordinal of this PE's GPU; -1 on the CPU backend and before the GPU is bound.
GSHMEM_API int cuda_device();
GSHMEM_API int my_pe();
GSHMEM_API int n_pes();
// Ends every PE of the job with exit status `status`.
[[noreturn]] GSHMEM_API void global_exit(int status);

// ---- Symmetric memory (collective: every PE makes the same calls with the same arguments) ----

GSHMEM_API void* malloc(size_t bytes, const char* api = nullptr);
GSHMEM_API void* calloc(size_t count, size_t bytes, const char* api = nullptr);
GSHMEM_API void* align(size_t alignment, size_t bytes, const char* api = nullptr);
GSHMEM_API void* realloc(void* ptr, size_t bytes, const char* api = nullptr);
GSHMEM_API void free(void* ptr, const char* api = nullptr);
// `pe`'s copy of `ptr` where this process maps it (same node, peer access), else nullptr. Not collective.
GSHMEM_API void* ptr(const void* ptr, int pe);
// The multicast address of `ptr` for `team`: nullptr (gshmem makes no multicast objects).
GSHMEM_API void* mc_ptr(int team, const void* ptr);
// Maps the program's CUDA VMM buffer into the symmetric address space (GPU backend); its alias there.
GSHMEM_API void* register_buffer(void* buf, size_t bytes, int flags = 0, const char* api = nullptr);
GSHMEM_API Status unregister_buffer(void* alias, size_t bytes, const char* api = nullptr);

// ---- Remote memory access ----

// The bytes of `n` elements of `elem` bytes; a count whose bytes overflow ends the job.
GSHMEM_API size_t elem_bytes(size_t n, size_t elem, const char* api = nullptr);
// `bytes` from local `src` to `pe`'s copy of symmetric `dest` (put), or from `pe`'s copy of symmetric
// `src` into local `dest` (get).
GSHMEM_API void putmem(void* dest, const void* src, size_t bytes, int pe, Mode mode = kBlocking,
                       const char* api = nullptr);
GSHMEM_API void getmem(void* dest, const void* src, size_t bytes, int pe, Mode mode = kBlocking,
                       const char* api = nullptr);
// Strided: element i (of `elem` bytes) from src + i * sst * elem to dest + i * dst * elem.
GSHMEM_API void iputmem(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe,
                        Mode mode = kBlocking, const char* api = nullptr);
GSHMEM_API void igetmem(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe,
                        Mode mode = kBlocking, const char* api = nullptr);
// `bytes` (1, 2, 4 or 8) of `value`, taken now, stored into `pe`'s `dest` in order on `stream`.
GSHMEM_API void p_on_stream(void* dest, const void* value, size_t bytes, int pe, Stream stream,
                            const char* api = nullptr);
// Waits on the calling thread for the work enqueued on `stream`.
GSHMEM_API void synchronize(Stream stream, const char* api = nullptr);

template <class T>
void put(T* dest, const T* src, size_t n, int pe, Mode mode = kBlocking, const char* api = nullptr) {
  putmem(dest, src, elem_bytes(n, sizeof(T), api), pe, mode, api);
}
template <class T>
void get(T* dest, const T* src, size_t n, int pe, Mode mode = kBlocking, const char* api = nullptr) {
  getmem(dest, src, elem_bytes(n, sizeof(T), api), pe, mode, api);
}
template <class T>
void iput(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe, Mode mode = kBlocking,
          const char* api = nullptr) {
  iputmem(dest, src, dst, sst, sizeof(T), n, pe, mode, api);
}
template <class T>
void iget(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe, Mode mode = kBlocking,
          const char* api = nullptr) {
  igetmem(dest, src, dst, sst, sizeof(T), n, pe, mode, api);
}
template <class T>
void p(T* dest, T value, int pe, const char* api = nullptr) {
  putmem(dest, &value, sizeof(T), pe, kBlocking, api);
}
template <class T>
T g(const T* src, int pe, const char* api = nullptr) {
  T value;
  getmem(&value, src, sizeof(T), pe, kBlocking, api);
  return value;
}
template <class T>
void p_on_stream(T* dest, T value, int pe, Stream stream, const char* api = nullptr) {
  p_on_stream(static_cast<void*>(dest), &value, sizeof(T), pe, stream, api);
}
// The value, once the stream's earlier work and the read are done.
template <class T>
T g_on_stream(const T* src, int pe, Stream stream, const char* api = nullptr) {
  T value;
  getmem(&value, src, sizeof(T), pe, on(stream), api);
  synchronize(stream, api);
  return value;
}

// ---- Atomics (on 4- and 8-byte types, and a half's 2; the words' bits, see gshmem/types.hpp) ----

// `op` on `pe`'s copy of the word at symmetric `dest`; the word's previous bits when `fetch`.
GSHMEM_API uint64_t atomic(void* dest, AmoOp op, int bytes, uint64_t operand, uint64_t compare, bool fetch, int pe,
                           const char* api = nullptr);
namespace internal {
template <class T>
uint64_t bits_of(T v) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomics operate on 2-, 4- or 8-byte types");
  uint64_t b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
T from_bits(uint64_t b) {
  T v;
  memcpy(static_cast<void*>(&v), &b, sizeof v);
  return v;
}
template <class T>
T amo(AmoOp op, T* dest, T operand, T compare, bool fetch, int pe, const char* api) {
  return from_bits<T>(
      atomic(dest, op, static_cast<int>(sizeof(T)), bits_of(operand), bits_of(compare), fetch, pe, api));
}
}  // namespace internal

template <class T>
T atomic_fetch(const T* dest, int pe, const char* api = nullptr) {
  return internal::amo<T>(AmoOp::kLoad, const_cast<T*>(dest), T{}, T{}, true, pe, api);
}
template <class T>
void atomic_set(T* dest, T value, int pe, const char* api = nullptr) {
  internal::amo<T>(AmoOp::kStore, dest, value, T{}, false, pe, api);
}
template <class T>
T atomic_swap(T* dest, T value, int pe, const char* api = nullptr) {
  return internal::amo<T>(AmoOp::kSwap, dest, value, T{}, true, pe, api);
}
template <class T>
T atomic_compare_swap(T* dest, T cond, T value, int pe, const char* api = nullptr) {
  return internal::amo<T>(AmoOp::kCompareSwap, dest, value, cond, true, pe, api);
}
// add and fetch_add: an integer's wraps, a float's or double's is a floating-point add (AmoOp::kFloatAdd; a
// half's: atomic() with kFloatAdd on its 2 bytes).
template <class T>
T atomic_fetch_add(T* dest, T value, int pe, const char* api = nullptr) {
  constexpr AmoOp op = std::is_floating_point<T>::value ? AmoOp::kFloatAdd : AmoOp::kAdd;
  return internal::amo<T>(op, dest, value, T{}, true, pe, api);
}
template <class T>
void atomic_add(T* dest, T value, int pe, const char* api = nullptr) {
  constexpr AmoOp op = std::is_floating_point<T>::value ? AmoOp::kFloatAdd : AmoOp::kAdd;
  internal::amo<T>(op, dest, value, T{}, false, pe, api);
}
template <class T>
T atomic_fetch_inc(T* dest, int pe, const char* api = nullptr) {
  return atomic_fetch_add<T>(dest, T{1}, pe, api);
}
template <class T>
void atomic_inc(T* dest, int pe, const char* api = nullptr) {
  atomic_add<T>(dest, T{1}, pe, api);
}
template <class T>
T atomic_fetch_and(T* dest, T value, int pe, const char* api = nullptr) {
  return internal::amo<T>(AmoOp::kAnd, dest, value, T{}, true, pe, api);
}
template <class T>
void atomic_and(T* dest, T value, int pe, const char* api = nullptr) {
  internal::amo<T>(AmoOp::kAnd, dest, value, T{}, false, pe, api);
}
template <class T>
T atomic_fetch_or(T* dest, T value, int pe, const char* api = nullptr) {
  return internal::amo<T>(AmoOp::kOr, dest, value, T{}, true, pe, api);
}
template <class T>
void atomic_or(T* dest, T value, int pe, const char* api = nullptr) {
  internal::amo<T>(AmoOp::kOr, dest, value, T{}, false, pe, api);
}
template <class T>
T atomic_fetch_xor(T* dest, T value, int pe, const char* api = nullptr) {
  return internal::amo<T>(AmoOp::kXor, dest, value, T{}, true, pe, api);
}
template <class T>
void atomic_xor(T* dest, T value, int pe, const char* api = nullptr) {
  internal::amo<T>(AmoOp::kXor, dest, value, T{}, false, pe, api);
}

// ---- Signals (sig_op: GSHMEM_SIGNAL_SET or GSHMEM_SIGNAL_ADD) ----

// `bytes` to `pe`'s `dest`, then the signal update on `pe`'s `sig`: the data lands first.
GSHMEM_API void put_signal(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal, int sig_op,
                           int pe, Mode mode = kBlocking, const char* api = nullptr);
GSHMEM_API void signal_op(uint64_t* sig, uint64_t signal, int sig_op, int pe, Mode mode = kBlocking,
                          const char* api = nullptr);
GSHMEM_API uint64_t signal_fetch(const uint64_t* sig, const char* api = nullptr);
// Waits until this PE's `sig` satisfies `cmp` (GSHMEM_CMP_*) with `value`; returns the value that did.
GSHMEM_API uint64_t signal_wait_until(uint64_t* sig, int cmp, uint64_t value, const char* api = nullptr);
GSHMEM_API void signal_wait_until_on_stream(uint64_t* sig, int cmp, uint64_t value, Stream stream,
                                            const char* api = nullptr);

// ---- Waits and tests on this PE's symmetric variables ----

// On ivars[0..n) (elements with status[i] != 0 excluded; status may be nullptr), each compared with
// values[i] (when `values` is set) or `value`, read as `kind`. block: wait until it holds, else test
// once. Returns: kAll 1 when it holds, else 0; kAny an index, or SIZE_MAX when none holds; kSome the
// number of indices stored in `indices`.
GSHMEM_API size_t wait(WaitKind kind, WaitFor what, bool block, const void* ivars, size_t n, size_t* indices,
                       const int* status, int cmp, const void* values, uint64_t value, const char* api = nullptr);
// Work enqueued on `stream` after the call waits until every element holds.
GSHMEM_API void wait_on_stream(WaitKind kind, const void* ivars, size_t n, const int* status, int cmp,
                               const void* values, uint64_t value, Stream stream, const char* api = nullptr);

template <class T>
constexpr WaitKind wait_kind() {
  static_assert(std::is_integral<T>::value && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8), "a WAIT type");
  constexpr int width = sizeof(T) == 2 ? 0 : (sizeof(T) == 4 ? 2 : 4);
  return static_cast<WaitKind>(width + (std::is_signed<T>::value ? 0 : 1));
}
template <class T>
uint64_t wait_bits(T value) {
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof value);
  return bits;
}
template <class T>
size_t wait(WaitFor what, bool block, const T* ivars, size_t n, size_t* indices, const int* status, int cmp,
            const T* values, T value, const char* api = nullptr) {
  return wait(wait_kind<T>(), what, block, ivars, n, indices, status, cmp, values, wait_bits(value), api);
}
template <class T>
void wait_on_stream(const T* ivars, size_t n, const int* status, int cmp, const T* values, T value, Stream stream,
                    const char* api = nullptr) {
  wait_on_stream(wait_kind<T>(), ivars, n, status, cmp, values, wait_bits(value), stream, api);
}
template <class T>
void wait_until(const T* ivar, int cmp, T value, const char* api = nullptr) {
  wait<T>(WaitFor::kAll, true, ivar, 1, nullptr, nullptr, cmp, nullptr, value, api);
}
template <class T>
bool test(const T* ivar, int cmp, T value, const char* api = nullptr) {
  return wait<T>(WaitFor::kAll, false, ivar, 1, nullptr, nullptr, cmp, nullptr, value, api) != 0;
}

// ---- Ordering and the barrier of all PEs ----

GSHMEM_API void quiet(const char* api = nullptr);
GSHMEM_API void fence(const char* api = nullptr);
// The source buffers of this PE's earlier non-blocking puts may be reused (NVSHMEM 3.7's flush); their
// arrival is not promised. The transports tell that a source was read only by completing the operation, so
// this completes them as quiet does.
GSHMEM_API void flush(const char* api = nullptr);
GSHMEM_API void barrier_all(const char* api = nullptr);
GSHMEM_API void sync_all(const char* api = nullptr);
GSHMEM_API void quiet_on_stream(Stream stream, const char* api = nullptr);
GSHMEM_API void flush_on_stream(Stream stream, const char* api = nullptr);
GSHMEM_API void barrier_all_on_stream(Stream stream, const char* api = nullptr);
GSHMEM_API void sync_all_on_stream(Stream stream, const char* api = nullptr);

// ---- Local buffers for RMA (core/local_buffers.h): this PE's memory outside the heap, named as the local side of
// operations to other PEs. Any local buffer works without it; the registrations are kept as NVSHMEM defines them.

GSHMEM_API Status register_local_buffer(void* addr, size_t bytes, const char* api = nullptr);
GSHMEM_API Status unregister_local_buffer(void* addr, const char* api = nullptr);
GSHMEM_API void unregister_local_buffers(const char* api = nullptr);

// ---- Queue pairs (gshmem/device/qp.cuh): `count` handles into a new array (malloc'd: free it after finalize);
// every one is GSHMEM_QP_DEFAULT (one channel per peer). INVALID_VALUE for a negative count or a null pointer.

GSHMEM_API Status qp_create(int count, int** handles, const char* api = nullptr);

// ---- RMA regions (core/regions.h): one at a time per PE; hints are GSHMEM_REGION_HINT_* bits ----

GSHMEM_API Status region_start(uint64_t* handle, uint32_t hints, const char* api = nullptr);
GSHMEM_API Status region_stop(uint64_t handle, const char* api = nullptr);
GSHMEM_API Status region_is_active(uint32_t hints, int* active, const char* api = nullptr);

// ---- Teams (ids: GSHMEM_TEAM_* and those the calls below make) ----

// This PE's index in `team`, and the team's size; -1 for an id that names no team this PE is in.
GSHMEM_API int team_my_pe(int team);
GSHMEM_API int team_n_pes(int team);
// The index in `dest` of member `pe` of `src`, or -1.
GSHMEM_API int team_translate_pe(int src, int pe, int dest);
// Collective over `parent`: the members start + i * stride (i < size, indices in the parent). *out is
// the new id, or GSHMEM_TEAM_INVALID on a PE that is not in it.
GSHMEM_API Status team_split_strided(int parent, int start, int stride, int size, const TeamConfig& config, int* out,
                                     const char* api = nullptr);
// Collective over `parent`: rows of `xrange` members (x teams) and the columns (y teams), in one pass.
GSHMEM_API Status team_split_2d(int parent, int xrange, const TeamConfig& xconfig, int* xteam,
                                const TeamConfig& yconfig, int* yteam, const char* api = nullptr);
GSHMEM_API Status team_config(int team, TeamConfig* out, const char* api = nullptr);
GSHMEM_API Status team_destroy(int team, const char* api = nullptr);
// A team from a unique ID (team_uniqueid on one PE, told to the others): this PE is member `index` of
// `npes`. Collective over the members.
GSHMEM_API Status team_uniqueid(uint64_t* id, const char* api = nullptr);
GSHMEM_API Status team_init(uint64_t id, int npes, int index, const TeamConfig& config, int* out,
                            const char* api = nullptr);

// ---- Collectives on a team (mode: kBlocking, or on(stream)) ----

GSHMEM_API Status barrier(int team, Mode mode = kBlocking, const char* api = nullptr);
GSHMEM_API Status team_sync(int team, Mode mode = kBlocking, const char* api = nullptr);
// `bytes` from the root's `src` (root: an index in the team) into every member's `dest`.
GSHMEM_API Status broadcastmem(int team, void* dest, const void* src, size_t bytes, int root, Mode mode = kBlocking,
                               const char* api = nullptr);
// Every member's `bytes` of `src`, in team order, into every member's `dest`.
GSHMEM_API Status fcollectmem(int team, void* dest, const void* src, size_t bytes, Mode mode = kBlocking,
                              const char* api = nullptr);
// Block j (of `bytes`) of member i's `src` into block i of member j's `dest`.
GSHMEM_API Status alltoallmem(int team, void* dest, const void* src, size_t bytes, Mode mode = kBlocking,
                              const char* api = nullptr);
// `n` elements of `type` combined with `op` over the members, into every member's `dest` (reduce), or
// member i's block i of n elements (reducescatter, whose `src` holds a block per member).
GSHMEM_API Status reduce(int team, ReduceType type, ReduceOp op, void* dest, const void* src, size_t n,
                         Mode mode = kBlocking, const char* api = nullptr);
GSHMEM_API Status reducescatter(int team, ReduceType type, ReduceOp op, void* dest, const void* src, size_t n,
                                Mode mode = kBlocking, const char* api = nullptr);

template <class T>
constexpr ReduceType reduce_type() {
  static_assert(std::is_arithmetic<T>::value && sizeof(T) <= 8, "not a reduction type");
  return std::is_floating_point<T>::value ? (sizeof(T) == 4 ? ReduceType::kF32 : ReduceType::kF64)
         : sizeof(T) == 1                 ? (std::is_signed<T>::value ? ReduceType::kI8 : ReduceType::kU8)
         : sizeof(T) == 2                 ? (std::is_signed<T>::value ? ReduceType::kI16 : ReduceType::kU16)
         : sizeof(T) == 4                 ? (std::is_signed<T>::value ? ReduceType::kI32 : ReduceType::kU32)
                                          : (std::is_signed<T>::value ? ReduceType::kI64 : ReduceType::kU64);
}
template <class T>
Status broadcast(int team, T* dest, const T* src, size_t n, int root, Mode mode = kBlocking,
                 const char* api = nullptr) {
  return broadcastmem(team, dest, src, elem_bytes(n, sizeof(T), api), root, mode, api);
}
template <class T>
Status fcollect(int team, T* dest, const T* src, size_t n, Mode mode = kBlocking, const char* api = nullptr) {
  return fcollectmem(team, dest, src, elem_bytes(n, sizeof(T), api), mode, api);
}
template <class T>
Status alltoall(int team, T* dest, const T* src, size_t n, Mode mode = kBlocking, const char* api = nullptr) {
  return alltoallmem(team, dest, src, elem_bytes(n, sizeof(T), api), mode, api);
}
template <class T>
Status reduce(int team, ReduceOp op, T* dest, const T* src, size_t n, Mode mode = kBlocking,
              const char* api = nullptr) {
  return reduce(team, reduce_type<T>(), op, dest, src, n, mode, api);
}
template <class T>
Status reducescatter(int team, ReduceOp op, T* dest, const T* src, size_t n, Mode mode = kBlocking,
                     const char* api = nullptr) {
  return reducescatter(team, reduce_type<T>(), op, dest, src, n, mode, api);
}

// ---- CUDA modules loaded through the driver API (CUmodule, CUlibrary): the device state in them ----

GSHMEM_API Status cumodule_init(void* module, const char* api = nullptr);
GSHMEM_API Status cumodule_finalize(void* module, const char* api = nullptr);
GSHMEM_API Status culibrary_init(void* library, const char* api = nullptr);
GSHMEM_API Status culibrary_finalize(void* library, const char* api = nullptr);

}  // namespace host
}  // namespace gshmem
