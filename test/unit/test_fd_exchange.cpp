// The node's descriptor exchange: many PEs at once, and messages that do not come from the job.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "heap/fd_exchange.h"

namespace gshmem {
namespace {

// Each "PE" is a thread of this process (so every sender has this process's id).
TEST(FdExchange, SixteenPesExchangeTwiceWithoutDeadlock) {
  const int n = 16;
  uint64_t key = 0, token = 0;
  ASSERT_EQ(random_bytes(&key, sizeof key), GSHMEM_SUCCESS);
  ASSERT_EQ(random_bytes(&token, sizeof token), GSHMEM_SUCCESS);
  std::vector<int> pes, pids(n, static_cast<int>(getpid()));
  for (int i = 0; i < n; ++i) pes.push_back(i);
  std::vector<LocalFdExchange> ex(n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(ex[i].open(key, token, i, pes, pids, 20), GSHMEM_SUCCESS);
  std::vector<int> failures(n, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      for (uint64_t tag = 1; tag <= 2; ++tag) {
        // The descriptor's content says who sent it and for which round.
        int fd = memfd_create("t", MFD_CLOEXEC);
        int value = static_cast<int>(i * 10 + tag);
        (void)!write(fd, &value, sizeof value);
        std::vector<int> got;
        if (ex[i].exchange(tag, fd, &got) != GSHMEM_SUCCESS) {
          ++failures[i];
          close(fd);
          continue;
        }
        close(fd);
        for (int j = 0; j < n; ++j) {
          if (j == i) {
            failures[i] += got[j] != -1;
            continue;
          }
          int v = -1;
          failures[i] += pread(got[j], &v, sizeof v, 0) != sizeof v || v != static_cast<int>(j * 10 + tag);
          close(got[j]);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < n; ++i) EXPECT_EQ(failures[i], 0) << "PE " << i;
  for (auto& e : ex) e.close();
}

TEST(FdExchange, DescriptorsWithoutTheTokenAreIgnored) {
  uint64_t key = 0;
  ASSERT_EQ(random_bytes(&key, sizeof key), GSHMEM_SUCCESS);
  std::vector<int> pes = {0, 1}, pids(2, static_cast<int>(getpid()));
  LocalFdExchange victim, intruder;
  ASSERT_EQ(victim.open(key, /*token=*/111, 0, pes, pids, 0.5), GSHMEM_SUCCESS);
  ASSERT_EQ(intruder.open(key, /*token=*/222, 1, pes, pids, 0.5), GSHMEM_SUCCESS);  // claims to be PE 1
  std::thread t([&] {
    std::vector<int> got;
    int fd = memfd_create("x", MFD_CLOEXEC);
    intruder.exchange(1, fd, &got);  // times out too: the victim's token is not its own
    close(fd);
  });
  int fd = memfd_create("v", MFD_CLOEXEC);
  std::vector<int> got;
  testing::internal::CaptureStderr();
  EXPECT_EQ(victim.exchange(1, fd, &got), GSHMEM_ERROR_TIMEOUT);
  std::string err = testing::internal::GetCapturedStderr();
  t.join();
  close(fd);
  EXPECT_EQ(got[1], -1);
  EXPECT_NE(err.find("ignored a heap descriptor that does not come from a PE of this job"), std::string::npos) << err;
  EXPECT_NE(err.find("PEs 1 sent nothing"), std::string::npos) << err;
}

}  // namespace
}  // namespace gshmem
