// Merging the copy engines' hand-overs into chains (transport/copy_merge.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "transport/copy_merge.h"

namespace gshmem {
namespace {

// Every chain is well formed: its pieces continue one another on both sides and its merged copy
// spans them. Returns all pieces, sorted, for comparison with the input.
std::vector<CopyRange> check_chains(const std::vector<CopyChain>& chains) {
  std::vector<CopyRange> all;
  for (const CopyChain& c : chains) {
    EXPECT_FALSE(c.pieces.empty());
    if (c.pieces.empty()) continue;
    uint64_t bytes = 0;
    for (size_t k = 0; k < c.pieces.size(); ++k) {
      EXPECT_GT(c.pieces[k].bytes, 0u);
      if (k > 0) {
        EXPECT_EQ(c.pieces[k].dst, c.pieces[k - 1].dst + c.pieces[k - 1].bytes);
        EXPECT_EQ(c.pieces[k].src, c.pieces[k - 1].src + c.pieces[k - 1].bytes);
      }
      bytes += c.pieces[k].bytes;
      all.push_back(c.pieces[k]);
    }
    EXPECT_EQ(c.merged.dst, c.pieces.front().dst);
    EXPECT_EQ(c.merged.src, c.pieces.front().src);
    EXPECT_EQ(c.merged.bytes, bytes);
  }
  std::sort(all.begin(), all.end());
  return all;
}

// A kernel of `blocks` blocks putting a buffer of blocks * share bytes, each block its share, for
// `iterations` iterations: the hand-overs in a random order.
std::vector<CopyRange> shares(int blocks, int iterations, uint64_t share, std::mt19937_64* rng) {
  const uint64_t dst = 0x7f0000000000ull, src = 0x7e0000000000ull;
  std::vector<CopyRange> copies;
  for (int i = 0; i < iterations; ++i) {
    for (int b = 0; b < blocks; ++b) copies.push_back(CopyRange{dst + b * share, src + b * share, share});
  }
  std::shuffle(copies.begin(), copies.end(), *rng);
  return copies;
}

TEST(CopyMerge, SharesOfOneBufferBecomeOneCopy) {
  std::mt19937_64 rng(1);
  const std::vector<CopyRange> in = shares(4, 1, 1 << 20, &rng);
  const std::vector<CopyChain> chains = merge_copies(in);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].merged.bytes, 4u << 20);
  EXPECT_EQ(chains[0].merged.dst, 0x7f0000000000ull);
  EXPECT_EQ(chains[0].merged.src, 0x7e0000000000ull);
  std::vector<CopyRange> sorted = in;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(check_chains(chains), sorted);
}

TEST(CopyMerge, EachIterationOfAKernelBecomesOneCopy) {
  // 32 blocks x 32 iterations of 1 MiB shares, in one batch: 32 copies of 32 MiB, not 1024 of 1 MiB.
  std::mt19937_64 rng(2);
  const std::vector<CopyRange> in = shares(32, 32, 1 << 20, &rng);
  const std::vector<CopyChain> chains = merge_copies(in);
  ASSERT_EQ(chains.size(), 32u);
  for (const CopyChain& c : chains) {
    EXPECT_EQ(c.merged.bytes, 32u << 20);
    EXPECT_EQ(c.pieces.size(), 32u);
  }
  std::vector<CopyRange> sorted = in;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(check_chains(chains), sorted);
}

TEST(CopyMerge, OnlyCopiesThatContinueOnBothSidesMerge) {
  const std::vector<CopyRange> in = {
      {0x1000, 0x9000, 0x100},  // a
      {0x1100, 0x9100, 0x100},  // continues a on both sides
      {0x1200, 0xa000, 0x100},  // continues the destination only
      {0x5000, 0x9200, 0x100},  // continues the source only
  };
  const std::vector<CopyChain> chains = merge_copies(in);
  ASSERT_EQ(chains.size(), 3u);
  EXPECT_EQ(chains[0].merged, (CopyRange{0x1000, 0x9000, 0x200}));
  EXPECT_EQ(chains[1].merged, (CopyRange{0x1200, 0xa000, 0x100}));
  EXPECT_EQ(chains[2].merged, (CopyRange{0x5000, 0x9200, 0x100}));
}

TEST(CopyMerge, EmptyCopiesAreDroppedAndAnEmptyBatchGivesNothing) {
  EXPECT_TRUE(merge_copies({}).empty());
  const std::vector<CopyChain> chains = merge_copies({{0x1000, 0x2000, 0}, {0x1000, 0x2000, 64}});
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].merged, (CopyRange{0x1000, 0x2000, 64}));
}

TEST(CopyMerge, RandomBatchesKeepEveryCopyExactlyOnce) {
  // Copies on a coarse grid, so that many continue or repeat one another: each input copy is in
  // exactly one chain and every chain is well formed.
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    std::vector<CopyRange> in;
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int k = 0; k < n; ++k) {
      const uint64_t at = rng() % 16, skew = rng() % 2, len = 1 + rng() % 3;
      in.push_back(CopyRange{0x10000 + at * 64, 0x90000 + (at + skew * 5) * 64, len * 64});
    }
    const std::vector<CopyChain> chains = merge_copies(in);
    std::vector<CopyRange> sorted = in;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(check_chains(chains), sorted) << "round " << round;
    // A chain that starts where another ends would have continued that one: the merge is maximal.
    for (const CopyChain& x : chains) {
      for (const CopyChain& y : chains) {
        ASSERT_FALSE(x.merged.dst + x.merged.bytes == y.merged.dst && x.merged.src + x.merged.bytes == y.merged.src)
            << "round " << round << ": a chain ends at 0x" << std::hex << y.merged.dst << " where another starts";
      }
    }
  }
}

}  // namespace
}  // namespace gshmem
