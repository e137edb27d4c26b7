// Misuse of teams and collectives, one case per run (argv[1]); the test driver checks the exit status
// and the messages. Every case here expects an error return (or -1) with a message, not the end of the
// job: after the call each PE checks that the job still works and prints "PE <n>: <case> survived"
// with the value returned.
#include <nvshmemx.h>

#include <string>

#include "mp_test.h"

namespace {

int g_me = -1, g_npes = 0;

void survived(const char* c, int rc) {
  nvshmem_barrier_all();  // the job still works
  std::printf("PE %d: %s survived (returned %d)\n", g_me, c, rc);
  std::fflush(stdout);
}

// After a refused reduction the next valid one works: the sum of (PE + 1) over WORLD.
void reduce_still_works(const char* c, int* buf) {
  int* src = buf + 1000;
  int* dest = buf + 1010;
  src[0] = g_me + 1;
  const int rc = nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dest, src, 1);
  MP_CHECK(rc == 0, "%s: a valid nvshmem_int_sum_reduce afterwards returned %d", c, rc);
  MP_CHECK(dest[0] == g_npes * (g_npes + 1) / 2, "%s: a valid nvshmem_int_sum_reduce afterwards gave %d, expected %d",
           c, dest[0], g_npes * (g_npes + 1) / 2);
}

