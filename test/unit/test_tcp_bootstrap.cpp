// The TCP bootstrap in one process: a hub thread and one thread per PE.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/tcp_client.h"
#include "bootstrap/tcp_hub.h"
#include "util/config.h"
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {
namespace {

class RecordingListener : public TcpHub::Listener {
 public:
  void on_abort(int rank, int code, const std::string& why) override {
    aborted_rank = rank;
    abort_code = code;
  }
  std::atomic<int> aborted_rank{-1};
  std::atomic<int> abort_code{0};
};

struct Job {
  explicit Job(int n, double timeout = 20) {
    int port = 0;
    EXPECT_EQ(tcp_listen("127.0.0.1", 0, &fd, &port), GSHMEM_SUCCESS);
    root = "127.0.0.1:" + std::to_string(port);
    opt.size = n;
    opt.timeout_s = timeout;
    EXPECT_EQ(random_bytes(opt.secret, 16), GSHMEM_SUCCESS);
    hub = std::make_unique<TcpHub>(std::move(fd), opt, &listener);
    thread = std::thread([this] { hub->run(); });
  }
  ~Job() {
    hub->stop();
    thread.join();
  }
  Status join(int rank, std::unique_ptr<Bootstrap>* out, double timeout = 20) {
    return join_as(root, opt.secret, rank, opt.size, timeout, out);
  }
  static Status join_as(const std::string& root, const uint8_t* secret, int rank, int size, double timeout,
                        std::unique_ptr<Bootstrap>* out) {
    Config config;
    config.bootstrap_timeout = timeout;
    return connect_tcp_bootstrap(config, TcpJoin(root, secret, rank, size, "the test's hub"), out);
  }
  Fd fd;
  std::string root;
  TcpHub::Options opt;
  RecordingListener listener;
  std::unique_ptr<TcpHub> hub;
  std::thread thread;
};

// Runs `body(rank, bootstrap)` on one thread per PE.
template <class F>
void run_pes(Job& job, int n, F body) {
  std::vector<std::thread> pes;
  for (int r = 0; r < n; ++r) {
    pes.emplace_back([&, r] {
      std::unique_ptr<Bootstrap> b;
      ASSERT_EQ(job.join(r, &b), GSHMEM_SUCCESS);
      body(r, *b);
      b->finalize();
    });
  }
  for (auto& t : pes) t.join();
}

TEST(TcpBootstrap, Collectives) {
  const int n = 5;
  Job job(n);
  run_pes(job, n, [&](int r, Bootstrap& b) {
    EXPECT_EQ(b.rank(), r);
    EXPECT_EQ(b.size(), n);
    // allgather, also in place
    std::vector<uint64_t> all(n);
    uint64_t mine = 1000 + r;
    ASSERT_EQ(b.allgather(&mine, all.data(), sizeof mine), GSHMEM_SUCCESS);
    for (int i = 0; i < n; ++i) EXPECT_EQ(all[i], 1000u + i);
    std::vector<int> inplace(n, -1);
    inplace[r] = r * 7;
    ASSERT_EQ(b.allgather(&inplace[r], inplace.data(), sizeof(int)), GSHMEM_SUCCESS);
    for (int i = 0; i < n; ++i) EXPECT_EQ(inplace[i], i * 7);
    // alltoall: block j goes to PE j
    std::vector<int> send(n), recv(n, -1);
    for (int j = 0; j < n; ++j) send[j] = r * 100 + j;
    ASSERT_EQ(b.alltoall(send.data(), recv.data(), sizeof(int)), GSHMEM_SUCCESS);
    for (int j = 0; j < n; ++j) EXPECT_EQ(recv[j], j * 100 + r);
    // broadcast from the last PE
    char text[16] = {};
    if (r == n - 1) std::strcpy(text, "from the root");
    ASSERT_EQ(b.broadcast(text, sizeof text, n - 1), GSHMEM_SUCCESS);
    EXPECT_STREQ(text, "from the root");
    for (int i = 0; i < 20; ++i) ASSERT_EQ(b.barrier(), GSHMEM_SUCCESS);
  });
}

TEST(TcpBootstrap, TimeoutFailsEveryWaitingPeAndNamesTheMissingOne) {
  Job job(3, /*timeout=*/0.5);
  std::vector<Status> results(2, GSHMEM_SUCCESS);
  testing::internal::CaptureStderr();
  std::vector<std::thread> pes;
  for (int r = 0; r < 2; ++r) {  // PE 2 never comes
    pes.emplace_back([&, r] {
      std::unique_ptr<Bootstrap> b;
      ASSERT_EQ(job.join(r, &b), GSHMEM_SUCCESS);
      results[r] = b->barrier();
    });
  }
  for (auto& t : pes) t.join();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(results[0], GSHMEM_ERROR_TIMEOUT);
  EXPECT_EQ(results[1], GSHMEM_ERROR_TIMEOUT);
  EXPECT_NE(err.find("PEs 0, 1 joined it"), std::string::npos) << err;
  EXPECT_NE(err.find("PEs 2 never connected"), std::string::npos) << err;
}

TEST(TcpBootstrap, LatePeIsNamedAsNotArrived) {
  Job job(2, /*timeout=*/0.5);
  Status result = GSHMEM_SUCCESS;
  std::unique_ptr<Bootstrap> late;
  ASSERT_EQ(job.join(1, &late), GSHMEM_SUCCESS);  // connected, but never joins the barrier
  testing::internal::CaptureStderr();
  std::thread t([&] {
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(job.join(0, &b), GSHMEM_SUCCESS);
    result = b->barrier();
  });
  t.join();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(result, GSHMEM_ERROR_TIMEOUT);
  EXPECT_NE(err.find("PEs 1 did not arrive within 0.5 s (GSHMEM_BOOTSTRAP_TIMEOUT)"), std::string::npos) << err;
}

TEST(TcpBootstrap, DisagreeingCallsFailInsteadOfHanging) {
  Job job(2);
  std::vector<Status> results(2, GSHMEM_SUCCESS);
  std::vector<std::thread> pes;
  for (int r = 0; r < 2; ++r) {
    pes.emplace_back([&, r] {
      std::unique_ptr<Bootstrap> b;
      ASSERT_EQ(job.join(r, &b), GSHMEM_SUCCESS);
      std::vector<char> buf(2 * (r + 1) * 8);
      results[r] = b->allgather(buf.data(), buf.data(), static_cast<size_t>((r + 1) * 8));
    });
  }
  for (auto& t : pes) t.join();
  EXPECT_EQ(results[0], GSHMEM_ERROR_SYMMETRY);
  EXPECT_EQ(results[1], GSHMEM_ERROR_SYMMETRY);
}

TEST(TcpBootstrap, PeThatLeavesFailsTheOthersAtOnce) {
  Job job(2, /*timeout=*/60);
  Status waiting = GSHMEM_SUCCESS;
  auto start = Clock::now();
  std::thread a([&] {
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(job.join(0, &b), GSHMEM_SUCCESS);
    waiting = b->barrier();
  });
  std::thread c([&] {
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(job.join(1, &b), GSHMEM_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    b.reset();  // closes the connection without a goodbye, as a crash does
  });
  a.join();
  c.join();
  EXPECT_EQ(waiting, GSHMEM_ERROR_PEER_GONE);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 30.0) << "did not wait for the timeout";
}

// What the peer-gone handler heard, from every PE of the process.
std::mutex g_gone_mu;
std::vector<std::pair<int, std::string>> g_gone;
void record_gone(int rank, int exit_code, const std::string& why) {
  std::lock_guard<std::mutex> lock(g_gone_mu);
  g_gone.emplace_back(rank, why);
}
void clear_gone() {
  std::lock_guard<std::mutex> lock(g_gone_mu);
  g_gone.clear();
}
size_t gone_heard() {
  std::lock_guard<std::mutex> lock(g_gone_mu);
  return g_gone.size();
}
bool wait_for_gone(size_t n) {
  for (int i = 0; i < 500 && gone_heard() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return gone_heard() >= n;
}

TEST(TcpBootstrapLiveness, EveryOtherPeHearsOfAPeThatIsGone) {
  clear_gone();
  Job job(3, /*timeout=*/60);
  std::vector<std::unique_ptr<Bootstrap>> b(3);
  for (int r = 0; r < 3; ++r) ASSERT_EQ(job.join(r, &b[r]), GSHMEM_SUCCESS);
  b[0]->set_peer_gone_handler(&record_gone);
  b[1]->set_peer_gone_handler(&record_gone);
  // Nobody is in a collective: the word must come anyway, through the reader threads.
  b[2].reset();  // the connection closes without a goodbye, as when a process dies
  ASSERT_TRUE(wait_for_gone(2)) << "only " << gone_heard() << " PEs heard";
  std::lock_guard<std::mutex> lock(g_gone_mu);
  for (auto& g : g_gone) {
    EXPECT_EQ(g.first, 2);
    EXPECT_NE(g.second.find("PE 2 closed its connection to the bootstrap root (its process was killed by a signal, "
                            "crashed or called _exit, or its host stopped answering) before calling nvshmem_finalize"),
              std::string::npos)
        << g.second;
  }
}

TEST(TcpBootstrapLiveness, AnAnnouncedExitNamesItsCode) {
  clear_gone();
  Job job(2, /*timeout=*/60);
  std::unique_ptr<Bootstrap> a, b;
  ASSERT_EQ(job.join(0, &a), GSHMEM_SUCCESS);
  ASSERT_EQ(job.join(1, &b), GSHMEM_SUCCESS);
  a->set_peer_gone_handler(&record_gone);
  b->announce_exit(3);
  ASSERT_TRUE(wait_for_gone(1));
  std::lock_guard<std::mutex> lock(g_gone_mu);
  EXPECT_EQ(g_gone[0].first, 1);
  EXPECT_EQ(g_gone[0].second, "PE 1 exited with code 3 before calling nvshmem_finalize");
}

TEST(TcpBootstrapLiveness, FinalizedPesAreListedAndNotReportedGone) {
  clear_gone();
  Job job(3, /*timeout=*/60);
  std::vector<std::unique_ptr<Bootstrap>> b(3);
  for (int r = 0; r < 3; ++r) ASSERT_EQ(job.join(r, &b[r]), GSHMEM_SUCCESS);
  b[0]->set_peer_gone_handler(&record_gone);
  std::vector<int> left;
  ASSERT_EQ(b[0]->finished_pes(&left), GSHMEM_SUCCESS);
  EXPECT_TRUE(left.empty());
  ASSERT_EQ(b[2]->finalize(), GSHMEM_SUCCESS);
  for (int i = 0; i < 200 && left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(b[0]->finished_pes(&left), GSHMEM_SUCCESS);
  }
  EXPECT_EQ(left, std::vector<int>{2});
  b[2].reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(gone_heard(), 0u) << "a PE that finalized is not gone";
  ASSERT_EQ(b[1]->finalize(), GSHMEM_SUCCESS);
  // PE 1's Fin and PE 0's question travel on different connections: the hub may answer first.
  for (int i = 0; i < 200 && left.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(b[0]->finished_pes(&left), GSHMEM_SUCCESS);
  }
  EXPECT_EQ(left, (std::vector<int>{1, 2}));
}

TEST(TcpBootstrapLiveness, LosingTheRootIsReported) {
  clear_gone();
  auto job = std::make_unique<Job>(2, 60);
  std::unique_ptr<Bootstrap> a;
  ASSERT_EQ(job->join(0, &a), GSHMEM_SUCCESS);
  a->set_peer_gone_handler(&record_gone);
  job.reset();  // the hub ends, closing every connection
  ASSERT_TRUE(wait_for_gone(1));
  std::lock_guard<std::mutex> lock(g_gone_mu);
  EXPECT_EQ(g_gone[0].first, -1);
  EXPECT_NE(g_gone[0].second.find("the connection to the job's bootstrap root (the test's hub) was lost"),
            std::string::npos)
      << g_gone[0].second;
}

TEST(TcpBootstrap, RefusalsAreLoggedWithARateLimit) {
  Job job(1);
  uint8_t wrong[16];
  std::memcpy(wrong, job.opt.secret, 16);
  wrong[3] ^= 1;
  testing::internal::CaptureStderr();
  for (int i = 0; i < 40; ++i) {
    std::unique_ptr<Bootstrap> b;
    EXPECT_EQ(Job::join_as(job.root, wrong, 0, 1, 5, &b), GSHMEM_ERROR_BOOTSTRAP);
  }
  std::string err = testing::internal::GetCapturedStderr();
  size_t root_lines = 0;
  for (size_t at = err.find("bootstrap root refused"); at != std::string::npos;
       at = err.find("bootstrap root refused", at + 1)) {
    ++root_lines;
  }
  // The first five, then at most one line per 10 s that counts the rest.
  EXPECT_EQ(root_lines, 5u) << err;
}

TEST(RateLimit, FirstFewThenACountPerPeriod) {
  log::RateLimit limit(3, 0.05);
  uint64_t left_out = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(limit.allow(&left_out));
    EXPECT_EQ(left_out, 0u);
  }
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(limit.allow(&left_out));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_TRUE(limit.allow(&left_out));
  EXPECT_EQ(left_out, 10u);
  EXPECT_FALSE(limit.allow(&left_out));
}

TEST(TcpBootstrap, WrongSecretIsRefused) {
  Job job(1);
  uint8_t wrong[16];
  std::memcpy(wrong, job.opt.secret, 16);
  wrong[0] ^= 1;
  std::unique_ptr<Bootstrap> b;
  EXPECT_EQ(Job::join_as(job.root, wrong, 0, 1, 5, &b), GSHMEM_ERROR_BOOTSTRAP);
  // The real PE can still join afterwards.
  EXPECT_EQ(job.join(0, &b), GSHMEM_SUCCESS);
  EXPECT_EQ(b->barrier(), GSHMEM_SUCCESS);
}

TEST(TcpBootstrap, SameRankTwiceIsRefused) {
  Job job(2);
  std::unique_ptr<Bootstrap> first, second;
  ASSERT_EQ(job.join(0, &first), GSHMEM_SUCCESS);
  EXPECT_EQ(job.join(0, &second), GSHMEM_ERROR_BOOTSTRAP);
}

TEST(TcpBootstrap, AbortReachesTheLauncher) {
  Job job(1);
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(job.join(0, &b), GSHMEM_SUCCESS);
  std::thread t([&] { b->abort_job(7, "test"); });
  for (int i = 0; i < 200 && job.listener.aborted_rank < 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(job.listener.aborted_rank, 0);
  EXPECT_EQ(job.listener.abort_code, 7);
  t.detach();  // abort_job waits for the launcher to end the process
}

TEST(TcpBootstrap, StrangersCannotMakeTheRootBufferAnything) {
  Job job(1);
  std::string host;
  int port = 0;
  ASSERT_TRUE(split_host_port(job.root, &host, &port));
  // A header announcing 200 MiB before authenticating: the root must drop the connection.
  Fd fd;
  std::string why;
  ASSERT_EQ(tcp_connect(host, port, deadline_after(5), &fd, &why), GSHMEM_SUCCESS);
  tcp::MsgHeader hello;
  ASSERT_EQ(recv_all(fd.get(), &hello, sizeof hello, deadline_after(5)), GSHMEM_SUCCESS);
  uint8_t nonce[16];
  ASSERT_EQ(recv_all(fd.get(), nonce, sizeof nonce, deadline_after(5)), GSHMEM_SUCCESS);
  tcp::MsgHeader evil{
      tcp::kMagic, static_cast<uint16_t>(tcp::MsgType::kCollective), tcp::kVersion, 1, 200ull << 20, 1, 0};
  ASSERT_EQ(send_all(fd.get(), &evil, sizeof evil, deadline_after(5)), GSHMEM_SUCCESS);
  char byte;
  EXPECT_EQ(recv_all(fd.get(), &byte, 1, deadline_after(5)), GSHMEM_ERROR_PEER_GONE) << "the root closed it";
  // The root is still there for the real PE.
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(job.join(0, &b), GSHMEM_SUCCESS);
  EXPECT_EQ(b->barrier(), GSHMEM_SUCCESS);
}

TEST(TcpBootstrap, AFinalizedPeIsNotReportedAsCrashed) {
  Job job(2, /*timeout=*/20);
  std::unique_ptr<Bootstrap> early;
  ASSERT_EQ(job.join(1, &early), GSHMEM_SUCCESS);
  early->finalize();  // says goodbye and closes at once
  testing::internal::CaptureStderr();
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(job.join(0, &b), GSHMEM_SUCCESS);
  EXPECT_EQ(b->barrier(), GSHMEM_ERROR_PEER_GONE);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("PEs 1 already called nvshmem_finalize"), std::string::npos) << err;
}

// Sessions: a PE that finalized (park) stays in the job and initialises again (rejoin).
TEST(TcpBootstrapSessions, ParkedPesRejoinAndTheCollectivesGoOn) {
  clear_gone();
  const int n = 3;
  Job job(n, /*timeout=*/30);
  std::vector<std::unique_ptr<Bootstrap>> b(n);
  for (int r = 0; r < n; ++r) ASSERT_EQ(job.join(r, &b[r]), GSHMEM_SUCCESS);
  for (auto& x : b) x->set_peer_gone_handler(&record_gone);
  for (int session = 0; session < 3; ++session) {
    std::vector<std::thread> pes;
    for (int r = 0; r < n; ++r) {
      pes.emplace_back([&, r] {
        if (session > 0) ASSERT_EQ(b[r]->rejoin(), GSHMEM_SUCCESS);
        std::vector<int> all(n, -1);
        int mine = session * 10 + r;
        ASSERT_EQ(b[r]->allgather(&mine, all.data(), sizeof mine), GSHMEM_SUCCESS);
        for (int i = 0; i < n; ++i) EXPECT_EQ(all[i], session * 10 + i);
        ASSERT_EQ(b[r]->barrier(), GSHMEM_SUCCESS);
        ASSERT_EQ(b[r]->park(), GSHMEM_SUCCESS);
      });
    }
    for (auto& t : pes) t.join();
    // Parked PEs count as finalized for a PE that asks (a wait for one of them cannot end)...
    std::vector<int> left;
    for (int i = 0; i < 200 && left.size() < static_cast<size_t>(n); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ASSERT_EQ(b[0]->finished_pes(&left), GSHMEM_SUCCESS);
    }
    EXPECT_EQ(left, (std::vector<int>{0, 1, 2}));
  }
  // ...but not for the root, which still waits for them to leave.
  EXPECT_FALSE(job.hub->all_left());
  b[2].reset();  // a parked PE's process ends without a goodbye: it had finalized, so that is no loss
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(gone_heard(), 0u) << "a PE that finalized is not gone";
  for (int r = 0; r < 2; ++r) ASSERT_EQ(b[r]->finalize(), GSHMEM_SUCCESS);
  for (int i = 0; i < 200 && !job.hub->all_left(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(job.hub->all_left());
}

TEST(TcpBootstrapSessions, AStepWaitsForAParkedPeAndFailsWhenItsProcessEnds) {
  clear_gone();
  Job job(2, /*timeout=*/30);
  std::unique_ptr<Bootstrap> a, b;
  ASSERT_EQ(job.join(0, &a), GSHMEM_SUCCESS);
  ASSERT_EQ(job.join(1, &b), GSHMEM_SUCCESS);
  a->set_peer_gone_handler(&record_gone);
  ASSERT_EQ(b->park(), GSHMEM_SUCCESS);
  // PE 0 is in its next session first: its barrier waits for PE 1, which may come back.
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_EQ(b->rejoin(), GSHMEM_SUCCESS);
    EXPECT_EQ(b->barrier(), GSHMEM_SUCCESS);
    ASSERT_EQ(b->park(), GSHMEM_SUCCESS);
  });
  EXPECT_EQ(a->barrier(), GSHMEM_SUCCESS);
  late.join();
  // Now PE 1 stays parked and its process ends: the step can never complete, and says why at once.
  testing::internal::CaptureStderr();
  std::thread ender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    b.reset();
  });
  const auto start = Clock::now();
  EXPECT_EQ(a->barrier(), GSHMEM_ERROR_PEER_GONE);
  ender.join();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 10.0) << "did not wait for the timeout";
  EXPECT_NE(err.find("PEs 1 already called nvshmem_finalize"), std::string::npos) << err;
  EXPECT_EQ(gone_heard(), 0u);
}

