// The symmetric heap's allocator: determinism, alignment, coalescing, growth, invalid frees.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "heap/allocator.h"

namespace gshmem {
namespace {

TEST(Allocator, SameCallsGiveSameOffsets) {
  // Two allocators fed the same random sequence (as two PEs are) must agree on every offset.
  HeapAllocator a(512), b(512);
  a.grow(64 << 20);
  b.grow(64 << 20);
  std::mt19937_64 rng(12345);
  std::vector<uint64_t> live;
  for (int step = 0; step < 5000; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      size_t i = rng() % live.size();
      ASSERT_TRUE(a.free(live[i]));
      ASSERT_TRUE(b.free(live[i]));
      live.erase(live.begin() + static_cast<long>(i));
    } else {
      uint64_t size = 1 + rng() % 100000;
      uint64_t align = 1ull << (rng() % 14);
      uint64_t oa = 0, ob = 0;
      bool ra = a.allocate(size, align, &oa), rb = b.allocate(size, align, &ob);
      ASSERT_EQ(ra, rb);
      if (!ra) continue;
      ASSERT_EQ(oa, ob);
      ASSERT_EQ(oa % std::max<uint64_t>(align, 512), 0u);
      live.push_back(oa);
    }
  }
  EXPECT_EQ(a.used(), b.used());
}

TEST(Allocator, BlocksDoNotOverlap) {
  HeapAllocator a(512);
  a.grow(1 << 20);
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
  uint64_t off;
  for (uint64_t size : {1u, 511u, 512u, 513u, 4096u, 100u, 7777u}) {
    ASSERT_TRUE(a.allocate(size, 1, &off));
    blocks.push_back({off, size});
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (size_t j = i + 1; j < blocks.size(); ++j) {
      bool disjoint = blocks[i].first + blocks[i].second <= blocks[j].first ||
                      blocks[j].first + blocks[j].second <= blocks[i].first;
      EXPECT_TRUE(disjoint) << i << " and " << j;
    }
  }
}

TEST(Allocator, FreeCoalescesNeighbours) {
  HeapAllocator a(512);
  a.grow(4096);
  uint64_t x, y, z, w;
  ASSERT_TRUE(a.allocate(1024, 1, &x));
  ASSERT_TRUE(a.allocate(1024, 1, &y));
  ASSERT_TRUE(a.allocate(1024, 1, &z));
  ASSERT_TRUE(a.allocate(1024, 1, &w));
  EXPECT_FALSE(a.allocate(1, 1, &x)) << "the heap is full";
  ASSERT_TRUE(a.free(0));
  ASSERT_TRUE(a.free(2048));
  EXPECT_EQ(a.free_ranges().size(), 2u);
  ASSERT_TRUE(a.free(1024));  // joins both neighbours
  ASSERT_EQ(a.free_ranges().size(), 1u);
  EXPECT_EQ(a.free_ranges()[0].first, 0u);
  EXPECT_EQ(a.free_ranges()[0].second, 3072u);
  EXPECT_EQ(a.largest_free(), 3072u);
  uint64_t big;
  ASSERT_TRUE(a.allocate(3072, 1, &big));
  EXPECT_EQ(big, 0u);
  ASSERT_TRUE(a.free(3072));
  ASSERT_TRUE(a.free(0));
  EXPECT_EQ(a.free_ranges().size(), 1u);
  EXPECT_EQ(a.used(), 0u);
}

TEST(Allocator, InvalidFreeChangesNothing) {
  HeapAllocator a(512);
  a.grow(8192);
  uint64_t x;
  ASSERT_TRUE(a.allocate(2000, 1, &x));
  uint64_t used = a.used();
  EXPECT_FALSE(a.free(x + 8)) << "inside a block, not its start";
  EXPECT_FALSE(a.free(4096)) << "free space";
  EXPECT_FALSE(a.free(1 << 20)) << "outside the heap";
  EXPECT_EQ(a.used(), used);
  uint64_t start, size;
  ASSERT_TRUE(a.find(x + 8, &start, &size));
  EXPECT_EQ(start, x);
  EXPECT_EQ(size, 2048u);
  ASSERT_TRUE(a.free(x));
  EXPECT_FALSE(a.free(x)) << "double free";
}

TEST(Allocator, GrowthNeededAndGrow) {
  HeapAllocator a(512);
  a.grow(4096);
  uint64_t x;
  ASSERT_TRUE(a.allocate(3584, 1, &x));  // 512 bytes left at the end
  EXPECT_FALSE(a.allocate(2048, 1, &x));
  EXPECT_EQ(a.growth_needed(2048, 1), 1536u) << "the free tail counts";
  a.grow(1536);
  ASSERT_TRUE(a.allocate(2048, 1, &x));
  EXPECT_EQ(x, 3584u);
  EXPECT_EQ(a.growth_needed(1, 1), 512u);
  // An alignment larger than the tail's start moves the block past it.
  EXPECT_EQ(a.growth_needed(512, 8192), 8192u + 512 - a.capacity());
}

TEST(Allocator, AlignmentIsHonoured) {
  HeapAllocator a(512);
  a.grow(1 << 20);
  uint64_t x;
  ASSERT_TRUE(a.allocate(100, 1, &x));
  uint64_t y;
  ASSERT_TRUE(a.allocate(100, 65536, &y));
  EXPECT_EQ(y % 65536, 0u);
  // The gap before the aligned block stays usable.
  uint64_t z;
  ASSERT_TRUE(a.allocate(1000, 1, &z));
  EXPECT_LT(z, y);
}

}  // namespace
}  // namespace gshmem

namespace gshmem {
namespace {

TEST(Allocator, HugeRequestsFailWithoutWrappingAround) {
  HeapAllocator a(512);
  a.grow(1 << 20);
  uint64_t first = 0;
  ASSERT_TRUE(a.allocate(512, 1, &first));
  const auto free_before = a.free_ranges();
  uint64_t off = 0;
  EXPECT_FALSE(a.allocate(~0ull - 511, 1, &off)) << "a negative size cast to size_t";
  EXPECT_FALSE(a.allocate(~0ull - 100, 1, &off)) << "rounds to zero if unchecked";
  EXPECT_FALSE(a.allocate(64, 1ull << 63, &off));
  EXPECT_EQ(a.free_ranges(), free_before) << "nothing changed";
  EXPECT_GE(a.growth_needed(~0ull - 511, 1), 1ull << 60);
  ASSERT_TRUE(a.allocate(512, 1, &off));
  EXPECT_NE(off, first);
}

}  // namespace
}  // namespace gshmem
