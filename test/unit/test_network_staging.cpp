// The core's side of staged heaps (transport/network.h): with a staged heap, this PE's GPU buffers of
// puts and gets go through host buffers in pieces, the plugin is told not to register the heap, and a
// peer's put or get reaches the heap through LocalMemory::copy_heap. A buffer in this process stands for
// GPU memory (LocalMemory::on_gpu says so); the fake plugin (fake_transport.h) stands for the network.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "fake_transport.h"
#include "transport/network.h"
#include "util/host_wait.h"

namespace gshmem {
namespace {

class NetworkStaging : public ::testing::Test {
 protected:
  void SetUp() override {
    boot_ = make_single_bootstrap();
    gpu_.resize((10u << 20) + 123);
    for (size_t i = 0; i < gpu_.size(); ++i) gpu_[i] = static_cast<char>(i * 7 + 3);
    heap_.assign(1u << 20, 0);
    LocalMemory local;
    local.atomic = [](uint64_t, const Amo&, uint64_t*) { return GSHMEM_ERROR_INVALID_VALUE; };
    local.copy_heap = [this](uint64_t offset, void* host, size_t bytes, bool to_heap) {
      if (offset + bytes > heap_.size()) return GSHMEM_ERROR_INVALID_VALUE;
      if (to_heap) {
        std::memcpy(heap_.data() + offset, host, bytes);
      } else {
        std::memcpy(host, heap_.data() + offset, bytes);
      }
      return GSHMEM_SUCCESS;
    };
    local.on_gpu = [this](const void* p) { return in(gpu_, p) || in(gpu_out_, p); };
    local.copy = [this](void* dst, const void* src, size_t bytes) {
      ++copies_;
      std::memcpy(dst, src, bytes);
      return GSHMEM_SUCCESS;
    };
    std::string why;
    // PE 1 is the fake plugin's peer; the single bootstrap has PE 0 alone, which is all open needs.
    ASSERT_EQ(NetworkTransport::open(
                  GSHMEM_FAKE_TRANSPORT, boot_.get(), {0, 1}, std::move(local),
                  [this](int pe, const char* what, double waited, double last) {
                    waits_.push_back(Wait{pe, what, waited, last});
                  },
                  &net_, &why),
              GSHMEM_SUCCESS)
        << why;
    void* lib = dlopen(GSHMEM_FAKE_TRANSPORT, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(lib, nullptr);
    auto state = reinterpret_cast<FakeTransportStateFn>(dlsym(lib, FAKE_TRANSPORT_STATE_SYMBOL));
    ASSERT_NE(state, nullptr);
    fake_ = state();
    dlclose(lib);
  }
  void TearDown() override {
    if (net_) net_->finalize();
  }
  static bool in(const std::vector<char>& v, const void* p) {
    return !v.empty() && p >= v.data() && p < v.data() + v.size();
  }

  std::unique_ptr<Bootstrap> boot_;
  std::unique_ptr<NetworkTransport> net_;
  FakeTransportState* fake_ = nullptr;
  std::vector<char> gpu_, gpu_out_, heap_;
  int copies_ = 0;
  struct Wait {
    int pe;
    std::string what;
    double waited, last;
  };
  std::vector<Wait> waits_;  // what the plugin reported of its waits
};

// The plugin's report of a wait that lasts (services.waiting) reaches the core's handler as it was sent.
TEST_F(NetworkStaging, PluginWaitsReachTheCore) {
  ASSERT_NE(fake_->services.waiting, nullptr);
  fake_->services.waiting(fake_->services.ctx, 1, "PE 1 to answer a fetching atomic", 2.5, 1.25);
  fake_->services.waiting(fake_->services.ctx, -1, nullptr, 3.5, 2.5);
  ASSERT_EQ(waits_.size(), 2u);
  EXPECT_EQ(waits_[0].pe, 1);
  EXPECT_EQ(waits_[0].what, "PE 1 to answer a fetching atomic");
  EXPECT_DOUBLE_EQ(waits_[0].waited, 2.5);
  EXPECT_DOUBLE_EQ(waits_[0].last, 1.25);
  EXPECT_EQ(waits_[1].pe, -1);
  EXPECT_EQ(waits_[1].what, "the network");  // a plugin that names nothing
}

// A plugin out of resources (GSHMEM_TRANSPORT_NO_RESOURCES) issued nothing: the core completes what is
// outstanding and issues the operation again; the data arrives once.
TEST_F(NetworkStaging, NoResourcesIsIssuedAgainAfterAQuiet) {
  ASSERT_EQ(net_->add_memory(heap_.data(), heap_.size(), 0, false), GSHMEM_SUCCESS);
  const char data[24] = "out of resources, twice";
  fake_->no_resources = 2;
  ASSERT_EQ(net_->put(1, 4096, data, sizeof data, Completion::kBlocking), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->quiets, 2);
  ASSERT_EQ(fake_->calls.size(), 1u);
  EXPECT_EQ(std::memcmp(fake_->remote.data() + 4096, data, sizeof data), 0);
  char back[24] = {};
  fake_->no_resources = 1;
  ASSERT_EQ(net_->get(back, 1, 4096, sizeof back, Completion::kBlocking), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->quiets, 3);
  EXPECT_EQ(std::memcmp(back, data, sizeof data), 0);
  fake_->no_resources = 1;
  EXPECT_EQ(net_->atomic(1, 0, Amo{AmoOp::kAdd, 8, 1, 0}, nullptr), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->quiets, 4);
}

// A plugin that stays out of resources fails the operation with a reason, after a bounded number of tries.
TEST_F(NetworkStaging, PersistentNoResourcesFails) {
  ASSERT_EQ(net_->add_memory(heap_.data(), heap_.size(), 0, false), GSHMEM_SUCCESS);
  const char data[8] = "never";
  fake_->no_resources = 1000000;
  testing::internal::CaptureStderr();
  EXPECT_EQ(net_->put(1, 0, data, sizeof data, Completion::kNbi), GSHMEM_ERROR_SYSTEM);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("a put of 8 bytes with PE 1 failed: the network library stayed out of resources"),
            std::string::npos)
      << err;
  EXPECT_TRUE(fake_->calls.empty());
  EXPECT_GT(fake_->quiets, 1);
  EXPECT_LT(fake_->quiets, 1000);
}

// GSHMEM_TRANSPORT_IN_PROGRESS: a non-blocking operation was issued (complete by quiet), not an error.
TEST_F(NetworkStaging, InProgressCountsAsIssued) {
  ASSERT_EQ(net_->add_memory(heap_.data(), heap_.size(), 0, false), GSHMEM_SUCCESS);
  fake_->in_progress = true;
  const char data[16] = "issued, pending";
  EXPECT_EQ(net_->put(1, 128, data, sizeof data, Completion::kNbi), GSHMEM_SUCCESS);
  char back[16] = {};
  EXPECT_EQ(net_->get(back, 1, 128, sizeof back, Completion::kNbi), GSHMEM_SUCCESS);
  EXPECT_EQ(net_->atomic(1, 0, Amo{AmoOp::kAdd, 8, 1, 0}, nullptr, Completion::kNbi), GSHMEM_SUCCESS);
  EXPECT_EQ(net_->quiet(), GSHMEM_SUCCESS);
  EXPECT_EQ(std::memcmp(back, data, sizeof data), 0);
  EXPECT_EQ(fake_->calls.size(), 2u);
}

// progress (ABI 7): the core's waiting threads take the network's messages themselves through it.
TEST_F(NetworkStaging, ProgressAsksThePluginAndSaysWhetherSomethingMoved) {
  fake_->progress_moves = 1;
  EXPECT_TRUE(net_->progress());
  EXPECT_FALSE(net_->progress());
  EXPECT_EQ(fake_->progress_calls, 2);
}

// put_flagged (ABI 9): one message through the plugin where it has the call; otherwise, or for more than it
// carries, or from a GPU buffer of a staged heap, the data, a fence and the flag as puts. Either way the data and
// the flag land at the peer.
TEST_F(NetworkStaging, PutFlaggedIsOneMessageWhereThePluginHasIt) {
  const char data[24] = "a collective's packet";
  uint64_t got = 0;
  ASSERT_EQ(net_->put_flagged(1, 4096, data, sizeof data, 8192, 7), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->flagged, 1);
  EXPECT_TRUE(fake_->calls.empty());  // no put
  EXPECT_EQ(std::memcmp(fake_->remote.data() + 4096, data, sizeof data), 0);
  std::memcpy(&got, fake_->remote.data() + 8192, sizeof got);
  EXPECT_EQ(got, 7u);
  ASSERT_EQ(net_->put_flagged(1, 0, nullptr, 0, 8192, 9), GSHMEM_SUCCESS);  // a barrier's arrival: the flag alone
  EXPECT_EQ(fake_->flagged, 2);
  std::memcpy(&got, fake_->remote.data() + 8192, sizeof got);
  EXPECT_EQ(got, 9u);
  EXPECT_EQ(fake_->quiets, 0);
  EXPECT_EQ(fake_->fences, 0);
  // More than a message carries: the data, a fence, the flag, as puts.
  std::vector<char> big(NetworkTransport::kFlaggedBytes + 1, 'b');
  ASSERT_EQ(net_->put_flagged(1, 65536, big.data(), big.size(), 8192, 11), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->flagged, 2);
  ASSERT_EQ(fake_->calls.size(), 2u);
  EXPECT_EQ(fake_->calls[0].bytes, big.size());
  EXPECT_EQ(fake_->calls[1].offset, 8192u);
  EXPECT_EQ(fake_->calls[1].bytes, 8u);
  EXPECT_EQ(fake_->fences, 1);
  std::memcpy(&got, fake_->remote.data() + 8192, sizeof got);
  EXPECT_EQ(got, 11u);
  // Out of resources: issued again after a quiet, as every operation.
  fake_->no_resources = 1;
  ASSERT_EQ(net_->put_flagged(1, 0, nullptr, 0, 8192, 12), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->flagged, 3);
  EXPECT_EQ(fake_->quiets, 1);
}

// A wait's backoff does its work (the network's progress) at every poll until it sleeps between polls.
TEST(HostBackoffWork, EveryPollingPauseDoesTheWorkASleepingOneLeavesIt) {
  int calls = 0;
  HostBackoff backoff(PollWork{[](void* n) { return ++*static_cast<int*>(n) > 0; }, &calls});
  int slept = 0, first_sleep = -1;
  for (int i = 0; i < 2100; ++i) {
    const bool s = backoff.pause();
    slept += s ? 1 : 0;
    if (s && first_sleep < 0) first_sleep = i;
  }
  // Every pause of the spinning and yielding phases did the work; none of the sleeping ones (the plugin's own
  // thread serves the network then), so the count stopped where the sleeps began.
  ASSERT_GT(first_sleep, 0);
  EXPECT_EQ(calls, first_sleep);
  EXPECT_EQ(slept, 2100 - first_sleep);
}

// The fake plugin opened with one of its optional calls left out (`option` off while its init reads it).
class FakeWithout {
 public:
  explicit FakeWithout(bool FakeTransportState::*option) : lib_(dlopen(GSHMEM_FAKE_TRANSPORT, RTLD_NOW)) {
    auto fn = lib_ ? reinterpret_cast<FakeTransportStateFn>(dlsym(lib_, FAKE_TRANSPORT_STATE_SYMBOL)) : nullptr;
    if (!fn) return;
    state = fn();
    state->*option = false;
    status = NetworkTransport::open(
        GSHMEM_FAKE_TRANSPORT, boot_.get(), {0, 1}, LocalMemory{}, [](int, const char*, double, double) {}, &net, &why);
    state->*option = true;
  }
  ~FakeWithout() {
    if (net) net->finalize();
    if (lib_) dlclose(lib_);
  }
  FakeTransportState* state = nullptr;
  std::unique_ptr<NetworkTransport> net;
  Status status = GSHMEM_ERROR_INTERNAL;
  std::string why;

