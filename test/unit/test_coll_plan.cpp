// The GPU backend's plan of a host or on-stream collective (coll/plan.h): one block, a grid between
// team synchronisations, or copies for the copy engines then a barrier.
#include <gtest/gtest.h>

#include "coll/plan.h"

namespace gshmem {
namespace {

using detail::CollOp;

char g_dest[1];  // stands for a symmetric object: the plan only computes addresses from it
char g_src[1];

CollCall call_of(CollOp op, uint64_t bytes, int root = 0) {
  CollCall c;
  c.op = op;
  c.team = 5;
  c.root = root;
  c.dest = g_dest;
  c.src = g_src;
  c.bytes = bytes;
  return c;
}

CollTuning tuning() {
  CollTuning t;
  t.grid_min_bytes = 256 << 10;
  t.ce_min_bytes = 4 << 20;
  t.max_blocks = 32;
  t.threads = 512;
  t.fcollect_threads = 256;
  return t;
}

TEST(CollPlan, SmallCollectiveIsOneBlockThatDoesItAll) {
  const CollPlan p = plan_collective(call_of(CollOp::kFcollect, 1000), 4, 1, tuning());
  ASSERT_EQ(p.count, 1);
  EXPECT_FALSE(p.copy_engines);
  EXPECT_TRUE(p.copies.empty());
  EXPECT_EQ(p.launches[0].blocks, 1u);
  EXPECT_EQ(p.launches[0].threads, 256u);  // NVSHMEM_FCOLLECT_NTHREADS
  EXPECT_EQ(p.launches[0].call.op, CollOp::kFcollect);
  EXPECT_EQ(p.launches[0].call.grid_work, 0);
}

TEST(CollPlan, LargeDataMovesOnAGridThenABarrier) {
  // 4 members x 1 MiB = 4 MiB moved per PE: 32 blocks (one per 64 KiB, at most max_blocks).
  const CollPlan p = plan_collective(call_of(CollOp::kAlltoall, 1 << 20), 4, 0, tuning());
  ASSERT_EQ(p.count, 2);
  EXPECT_FALSE(p.copy_engines);
  EXPECT_EQ(p.launches[0].call.grid_work, 1);
  EXPECT_EQ(p.launches[0].blocks, 32u);
  EXPECT_EQ(p.launches[0].call.dest, g_dest);
  EXPECT_EQ(p.launches[1].call.op, CollOp::kBarrier);
  EXPECT_EQ(p.launches[1].call.team, 5);
  EXPECT_EQ(p.launches[1].blocks, 1u);
  // 2 members x 160 KiB = 320 KiB: 5 blocks.
  const CollPlan q = plan_collective(call_of(CollOp::kFcollect, 160 << 10), 2, 0, tuning());
  ASSERT_EQ(q.count, 2);
  EXPECT_EQ(q.launches[0].blocks, 5u);
}

TEST(CollPlan, GridReductionsSyncFirstAndReduceScatterEndsWithASync) {
  const CollPlan r = plan_collective(call_of(CollOp::kReduce, 8 << 20), 2, 0, tuning());
  ASSERT_EQ(r.count, 3);
  EXPECT_FALSE(r.copy_engines);  // reductions combine values: never the copy engines
  EXPECT_EQ(r.launches[0].call.op, CollOp::kSync);
  EXPECT_EQ(r.launches[1].call.grid_work, 1);
  EXPECT_EQ(r.launches[2].call.op, CollOp::kBarrier);
  const CollPlan s = plan_collective(call_of(CollOp::kReducescatter, 8 << 20), 2, 0, tuning());
  ASSERT_EQ(s.count, 3);
  EXPECT_EQ(s.launches[2].call.op, CollOp::kSync);
}

TEST(CollPlan, BroadcastRootCopiesToEveryMemberThenAllBarrier) {
  const uint64_t b = 4 << 20;
  const CollPlan root = plan_collective(call_of(CollOp::kBroadcast, b, 2), 4, 2, tuning());
  EXPECT_TRUE(root.copy_engines);
  ASSERT_EQ(root.copies.size(), 4u);  // the root's own dest too (dest != src)
  const int order[] = {3, 0, 1, 2};   // starting after the root, so roots spread their first copies
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(root.copies[k].member, order[k]);
    EXPECT_EQ(root.copies[k].dest, g_dest);
    EXPECT_EQ(root.copies[k].src, g_src);
    EXPECT_EQ(root.copies[k].bytes, b);
  }
  ASSERT_EQ(root.count, 1);
  EXPECT_EQ(root.launches[0].call.op, CollOp::kBarrier);
  EXPECT_EQ(root.launches[0].call.team, 5);
  const CollPlan other = plan_collective(call_of(CollOp::kBroadcast, b, 2), 4, 0, tuning());
  EXPECT_TRUE(other.copy_engines);
  EXPECT_TRUE(other.copies.empty());
  ASSERT_EQ(other.count, 1);
  EXPECT_EQ(other.launches[0].call.op, CollOp::kBarrier);
  // In place at the root: no copy onto itself.
  CollCall in_place = call_of(CollOp::kBroadcast, b, 1);
  in_place.src = g_dest;
  EXPECT_EQ(plan_collective(in_place, 3, 1, tuning()).copies.size(), 2u);
}

TEST(CollPlan, FcollectAndAlltoallCopyBlocksToTheirPlaces) {
  const uint64_t b = 5 << 20;
  const CollPlan f = plan_collective(call_of(CollOp::kFcollect, b), 3, 1, tuning());
  ASSERT_EQ(f.copies.size(), 3u);
  for (const CollCopy& c : f.copies) {
    EXPECT_EQ(c.dest, g_dest + b);  // block 1 of every member's dest
    EXPECT_EQ(c.src, g_src);
    EXPECT_EQ(c.bytes, b);
  }
  const CollPlan a = plan_collective(call_of(CollOp::kAlltoall, b), 3, 2, tuning());
  ASSERT_EQ(a.copies.size(), 3u);
  for (const CollCopy& c : a.copies) {
    EXPECT_EQ(c.dest, g_dest + 2 * b);       // block 2 of member j's dest ...
    EXPECT_EQ(c.src, g_src + c.member * b);  // ... from block j of this PE's source
  }
  EXPECT_EQ(a.copies[0].member, 0);
  EXPECT_EQ(a.copies[2].member, 2);
}

TEST(CollPlan, ThresholdsAndTheirOff) {
  CollTuning t = tuning();
  EXPECT_FALSE(plan_collective(call_of(CollOp::kFcollect, (4 << 20) - 1), 2, 0, t).copy_engines);
  EXPECT_TRUE(plan_collective(call_of(CollOp::kFcollect, 4 << 20), 2, 0, t).copy_engines);
  EXPECT_FALSE(plan_collective(call_of(CollOp::kFcollect, 64 << 20), 1, 0, t).copy_engines);  // alone
  t.ce_min_bytes = 0;
  const CollPlan p = plan_collective(call_of(CollOp::kFcollect, 64 << 20), 2, 0, t);
  EXPECT_FALSE(p.copy_engines);
  EXPECT_EQ(p.count, 2);
  t.grid_min_bytes = 0;
  EXPECT_EQ(plan_collective(call_of(CollOp::kFcollect, 64 << 20), 2, 0, t).count, 1);
  t.ce_min_bytes = 1;  // every size but 0 bytes, which the one-block kernel completes
  const CollPlan z = plan_collective(call_of(CollOp::kAlltoall, 0), 2, 0, t);
  EXPECT_FALSE(z.copy_engines);
  EXPECT_EQ(z.count, 1);
  EXPECT_EQ(z.launches[0].call.op, CollOp::kAlltoall);
}

}  // namespace
}  // namespace gshmem
