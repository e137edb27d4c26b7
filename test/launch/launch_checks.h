// The checks every launcher test runs once the library is up: PE queries, the node team, a heap
// allocation, a put/get ring among the PEs of this node, barriers, finalize.
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define LAUNCH_CHECK(cond, ...)                                                               \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "launch_test: PE %d: check failed: %s: ", nvshmem_my_pe(), #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                      \
      std::fprintf(stderr, "\n");                                                             \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

inline double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// `expect_node_pes` < 0: not checked. `started_ms`: when main began, for the init time.
inline int launch_checks(int expect_node_pes, double started_ms, const char* how) {
  nvshmem_barrier_all();
  const double init_ms = now_ms() - started_ms;
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int node_me = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), node_n = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
  LAUNCH_CHECK(me >= 0 && me < npes, "my_pe %d of %d", me, npes);
  LAUNCH_CHECK(node_me >= 0 && node_me < node_n, "node rank %d of %d", node_me, node_n);
  if (expect_node_pes >= 0)
    LAUNCH_CHECK(node_n == expect_node_pes, "%d PEs on this node, expected %d", node_n, expect_node_pes);
  int* buf = static_cast<int*>(nvshmem_malloc(64 * sizeof(int)));
  LAUNCH_CHECK(buf != nullptr, "nvshmem_malloc failed");
  // The node team's PEs, in its order; their heaps are mapped here (with NVSHMEM_DISABLE_P2P only this PE's).
  const char* no_p2p = std::getenv("NVSHMEM_DISABLE_P2P");
  const bool p2p = !(no_p2p && no_p2p[0] && std::strchr("1yYtT", no_p2p[0]));
  std::vector<int> local;
  for (int i = 0; i < node_n; ++i)
    local.push_back(nvshmem_team_translate_pe(NVSHMEMX_TEAM_NODE, i, NVSHMEM_TEAM_WORLD));
  LAUNCH_CHECK(local[node_me] == me, "the node team's order");
  for (int pe = 0; pe < npes; ++pe) {
    const bool on_node = std::find(local.begin(), local.end(), pe) != local.end();
    const bool mapped = nvshmem_ptr(buf, pe) != nullptr;
    LAUNCH_CHECK(mapped == (on_node && (p2p || pe == me)), "PE %d is %s here, and %s this node", pe,
                 mapped ? "mapped" : "not mapped", on_node ? "on" : "not on");
  }
  const int next = local[(node_me + 1) % node_n], prev = local[(node_me + node_n - 1) % node_n];
  std::vector<int> block(64);
  for (int i = 0; i < 64; ++i) block[i] = me * 1000 + i;
  nvshmem_int_put(buf, block.data(), 64, next);
  nvshmem_barrier_all();
  std::vector<int> got(64);
  nvshmem_int_get(got.data(), buf, 64, me);
  for (int i = 0; i < 64; ++i) LAUNCH_CHECK(got[i] == prev * 1000 + i, "element %d from PE %d is %d", i, prev, got[i]);
  nvshmem_int_get(got.data(), buf, 64, next);  // the next PE holds this PE's block
  for (int i = 0; i < 64; ++i) LAUNCH_CHECK(got[i] == me * 1000 + i, "element %d read back from PE %d", i, next);
  nvshmem_barrier_all();
  nvshmem_free(buf);
  std::printf("launch_test: PE %d of %d ok (%s), node rank %d of %d, init %.1f ms\n", me, npes, how, node_me, node_n,
              init_ms);
  std::fflush(stdout);
  nvshmem_finalize();
  return 0;
}
