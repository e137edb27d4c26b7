// Where registered buffers go in a heap window: from the top down, aligned, into the highest gap
// that fits, above the heap's mapped part; what contains an address; how far the heap may grow.
#include <gtest/gtest.h>

#include "heap/registered_regions.h"

namespace gshmem {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kTop = 64 * kMiB;

TEST(RegisteredRegions, FirstBufferGoesToTheTop) {
  RegisteredRegions r;
  uint64_t off = 0;
  ASSERT_TRUE(r.place(4 * kMiB, 2 * kMiB, 8 * kMiB, kTop, &off));
  EXPECT_EQ(off, kTop - 4 * kMiB);
  EXPECT_EQ(r.lowest(kTop), kTop);  // nothing recorded yet
  r.add({off, 4 * kMiB, 4 * kMiB});
  EXPECT_EQ(r.lowest(kTop), kTop - 4 * kMiB);
  EXPECT_EQ(r.count(), 1u);
  EXPECT_EQ(r.span_bytes(), 4 * kMiB);
}

TEST(RegisteredRegions, PlacementIsAlignedDownward) {
  RegisteredRegions r;
  uint64_t off = 0;
  // The top is not a multiple of the alignment: the start rounds down.
  ASSERT_TRUE(r.place(2 * kMiB, 4 * kMiB, 0, 63 * kMiB, &off));
  EXPECT_EQ(off, 60 * kMiB);
  EXPECT_EQ(off % (4 * kMiB), 0u);
}

TEST(RegisteredRegions, BuffersGrowDownAndReuseTheHighestGap) {
  RegisteredRegions r;
  uint64_t a = 0, b = 0, c = 0, d = 0;
  ASSERT_TRUE(r.place(4 * kMiB, 2 * kMiB, 0, kTop, &a));
  r.add({a, 4 * kMiB, 4 * kMiB});
  ASSERT_TRUE(r.place(2 * kMiB, 2 * kMiB, 0, kTop, &b));
  r.add({b, 2 * kMiB, 2 * kMiB});
  EXPECT_EQ(a, kTop - 4 * kMiB);
  EXPECT_EQ(b, a - 2 * kMiB);
  // The first one goes: its gap at the top takes the next buffer that fits.
  ASSERT_TRUE(r.remove(a));
  EXPECT_FALSE(r.remove(a));
  ASSERT_TRUE(r.place(2 * kMiB, 2 * kMiB, 0, kTop, &c));
  EXPECT_EQ(c, kTop - 2 * kMiB);
  r.add({c, 2 * kMiB, 2 * kMiB});
  // One that does not fit the remaining 2 MiB gap goes below the lowest region.
  ASSERT_TRUE(r.place(4 * kMiB, 2 * kMiB, 0, kTop, &d));
  EXPECT_EQ(d, b - 4 * kMiB);
  // The heap grows up to the lowest region.
  r.add({d, 4 * kMiB, 4 * kMiB});
  EXPECT_EQ(r.lowest(kTop), d);
}

TEST(RegisteredRegions, NoRoomAboveTheFloor) {
  RegisteredRegions r;
  uint64_t off = 0;
  EXPECT_FALSE(r.place(8 * kMiB, 2 * kMiB, 60 * kMiB, kTop, &off));  // only 4 MiB above the heap
  EXPECT_FALSE(r.place(kTop + 2 * kMiB, 2 * kMiB, 0, kTop, &off));   // larger than the window
  EXPECT_FALSE(r.place(0, 2 * kMiB, 0, kTop, &off));
  ASSERT_TRUE(r.place(4 * kMiB, 2 * kMiB, 60 * kMiB, kTop, &off));
  EXPECT_EQ(off, 60 * kMiB);
  r.add({off, 4 * kMiB, 4 * kMiB});
  EXPECT_FALSE(r.place(2 * kMiB, 2 * kMiB, 60 * kMiB, kTop, &off));
}

TEST(RegisteredRegions, SameCallsGiveSameOffsets) {
  // Two PEs that make the same registrations in the same order place every buffer alike.
  RegisteredRegions a, b;
  uint64_t sizes[] = {2, 6, 4, 2, 8, 2};
  for (uint64_t s : sizes) {
    uint64_t oa = 0, ob = 0;
    ASSERT_TRUE(a.place(s * kMiB, 2 * kMiB, 16 * kMiB, kTop, &oa));
    ASSERT_TRUE(b.place(s * kMiB, 2 * kMiB, 16 * kMiB, kTop, &ob));
    ASSERT_EQ(oa, ob);
    a.add({oa, s * kMiB, s * kMiB});
    b.add({ob, s * kMiB, s * kMiB});
  }
}

TEST(RegisteredRegions, ContainingCoversOnlyTheRegisteredBytes) {
  RegisteredRegions r;
  EXPECT_EQ(r.containing(0, 1), nullptr);
  // 6 MiB of the window, of which the program registered 3 MiB.
  r.add({32 * kMiB, 6 * kMiB, 3 * kMiB});
  const auto* in = r.containing(32 * kMiB, 3 * kMiB);
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->offset, 32 * kMiB);
  EXPECT_NE(r.containing(33 * kMiB, kMiB), nullptr);
  EXPECT_EQ(r.containing(32 * kMiB, 3 * kMiB + 1), nullptr);  // runs past the registered bytes
  EXPECT_EQ(r.containing(35 * kMiB, 1), nullptr);
  EXPECT_EQ(r.containing(32 * kMiB - 1, 1), nullptr);
  EXPECT_EQ(r.containing(33 * kMiB, ~0ull), nullptr);  // no overflow
  EXPECT_NE(r.at(32 * kMiB), nullptr);
  EXPECT_EQ(r.at(33 * kMiB), nullptr);
}

}  // namespace
}  // namespace gshmem