// A split that must fail on every PE alike and give NVSHMEM_TEAM_INVALID; then a valid split works.
void bad_split(const char* c, int start, int stride, int size) {
  nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
  const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t);
  MP_CHECK(rc != 0, "%s: nvshmem_team_split_strided(WORLD, %d, %d, %d) returned 0", c, start, stride, size);
  MP_CHECK(t == NVSHMEM_TEAM_INVALID, "%s: the failed split gave team %d, not NVSHMEM_TEAM_INVALID", c, t);
  nvshmem_team_t ok = NVSHMEM_TEAM_INVALID;
  MP_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, g_npes, nullptr, 0, &ok) == 0,
           "%s: a valid split after it failed", c);
  MP_CHECK(nvshmem_barrier(ok) == 0, "%s: a barrier on the valid split failed", c);
  nvshmem_team_destroy(ok);
  survived(c, rc);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  nvshmem_init();
  g_me = nvshmem_my_pe();
  g_npes = nvshmem_n_pes();
  int* buf = static_cast<int*>(nvshmem_malloc(4096));
  MP_CHECK(buf, "nvshmem_malloc failed");

  if (c == "barrier_invalid_team") {  // a team id that was never made
    const int rc = nvshmem_barrier(12345);
    MP_CHECK(rc != 0, "nvshmem_barrier(12345) returned 0");
    survived(c.c_str(), rc);
  } else if (c == "barrier_team_invalid") {
    const int rc = nvshmem_barrier(NVSHMEM_TEAM_INVALID);
    MP_CHECK(rc != 0, "nvshmem_barrier(NVSHMEM_TEAM_INVALID) returned 0");
    survived(c.c_str(), rc);
  } else if (c == "sync_invalid_team") {
    const int rc = nvshmem_team_sync(777);
    MP_CHECK(rc != 0, "nvshmem_team_sync(777) returned 0");
    survived(c.c_str(), rc);
  } else if (c == "split_out_of_range") {  // run with 4 PEs: 0 + (3 - 1) * 2 = 4 is past PE 3
    bad_split(c.c_str(), 0, 2, 3);
  } else if (c == "split_start_out_of_range") {  // start = the parent's size
    bad_split(c.c_str(), g_npes, 1, 1);
  } else if (c == "split_stride_zero") {
    bad_split(c.c_str(), 0, 0, 2);
  } else if (c == "split_stride_negative") {
    bad_split(c.c_str(), 1, -1, 2);
  } else if (c == "split_size_zero") {
    bad_split(c.c_str(), 0, 1, 0);
  } else if (c == "split_mismatch") {  // PE 0 asks for 2 PEs, the others for 1
    nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
    const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, g_me == 0 ? 2 : 1, nullptr, 0, &t);
    MP_CHECK(rc != 0, "split_strided with different sizes on different PEs returned 0");
    MP_CHECK(t == NVSHMEM_TEAM_INVALID, "the mismatched split gave team %d", t);
    survived(c.c_str(), rc);
  } else if (c == "split_2d_bad_xrange") {
    nvshmem_team_t x = static_cast<nvshmem_team_t>(-12345), y = static_cast<nvshmem_team_t>(-12345);
    const int rc = nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 0, nullptr, 0, &x, nullptr, 0, &y);
    MP_CHECK(rc != 0, "nvshmem_team_split_2d with xrange 0 returned 0");
    MP_CHECK(x == NVSHMEM_TEAM_INVALID && y == NVSHMEM_TEAM_INVALID, "split_2d with xrange 0 gave teams %d, %d", x, y);
    survived(c.c_str(), rc);
  } else if (c == "destroy_world") {  // nothing is destroyed; WORLD still works
    nvshmem_team_destroy(NVSHMEM_TEAM_WORLD);
    MP_CHECK(nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) == g_npes, "NVSHMEM_TEAM_WORLD was destroyed");
    MP_CHECK(nvshmem_barrier(NVSHMEM_TEAM_WORLD) == 0, "a barrier on NVSHMEM_TEAM_WORLD after destroying it");
    survived(c.c_str(), 0);
  } else if (c == "translate_out_of_range") {  // -1, no error needed
    nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
    MP_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, g_npes, nullptr, 0, &t) == 0, "split");
    const int r[] = {nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, g_npes, NVSHMEM_TEAM_WORLD),
                     nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, -1, NVSHMEM_TEAM_WORLD),
                     nvshmem_team_translate_pe(t, g_npes, NVSHMEM_TEAM_WORLD),
                     nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, 1 << 30, t),
                     nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, 0, 12345),
                     nvshmem_team_translate_pe(12345, 0, NVSHMEM_TEAM_WORLD)};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; ++i) {
      MP_CHECK(r[i] == -1, "translate_pe case %zu returned %d, not -1", i, r[i]);
    }
    nvshmem_team_destroy(t);
    survived(c.c_str(), -1);
  } else if (c == "bcast_bad_root") {  // root 17 of a team of 2
    const int rc = nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, buf, buf + 512, 4, 17);
    MP_CHECK(rc != 0, "nvshmem_int_broadcast with PE_root 17 returned 0");
    survived(c.c_str(), rc);
  } else if (c == "bcast_negative_root") {
    const int rc = nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, buf, buf + 512, 16, -1);
    MP_CHECK(rc != 0, "nvshmem_broadcastmem with PE_root -1 returned 0");
    survived(c.c_str(), rc);
  } else if (c == "not_member") {  // PE 1 uses the id of a team that only PE 0 is in
    nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
    MP_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &t) == 0, "split");
    if (g_me == 0) nvshmem_int_p(buf, t, 1);
    nvshmem_barrier_all();
    int rc = 0;
    if (g_me == 1) {
      const nvshmem_team_t theirs = buf[0];
      rc = nvshmem_barrier(theirs);
      MP_CHECK(rc != 0, "nvshmem_barrier on team %d, of which PE 1 is no member, returned 0", theirs);
      const int rc2 = nvshmem_int_broadcast(theirs, buf + 8, buf + 512, 1, 0);
      MP_CHECK(rc2 != 0, "nvshmem_int_broadcast on team %d, of which PE 1 is no member, returned 0", theirs);
    }
    nvshmem_team_destroy(t);
    survived(c.c_str(), rc);
  } else if (c == "uid_bad_index") {  // index 5 in a team of 2
    nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    if (g_me == 0) {
      nvshmemx_team_uniqueid_t id = NVSHMEMX_TEAM_UNIQUEID_INITIALIZER;
      MP_CHECK(nvshmemx_team_get_uniqueid(&id) == 0, "nvshmemx_team_get_uniqueid");
      for (int pe = 0; pe < g_npes; ++pe) nvshmem_uint64_p(reinterpret_cast<uint64_t*>(buf), id, pe);
    }
    nvshmem_barrier_all();
    cfg.uniqueid = *reinterpret_cast<uint64_t*>(buf);
    nvshmem_team_t t = static_cast<nvshmem_team_t>(-12345);
    const int rc = nvshmemx_team_init(&t, &cfg, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, 2, 5);
    MP_CHECK(rc != 0, "nvshmemx_team_init with index 5 of 2 returned 0");
    MP_CHECK(t == NVSHMEM_TEAM_INVALID, "nvshmemx_team_init with index 5 of 2 gave team %d", t);
    survived(c.c_str(), rc);
  } else if (c == "reduce_invalid_team") {  // a team id that was never made, host and on-stream forms
    const int rc = nvshmem_int_sum_reduce(12345, buf, buf + 512, 4);
    MP_CHECK(rc != 0, "nvshmem_int_sum_reduce(12345) returned 0");
    const int rc2 = nvshmemx_int_sum_reducescatter_on_stream(777, buf, buf + 512, 4, nullptr);
    MP_CHECK(rc2 != 0, "nvshmemx_int_sum_reducescatter_on_stream(777) returned 0");
    reduce_still_works(c.c_str(), buf);
    survived(c.c_str(), rc);
  } else if (c == "reduce_team_invalid") {
    double* d = reinterpret_cast<double*>(buf);
    const int rc = nvshmem_double_max_reducescatter(NVSHMEM_TEAM_INVALID, d, d + 256, 2);
    MP_CHECK(rc != 0, "nvshmem_double_max_reducescatter(NVSHMEM_TEAM_INVALID) returned 0");
    reduce_still_works(c.c_str(), buf);
    survived(c.c_str(), rc);
  } else if (c == "reduce_destroyed_team") {  // the id of a team destroyed before the call
    nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
    MP_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, g_npes, nullptr, 0, &t) == 0, "split");
    MP_CHECK(nvshmem_int_sum_reduce(t, buf, buf + 512, 4) == 0, "a reduce on the team before it was destroyed");
    nvshmem_team_destroy(t);
    std::printf("PE %d: destroyed team %d\n", g_me, t);
    std::fflush(stdout);
    const int rc = nvshmem_int_sum_reduce(t, buf, buf + 512, 4);
    MP_CHECK(rc != 0, "nvshmem_int_sum_reduce on destroyed team %d returned 0", t);
    reduce_still_works(c.c_str(), buf);
    survived(c.c_str(), rc);
  } else if (c == "reduce_partial_overlap") {  // dest 2 after or 3 before the source: refused; in place works
    const int rc = nvshmem_int_max_reduce(NVSHMEM_TEAM_WORLD, buf + 2, buf, 4);
    MP_CHECK(rc != 0, "nvshmem_int_max_reduce with dest = source + 2 (4 elements) returned 0");
    const int rc2 = nvshmem_int_max_reduce(NVSHMEM_TEAM_WORLD, buf, buf + 3, 4);
    MP_CHECK(rc2 != 0, "nvshmem_int_max_reduce with dest = source - 3 (4 elements) returned 0");
    for (int i = 0; i < 4; ++i) buf[64 + i] = g_me * 10 + i;
    nvshmem_barrier_all();
    const int rc3 = nvshmem_int_max_reduce(NVSHMEM_TEAM_WORLD, buf + 64, buf + 64, 4);  // in place
    MP_CHECK(rc3 == 0, "nvshmem_int_max_reduce in place (dest == source) returned %d", rc3);
    for (int i = 0; i < 4; ++i) {
      MP_CHECK(buf[64 + i] == (g_npes - 1) * 10 + i, "in-place max: element %d is %d, expected %d", i, buf[64 + i],
               (g_npes - 1) * 10 + i);
    }
    reduce_still_works(c.c_str(), buf);
    survived(c.c_str(), rc);
  } else if (c == "reducescatter_overlap") {  // overlap of any kind, dest == source included, is refused
    const int rc = nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, buf + 1, buf, 4);
    MP_CHECK(rc != 0, "nvshmem_int_sum_reducescatter with dest = source + 1 returned 0");
    const int rc2 = nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, buf + 100, buf + 100, 4);
    MP_CHECK(rc2 != 0, "nvshmem_int_sum_reducescatter with dest == source returned 0");
    // dest inside the last member's block of the source
    const int rc3 =
        nvshmemx_int_sum_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, buf + 200 + 4 * g_npes - 1, buf + 200, 4, nullptr);
    MP_CHECK(rc3 != 0, "nvshmemx_int_sum_reducescatter_on_stream with dest in the source's last block returned 0");
    reduce_still_works(c.c_str(), buf);
    survived(c.c_str(), rc);
  } else if (c == "mismatched_arguments") {  // run with NVSHMEM_ENABLE_ERROR_CHECKS=1: each PE passes its own size
    int* src = buf + 1000;
    int* dest = buf + 1100;
    const int rc = nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, dest, src, 2 + static_cast<size_t>(g_me));
    MP_CHECK(rc != 0, "nvshmem_int_fcollect with a count that differs between PEs returned 0");
    const int rc2 = nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, dest, src, 2, g_me);
    MP_CHECK(rc2 != 0, "nvshmem_int_broadcast with a root that differs between PEs returned 0");
    const int rc3 = g_me == 0 ? nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dest, src, 2)
                              : nvshmem_int_max_reduce(NVSHMEM_TEAM_WORLD, dest, src, 2);
    MP_CHECK(rc3 != 0, "sum on PE 0 and max on the others returned 0");
    reduce_still_works(c.c_str(), buf);  // matching arguments pass the check
    survived(c.c_str(), rc);
  } else if (c == "reduce_dest_not_in_heap") {  // local memory as dest, then as source
    long local[8] = {};
    long* sym = reinterpret_cast<long*>(buf);
    const int rc = nvshmem_long_min_reduce(NVSHMEM_TEAM_WORLD, local, sym, 4);
    MP_CHECK(rc != 0, "nvshmem_long_min_reduce into a stack array returned 0");
    const int rc2 = nvshmem_long_min_reducescatter(NVSHMEM_TEAM_WORLD, sym, local, 2);
    MP_CHECK(rc2 != 0, "nvshmem_long_min_reducescatter from a stack array returned 0");
    reduce_still_works(c.c_str(), buf);
    survived(c.c_str(), rc);
  } else {
    if (g_me == 0) std::fprintf(stderr, "mp_team_errors: unknown case '%s'\n", c.c_str());
    nvshmem_finalize();
    return 2;
  }
  nvshmem_free(buf);
  nvshmem_finalize();
  return 0;
}
