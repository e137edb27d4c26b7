// The proxy's completion counter over its two kinds of request (transport/proxy_completion.h).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "transport/proxy_completion.h"

namespace gshmem {
namespace {

TEST(ProxyCompletion, NothingTakenNothingPending) {
  ProxyCompletion c;
  EXPECT_EQ(c.completed(), 0u);
  EXPECT_FALSE(c.copies_pending());
  EXPECT_FALSE(c.requests_pending());
}

TEST(ProxyCompletion, ARequestHoldsBackTheCopiesAfterIt) {
  ProxyCompletion c;
  c.took(0, true);   // copy
  c.took(1, false);  // network request
  c.took(2, true);   // copy
  EXPECT_EQ(c.completed(), 0u);
  c.copies_done(3);  // the stream counted both copies
  EXPECT_EQ(c.completed(), 1u) << "the request at ticket 1 has not completed";
  c.requests_done();
  EXPECT_EQ(c.completed(), 3u);
}

TEST(ProxyCompletion, ACopyHoldsBackTheRequestsAfterIt) {
  ProxyCompletion c;
  c.took(0, false);
  c.took(1, true);
  c.took(2, false);
  c.requests_done();
  EXPECT_EQ(c.completed(), 1u) << "the copy at ticket 1 has not completed";
  c.copies_done(1);  // a count from before the copy was issued says nothing about it
  EXPECT_EQ(c.completed(), 1u);
  c.copies_done(2);
  EXPECT_EQ(c.completed(), 3u);
}

TEST(ProxyCompletion, RequestsTakenAfterAQuietArePendingAgain) {
  ProxyCompletion c;
  c.took(0, false);
  c.requests_done();
  EXPECT_EQ(c.completed(), 1u);
  c.took(1, false);
  EXPECT_TRUE(c.requests_pending());
  EXPECT_EQ(c.completed(), 1u);
  c.requests_done();
  EXPECT_EQ(c.completed(), 2u);
}

// Against a model that remembers every ticket: random kinds, counts and quiets; `completed` is exactly the
// first ticket not complete (never too far: a kernel would read data not yet there; never short for long: a
// quiet would wait for nothing) and never decreases.
TEST(ProxyCompletion, MatchesAModelOfEveryTicket) {
  std::mt19937_64 rng(7);
  for (int run = 0; run < 200; ++run) {
    ProxyCompletion c;
    std::vector<bool> copy, done;
    uint64_t counted = 0, last = 0;
    for (int step = 0; step < 400; ++step) {
      switch (rng() % 4) {
        case 0:
        case 1: {
          const bool is_copy = rng() % 2 == 0;
          c.took(copy.size(), is_copy);
          copy.push_back(is_copy);
          done.push_back(false);
          break;
        }
        case 2: {  // the stream's count: every copy issued before it (a count from up to the tickets taken)
          counted = std::max<uint64_t>(counted, rng() % (copy.size() + 1));
          for (uint64_t t = 0; t < counted; ++t) done[t] = done[t] || copy[t];
          c.copies_done(counted);
          break;
        }
        default:
          for (uint64_t t = 0; t < copy.size(); ++t) done[t] = done[t] || !copy[t];
          c.requests_done();
      }
      uint64_t first = 0;
      while (first < done.size() && done[first]) ++first;
      ASSERT_EQ(c.completed(), first) << "run " << run << ", step " << step;
      uint64_t first_request = 0;  // the requests' own bound, which the copy stream's count may publish
      while (first_request < done.size() && (copy[first_request] || done[first_request])) ++first_request;
      ASSERT_EQ(c.requests_complete_below(), first_request) << "run " << run << ", step " << step;
      ASSERT_GE(c.completed(), last);
      last = c.completed();
      ASSERT_EQ(c.taken(), copy.size());
    }
  }
}

}  // namespace
}  // namespace gshmem
