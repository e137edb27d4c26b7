// StallWatch (util/stall_watch.h): a marked call that does not return is reported from the watch's own
// thread every GSHMEM_WAIT_WARN seconds with what it is doing and the caller's context, and one past
// GSHMEM_WAIT_TIMEOUT ends the process; calls that return in time, or a watch without limits, say nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "util/stall_watch.h"

namespace gshmem {
namespace {

StallWatch::Options fast(double warn_s, double timeout_s) {
  StallWatch::Options o;
  o.my_pe = 3;
  o.warn_s = warn_s;
  o.timeout_s = timeout_s;
  o.period_s = 0.02;
  o.context = [] { return std::string(" The program is elsewhere."); };
  return o;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(StallWatch, ACallThatDoesNotReturnIsReportedWithWhatItDoes) {
  testing::internal::CaptureStderr();
  {
    StallWatch watch(fast(0.2, 0));
    StallWatch::Call call(&watch, "the network thread", "applying a peer's put of %llu bytes", 4096,
                          "no peer's operation on this PE completes");
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("PE 3: the network thread has been applying a peer's put of 4096 bytes for 0 s and has not "
                     "returned; meanwhile no peer's operation on this PE completes. The program is elsewhere. "
                     "(GSHMEM_WAIT_WARN)"),
            std::string::npos)
      << err;
  // Every 0.2 s: at 0.2, 0.4 and 0.6 s (not once per look of the watch, which looks every 0.02 s).
  const size_t reports = count(err, "has not returned");
  EXPECT_GE(reports, 2u) << err;
  EXPECT_LE(reports, 4u) << err;
}

TEST(StallWatch, CallsThatReturnInTimeAreNotReported) {
  testing::internal::CaptureStderr();
  {
    StallWatch watch(fast(1.0, 0));  // far above each call's 25 ms, also on a loaded machine
    for (int i = 0; i < 20; ++i) {
      StallWatch::Call call(&watch, "the network thread", "a call of %llu", static_cast<uint64_t>(i));
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("has not returned"), std::string::npos) << err;
}

TEST(StallWatch, SeveralCallsAreWatchedAtOnce) {
  testing::internal::CaptureStderr();
  {
    StallWatch watch(fast(0.2, 0));
    std::thread other([&] {
      StallWatch::Call call(&watch, "the proxy", "copying %llu bytes", 8);
      std::this_thread::sleep_for(std::chrono::milliseconds(450));
    });
    StallWatch::Call call(&watch, "the network thread", "applying a peer's atomic of %llu bytes", 8);  // no effect
    std::this_thread::sleep_for(std::chrono::milliseconds(450));
    other.join();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("the proxy has been copying 8 bytes"), std::string::npos) << err;
  EXPECT_NE(err.find("the network thread has been applying a peer's atomic of 8 bytes for 0 s and has not returned. "
                     "The program"),
            std::string::npos)
      << err;
}

TEST(StallWatch, WithoutLimitsNothingIsWatched) {
  testing::internal::CaptureStderr();
  {
    StallWatch watch(fast(0, 0));
    StallWatch::Call call(&watch, "the network thread", "a call", 0);
    StallWatch::Call unwatched(nullptr, "nobody", "nothing", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(StallWatchDeathTest, ACallPastTheTimeoutEndsTheProcess) {
  EXPECT_EXIT(
      {
        StallWatch watch(fast(0, 0.2));
        StallWatch::Call call(&watch, "the network thread", "reading %llu bytes of this PE's GPU heap", 64);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(0);  // not reached when the watch works
      },
      testing::ExitedWithCode(1),
      "PE 3: the network thread has been reading 64 bytes of this PE's GPU heap for 0 s, longer than "
      "GSHMEM_WAIT_TIMEOUT \\(0.2 s\\): ending the job. The program is elsewhere.");
}

}  // namespace
}  // namespace gshmem