TEST(TcpBootstrapSessions, AStepTimingOutNamesParkedPes) {
  Job job(2, /*timeout=*/0.5);
  std::unique_ptr<Bootstrap> a, b;
  ASSERT_EQ(job.join(0, &a), GSHMEM_SUCCESS);
  ASSERT_EQ(job.join(1, &b), GSHMEM_SUCCESS);
  ASSERT_EQ(b->park(), GSHMEM_SUCCESS);
  testing::internal::CaptureStderr();
  EXPECT_EQ(a->barrier(), GSHMEM_ERROR_TIMEOUT);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("PEs 1 called nvshmem_finalize and have not initialised again"), std::string::npos) << err;
}

TEST(TcpBootstrapSessions, AStepThatFailedDoesNotFailTheNextSession) {
  Job job(2, /*timeout=*/0.5);
  std::unique_ptr<Bootstrap> a, b;
  ASSERT_EQ(job.join(0, &a), GSHMEM_SUCCESS);
  ASSERT_EQ(job.join(1, &b), GSHMEM_SUCCESS);
  testing::internal::CaptureStderr();
  EXPECT_EQ(a->barrier(), GSHMEM_ERROR_TIMEOUT);  // PE 1 is late: the step fails...
  EXPECT_NE(b->barrier(), GSHMEM_SUCCESS);        // ...for it too, when it comes
  testing::internal::GetCapturedStderr();
  // Both finalize and initialise again: the new session's steps are not failed by the old one's. (PE 0's step
  // may reach the hub before PE 1's Park: it waits for PE 1 rather than failing.)
  ASSERT_EQ(a->park(), GSHMEM_SUCCESS);
  ASSERT_EQ(b->park(), GSHMEM_SUCCESS);
  ASSERT_EQ(a->rejoin(), GSHMEM_SUCCESS);
  ASSERT_EQ(b->rejoin(), GSHMEM_SUCCESS);
  Status sa = GSHMEM_ERROR_INTERNAL;
  std::thread t([&] { sa = a->barrier(); });
  EXPECT_EQ(b->barrier(), GSHMEM_SUCCESS);
  t.join();
  EXPECT_EQ(sa, GSHMEM_SUCCESS);
}