 private:
  void* lib_;
  std::unique_ptr<Bootstrap> boot_ = make_single_bootstrap();
};

// progress is optional: a plugin without it is accepted, and asking for progress then does nothing.
TEST(NetworkProgressOptional, APluginWithoutProgressIsAccepted) {
  FakeWithout fake(&FakeTransportState::has_progress);
  ASSERT_NE(fake.state, nullptr);
  ASSERT_EQ(fake.status, GSHMEM_SUCCESS) << fake.why;
  EXPECT_FALSE(fake.net->progress());
  EXPECT_EQ(fake.state->progress_calls, 0);
}

TEST_F(NetworkStaging, StagedHeapIsNotRegistered) {
  net_->set_staged(true);
  ASSERT_EQ(net_->add_memory(heap_.data(), heap_.size(), 0, true), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->mem_type, GSHMEM_TRANSPORT_MEM_STAGED);
  net_->set_staged(false);
  ASSERT_EQ(net_->add_memory(heap_.data(), heap_.size(), 0, true), GSHMEM_SUCCESS);
  EXPECT_EQ(fake_->mem_type, GSHMEM_TRANSPORT_MEM_CUDA);
}

TEST_F(NetworkStaging, GpuBuffersGoThroughHostBuffersInPieces) {
  net_->set_staged(true);
  const uint64_t at = 100;
  ASSERT_EQ(net_->put(1, at, gpu_.data(), gpu_.size(), Completion::kNbi), GSHMEM_SUCCESS);
  // Three pieces of at most 4 MiB, each from a host buffer (not the GPU buffer), blocking (the buffer is
  // reused), one after the other in the heap.
  ASSERT_EQ(fake_->calls.size(), 3u);
  uint64_t next = at;
  for (const FakeTransportCall& c : fake_->calls) {
    EXPECT_TRUE(c.put);
    EXPECT_EQ(c.pe, 1);
    EXPECT_EQ(c.offset, next);
    EXPECT_LE(c.bytes, 4u << 20);
    EXPECT_EQ(c.blocking, 1);
    EXPECT_FALSE(in(gpu_, c.local));
    next += c.bytes;
  }
  EXPECT_EQ(next, at + gpu_.size());
  EXPECT_EQ(copies_, 3);
  EXPECT_EQ(std::memcmp(fake_->remote.data() + at, gpu_.data(), gpu_.size()), 0);

  fake_->calls.clear();
  gpu_out_.assign(gpu_.size(), 0);
  ASSERT_EQ(net_->get(gpu_out_.data(), 1, at, gpu_out_.size(), Completion::kNbi), GSHMEM_SUCCESS);
  ASSERT_EQ(fake_->calls.size(), 3u);
  for (const FakeTransportCall& c : fake_->calls) {
    EXPECT_FALSE(c.put);
    EXPECT_EQ(c.blocking, 1);
    EXPECT_FALSE(in(gpu_out_, c.local));
  }
  EXPECT_EQ(copies_, 6);
  EXPECT_EQ(gpu_out_, gpu_);
}

TEST_F(NetworkStaging, HostBuffersAndRegisteredHeapsGoStraight) {
  std::vector<char> host(1000, 'h');
  net_->set_staged(true);
  ASSERT_EQ(net_->put(1, 0, host.data(), host.size(), Completion::kNbi), GSHMEM_SUCCESS);
  net_->set_staged(false);
  ASSERT_EQ(net_->put(1, 0, gpu_.data(), 4096, Completion::kNbi), GSHMEM_SUCCESS);
  ASSERT_EQ(fake_->calls.size(), 2u);
  EXPECT_EQ(fake_->calls[0].local, host.data());
  EXPECT_EQ(fake_->calls[0].blocking, 0);
  EXPECT_EQ(fake_->calls[1].local, gpu_.data());
  EXPECT_EQ(copies_, 0);
}

TEST_F(NetworkStaging, PeersReachTheHeapThroughLocalCopy) {
  const gshmem_transport_services_v1_t& sv = fake_->services;
  ASSERT_NE(sv.local_copy, nullptr);
  char data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(sv.local_copy(sv.ctx, 5, data, sizeof data, 1), 0);
  EXPECT_EQ(std::memcmp(heap_.data() + 5, data, sizeof data), 0);
  char back[10] = {};
  EXPECT_EQ(sv.local_copy(sv.ctx, 5, back, sizeof back, 0), 0);
  EXPECT_EQ(std::memcmp(back, data, sizeof data), 0);
  // Outside the heap: refused (and logged), nothing written.
  EXPECT_NE(sv.local_copy(sv.ctx, heap_.size() - 4, data, sizeof data, 1), 0);
}

// put_flagged is optional too: without it the data, a fence and the flag go as puts, and land the same.
TEST(NetworkPutFlaggedOptional, APluginWithoutItGetsPutsAndAFence) {
  FakeWithout fake(&FakeTransportState::has_put_flagged);
  ASSERT_NE(fake.state, nullptr);
  ASSERT_EQ(fake.status, GSHMEM_SUCCESS) << fake.why;
  FakeTransportState* state = fake.state;
  const char data[8] = "packet";
  ASSERT_EQ(fake.net->put_flagged(1, 128, data, sizeof data, 256, 3), GSHMEM_SUCCESS);
  EXPECT_EQ(state->flagged, 0);
  ASSERT_EQ(state->calls.size(), 2u);
  EXPECT_EQ(state->calls[0].offset, 128u);
  EXPECT_EQ(state->calls[1].offset, 256u);
  EXPECT_EQ(state->fences, 1);
  uint64_t flag = 0;
  std::memcpy(&flag, state->remote.data() + 256, sizeof flag);
  EXPECT_EQ(flag, 3u);
  EXPECT_EQ(std::memcmp(state->remote.data() + 128, data, sizeof data), 0);
}

}  // namespace
}  // namespace gshmem
