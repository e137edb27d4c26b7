// Misuse and failures, one case per run (argv[1]); the test driver checks the exit status and the
// messages. Each case says what it expects.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "mp_test.h"

int main(int argc, char** argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  if (c == "before_init") {  // fatal: "called before nvshmem_init"
    char x = 0;
    nvshmem_putmem(&x, &x, 1, 0);
    return 0;
  }
  if (c == "late") {  // the last PE arrives after the bootstrap timeout: the others name it
    if (std::getenv("GSHMEM_RUN_RANK") &&
        std::atoi(std::getenv("GSHMEM_RUN_RANK")) == std::atoi(std::getenv("GSHMEM_RUN_SIZE")) - 1) {
      sleep(30);  // gshmrun stops us long before
    }
  }
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  char* buf = static_cast<char*>(nvshmem_malloc(4096));
  char local[64] = {};

  if (c == "invalid_pe") {  // fatal on PE 0: PE npes is out of range
    if (me == 0) nvshmem_putmem(buf, local, 8, npes);
    nvshmem_barrier_all();
  } else if (c == "zero_bytes_invalid_pe") {  // fatal on PE 0: nothing would move, but the PE is no PE
    if (me == 0) nvshmem_getmem(nullptr, nullptr, 0, npes + 3);
    nvshmem_barrier_all();
  } else if (c == "negative_count") {  // fatal on PE 0: -2 elements, as a size_t, overflow the bytes
    if (me == 0)
      nvshmem_int_put(reinterpret_cast<int*>(buf), reinterpret_cast<int*>(local), static_cast<size_t>(-2), 1);
    nvshmem_barrier_all();
  } else if (c == "negative_wait_count") {  // fatal on PE 0
    if (me == 0)
      nvshmem_int_wait_until_all(reinterpret_cast<int*>(buf), static_cast<size_t>(-1), nullptr, NVSHMEM_CMP_EQ, 0);
    nvshmem_barrier_all();
  } else if (c == "zero_elements_invalid_pe") {  // fatal on PE 0
    if (me == 0) nvshmem_int_iput(nullptr, nullptr, 1, 1, 0, -2);
    nvshmem_barrier_all();
  } else if (c == "negative_pe") {
    if (me == 0) (void)nvshmem_int_g(reinterpret_cast<int*>(buf), -1);
    nvshmem_barrier_all();
  } else if (c == "non_heap") {  // fatal on PE 0: destination on the stack
    if (me == 0) nvshmem_putmem(local, local + 8, 8, 1 % npes);
    nvshmem_barrier_all();
  } else if (c == "past_heap_end") {  // fatal: the range runs past the mapped heap
    if (me == 0) nvshmem_getmem(local, buf, 1ull << 40, 0);
    nvshmem_barrier_all();
  } else if (c == "bad_free") {  // errors, nothing freed, and the job goes on to exit 0
    nvshmem_free(buf + 8);       // inside a block
    nvshmem_free(local);         // not in the heap
    char* other = static_cast<char*>(nvshmem_malloc(100));
    nvshmem_free(other);
    nvshmem_free(other);  // twice
    // The heap is intact: buf is still live and usable.
    nvshmem_putmem(buf, local, 64, (me + 1) % npes);
    nvshmem_barrier_all();
    nvshmem_free(buf);
    std::printf("PE %d: bad_free survived\n", me);
  } else if (c == "realloc_bad") {  // NULL on every PE, with a message; nothing freed; no hang
    void* p = nvshmem_realloc(me == 0 ? buf + 8 : buf, 256);  // the PEs disagree
    MP_CHECK(p == nullptr, "a mismatched realloc must fail on every PE");
    p = nvshmem_realloc(buf + 8, 256);  // the same on every PE, but not the start of a block
    MP_CHECK(p == nullptr, "realloc of a pointer into a block must fail");
    nvshmem_putmem(buf, local, 64, (me + 1) % npes);  // buf is still live
    nvshmem_barrier_all();
    std::printf("PE %d: realloc_bad survived\n", me);
  } else if (c == "malloc_mismatch") {  // NULL on every PE, with a message; no hang
    void* p = nvshmem_malloc(me == 0 ? 1024 : 2048);
    MP_CHECK(p == nullptr, "a mismatched malloc must fail on every PE");
    void* q = nvshmem_malloc(1024);  // the heap still works
    MP_CHECK(q != nullptr, "malloc after the mismatch");
    std::printf("PE %d: mismatch reported\n", me);
  } else if (c == "exhausted") {  // run with NVSHMEM_MAX_MEMORY_PER_GPU=64M
    void* big = nvshmem_malloc(40u << 20);
    MP_CHECK(big != nullptr, "40 MiB fits under the 64 MiB limit");
    void* p = nvshmem_malloc(40u << 20);
    MP_CHECK(p == nullptr, "another 40 MiB exceeds the limit: NULL");
    void* huge = nvshmem_malloc(128u << 20);
    MP_CHECK(huge == nullptr, "128 MiB can never fit: NULL");
    void* q = nvshmem_malloc(1u << 20);
    MP_CHECK(q != nullptr, "the heap still works after an exhausted malloc");
    std::printf("PE %d: exhaustion reported\n", me);
  } else if (c == "crash") {  // PE 1 dies by SIGSEGV; gshmrun names it and stops the rest
    nvshmem_barrier_all();
    if (me == 1 % npes) raise(SIGSEGV);
    nvshmem_barrier_all();        // the others wait here until gshmrun stops them
  } else if (c == "exit_code") {  // PE 1 exits with status 3 without finalizing
    if (me == 1 % npes) std::exit(3);
    nvshmem_barrier_all();
  } else if (c == "global_exit") {  // every PE ends with status 5
    if (me == 0) nvshmem_global_exit(5);
    nvshmem_barrier_all();
    sleep(30);
  } else if (c == "bad_cmp") {  // fatal on PE 0: not a comparison constant
    if (me == 0) nvshmem_int_wait_until(reinterpret_cast<int*>(buf), 42, 0);
    nvshmem_barrier_all();
  } else if (c == "bad_sig_op") {  // fatal on PE 0: not a signal operation
    if (me == 0) nvshmemx_signal_op(reinterpret_cast<uint64_t*>(buf), 1, 3, 1 % npes);
    nvshmem_barrier_all();
  } else if (c == "put_signal_non_heap") {  // fatal on PE 0: the signal on the stack
    uint64_t stack_sig = 0;
    if (me == 0) nvshmem_putmem_signal(buf, local, 8, &stack_sig, 1, NVSHMEM_SIGNAL_SET, 1 % npes);
    nvshmem_barrier_all();
  } else if (c == "put_signal_nbi_non_heap") {  // fatal on PE 0: the signal on the stack
    uint64_t stack_sig = 0;
    if (me == 0) {
      nvshmem_uint64_put_signal_nbi(reinterpret_cast<uint64_t*>(buf), reinterpret_cast<uint64_t*>(local), 1, &stack_sig,
                                    1, NVSHMEM_SIGNAL_ADD, 1 % npes);
    }
    nvshmem_barrier_all();
  } else if (c == "put_signal_misaligned") {  // fatal on PE 0: the signal 4 bytes into a word
    if (me == 0) {
      nvshmem_putmem_signal(buf + 64, local, 8, reinterpret_cast<uint64_t*>(buf + 4), 1, NVSHMEM_SIGNAL_SET, 1 % npes);
    }
    nvshmem_barrier_all();
  } else if (c == "put_signal_nbi_misaligned") {  // fatal on PE 0: the signal at an odd address
    if (me == 0) {
      nvshmem_put64_signal_nbi(buf + 64, local, 1, reinterpret_cast<uint64_t*>(buf + 9), 1, NVSHMEM_SIGNAL_ADD,
                               1 % npes);
    }
    nvshmem_barrier_all();
  } else if (c == "put_signal_bad_op") {  // fatal on PE 0: 11 is not a signal operation
    if (me == 0) nvshmem_putmem_signal(buf + 64, local, 8, reinterpret_cast<uint64_t*>(buf), 1, 11, 1 % npes);
    nvshmem_barrier_all();
  } else if (c == "put_signal_nbi_bad_op") {  // fatal on PE 0: 0 is not a signal operation
    if (me == 0) {
      nvshmem_uint64_put_signal_nbi(reinterpret_cast<uint64_t*>(buf + 64), reinterpret_cast<uint64_t*>(local), 1,
                                    reinterpret_cast<uint64_t*>(buf), 1, 0, 1 % npes);
    }
    nvshmem_barrier_all();
  } else if (c == "signal_fetch_non_heap") {  // fatal on PE 0: the signal on the stack
    uint64_t stack_sig = 0;
    if (me == 0) (void)nvshmem_signal_fetch(&stack_sig);
    nvshmem_barrier_all();
  } else if (c == "signal_wait_non_heap") {  // fatal on PE 0: the signal on the stack
    uint64_t stack_sig = 0;
    if (me == 0) (void)nvshmem_signal_wait_until(&stack_sig, NVSHMEM_CMP_EQ, 0);
    nvshmem_barrier_all();
  } else if (c == "signal_wait_bad_cmp") {  // fatal on PE 0: not a comparison constant
    if (me == 0) (void)nvshmem_signal_wait_until(reinterpret_cast<uint64_t*>(buf), 42, 0);
    nvshmem_barrier_all();
  } else if (c == "atomic_invalid_pe") {  // fatal on PE 0
    if (me == 0) nvshmem_int_atomic_add(reinterpret_cast<int*>(buf), 1, npes + 3);
    nvshmem_barrier_all();
  } else if (c == "atomic_non_heap") {  // fatal on PE 0: the target is on the stack
    long stack_word = 0;
    if (me == 0) (void)nvshmem_long_atomic_fetch(&stack_word, 0);
    nvshmem_barrier_all();
  } else if (c == "atomic_misaligned") {  // fatal on PE 0: a 4-byte atomic at an odd address
    if (me == 0) nvshmem_int_atomic_inc(reinterpret_cast<int*>(buf + 1), 0);
    nvshmem_barrier_all();
  } else if (c == "wait_non_heap") {  // fatal on PE 0: ivars on the stack
    int stack_ivar = 0;
    if (me == 0) nvshmem_int_wait_until(&stack_ivar, NVSHMEM_CMP_EQ, 1);
    nvshmem_barrier_all();
  } else if (c == "zero_stride") {  // fatal on PE 0
    if (me == 0) nvshmem_int_iput(reinterpret_cast<int*>(buf), reinterpret_cast<int*>(local), 0, 1, 4, 0);
    nvshmem_barrier_all();
  } else if (c == "huge_stride") {  // fatal on PE 0: element 1 lies 2^64 bytes past element 0
    if (me == 0) {
      nvshmem_int_iput(reinterpret_cast<int*>(buf), reinterpret_cast<int*>(local), ptrdiff_t{1} << 62, 1, 2, 1 % npes);
    }
    nvshmem_barrier_all();
  } else if (c == "slow_wait") {  // PE 0 waits ~2.5 s for PE 1: warned (GSHMEM_WAIT_WARN=1), then done
    int* flag = reinterpret_cast<int*>(buf);
    nvshmem_barrier_all();
    if (me == 1 % npes) {
      usleep(2500 * 1000);
      nvshmem_int_atomic_set(flag, 7, 0);
    }
    if (me == 0) {
      nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 7);
      std::printf("PE 0: the slow wait ended\n");
    }
    nvshmem_barrier_all();
  } else if (c == "local_past_heap_end" || c == "local_past_heap_end_get") {
    // fatal on PE 0: the local buffer starts 16 bytes before the end of the mapped heap (run with
    // NVSHMEM_SYMMETRIC_SIZE=4M; the heap's base is aligned far beyond 4 MiB) and runs 48 bytes past it
    char* end = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(buf) & ~uintptr_t{(4u << 20) - 1}) + (4u << 20);
    if (me == 0 && c == "local_past_heap_end") nvshmem_putmem(buf, end - 16, 64, 1 % npes);
    if (me == 0 && c == "local_past_heap_end_get") nvshmem_getmem(end - 16, buf, 64, 1 % npes);
    nvshmem_barrier_all();
  } else if (c == "register_symmetric") {  // NULL / nonzero with messages on every PE; the job goes on
    // The CPU backend has no GPU memory to map: registration fails (without a collective step).
    void* alias = nvshmemx_buffer_register_symmetric(local, sizeof local, 0);
    MP_CHECK(alias == nullptr, "registering on the CPU backend must fail, not return %p", alias);
    // Neither a heap block nor a stack buffer was returned by registration.
    MP_CHECK(nvshmemx_buffer_unregister_symmetric(buf, 4096) != 0, "unregistering a heap block must fail");
    MP_CHECK(nvshmemx_buffer_unregister_symmetric(local, sizeof local) != 0, "unregistering a stack buffer must fail");
    nvshmem_putmem(buf, local, 64, (me + 1) % npes);  // the heap still works
    nvshmem_barrier_all();
    std::printf("PE %d: register_symmetric survived\n", me);
  } else if (c == "finalize_twice") {  // a warning that says so, then exit 0
    nvshmem_barrier_all();
    nvshmem_finalize();
  } else if (c == "late") {
    nvshmem_barrier_all();
  } else {
    std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
    return 2;
  }
  nvshmem_finalize();
  return 0;
}