TEST(TcpBootstrapSessions, AParkedPeOutlivesTheRootAndCannotRejoin) {
  clear_gone();
  auto job = std::make_unique<Job>(2, 60);
  std::unique_ptr<Bootstrap> a;
  ASSERT_EQ(job->join(0, &a), GSHMEM_SUCCESS);
  a->set_peer_gone_handler(&record_gone);
  ASSERT_EQ(a->park(), GSHMEM_SUCCESS);
  job.reset();  // the root's process ends after this PE finalized
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(gone_heard(), 0u) << "the loss of the root does not end a PE that finalized";
  testing::internal::CaptureStderr();
  EXPECT_EQ(a->rejoin(), GSHMEM_ERROR_PEER_GONE);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cannot initialise again: the job's bootstrap root (the test's hub) ended"), std::string::npos)
      << err;
}

TEST(SipHash, ReferenceVector) {
  // SipHash-2-4 test vector: key 00..0f, message 00..0e (15 bytes) -> a129ca6149be45e5.
  uint8_t key[16], msg[15];
  for (int i = 0; i < 16; ++i) key[i] = static_cast<uint8_t>(i);
  for (int i = 0; i < 15; ++i) msg[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(siphash24(key, msg, 15), 0xa129ca6149be45e5ull);
  EXPECT_EQ(siphash24(key, msg, 0), 0x726fdb47dd0e0e31ull);
}

}  // namespace
}  // namespace gshmem
