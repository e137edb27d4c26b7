// One part of gpu_wait (see gpu_wait.cuh); GSHMEMT_WAIT_PART is this part's number. Only the suites of
// this part's types are instantiated, so only their kernels are compiled.
#include "gpu_wait.cuh"

#ifndef GSHMEMT_WAIT_PART
#error "define GSHMEMT_WAIT_PART"
#endif

namespace {

// Runs the suite of W when it belongs to this part. `index` is W's position in GSHMEMT_TYPES_WAIT
// from 1 (the seed of its random plans, the same on both PEs).
template <bool Mine, class W>
void run_if_mine(const Shared& sh, uint64_t index) {
  if constexpr (Mine) suite<W>(sh, mp::seed_of(0, index, 0x3a17));
}

}  // namespace

#define GSHMEMT_CAT2(a, b) a##b
#define GSHMEMT_CAT(a, b) GSHMEMT_CAT2(a, b)
void GSHMEMT_CAT(gpu_wait_part, GSHMEMT_WAIT_PART)(const GpuWaitShared& sh) {
  constexpr int kBase = __COUNTER__;
#define GSHMEMT_RUN(NAME, TYPE)                                                       \
  {                                                                                   \
    constexpr int index = __COUNTER__ - kBase - 1;                                    \
    run_if_mine<index % kGpuWaitParts == GSHMEMT_WAIT_PART, W_##NAME>(sh, index + 1); \
  }
  GSHMEMT_TYPES_WAIT(GSHMEMT_RUN)
#undef GSHMEMT_RUN
}
