// The public API in a job of one PE (no launcher), on the CPU backend.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/describe.h"
#include "gshmem/error.hpp"
#include "gshmem/host.hpp"

namespace {

class SinglePe : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
    nvshmem_init();
  }
  void TearDown() override {
    nvshmem_finalize();
    EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  }
};
const auto* const env = ::testing::AddGlobalTestEnvironment(new SinglePe);

// The collective launch's exported C symbols (NVSHMEM's library has them; gshmem's headers declare only inline
// forms): present, and on the CPU backend refused with NVSHMEM's code and a message, never a crash.
TEST(SinglePe, CollectiveLaunchSymbols) {
  struct Dim3 {
    unsigned x, y, z;
  };
  using Launch = int (*)(const void*, Dim3, Dim3, void**, size_t, void*);
  using Query = int (*)(const void*, Dim3, void**, size_t, int*);
  auto launch = reinterpret_cast<Launch>(dlsym(RTLD_DEFAULT, "nvshmemx_collective_launch"));
  auto query = reinterpret_cast<Query>(dlsym(RTLD_DEFAULT, "nvshmemx_collective_launch_query_gridsize"));
  ASSERT_NE(launch, nullptr);
  ASSERT_NE(query, nullptr);
  int grid = -1;
  testing::internal::CaptureStderr();
  EXPECT_EQ(launch(reinterpret_cast<const void*>(&grid), Dim3{1, 1, 1}, Dim3{32, 1, 1}, nullptr, 0, nullptr),
            NVSHMEMX_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(query(reinterpret_cast<const void*>(&grid), Dim3{32, 1, 1}, nullptr, 0, &grid),
            NVSHMEMX_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(query(nullptr, Dim3{32, 1, 1}, nullptr, 0, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(grid, -1);
  EXPECT_NE(err.find("nvshmemx_collective_launch: this job runs on the CPU backend"), std::string::npos) << err;
  EXPECT_NE(err.find("nvshmemx_collective_launch_query_gridsize: this job runs on the CPU backend"), std::string::npos)
      << err;
}

TEST(SinglePe, Queries) {
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
  EXPECT_EQ(nvshmem_my_pe(), 0);
  EXPECT_EQ(nvshmem_n_pes(), 1);
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), 1);
  EXPECT_EQ(nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED), 0);
}

std::string describe(gshmem_describe_item_t item, int pe = 0) {
  char buf[256];
  const int n = gshmem_describe(item, pe, buf, sizeof buf);
  return n < 0 ? std::string("(-1)") : std::string(buf);
}

TEST(SinglePe, DescribeTheJob) {
  EXPECT_EQ(describe(GSHMEM_DESCRIBE_STARTED_BY), "no launcher (a job of one PE)");
  EXPECT_EQ(describe(GSHMEM_DESCRIBE_BACKEND), "CPU");
  EXPECT_EQ(describe(GSHMEM_DESCRIBE_BACKEND_REASON), "GSHMEM_BACKEND=cpu");
  EXPECT_EQ(describe(GSHMEM_DESCRIBE_MEMORY), "host shared memory");
  EXPECT_EQ(describe(GSHMEM_DESCRIBE_ROUTE, 0), "local memory");
  EXPECT_FALSE(describe(GSHMEM_DESCRIBE_HOST).empty());
  // Out of range and unknown items write nothing and return -1.
  char buf[8] = "keep";
  EXPECT_EQ(gshmem_describe(GSHMEM_DESCRIBE_ROUTE, 1, buf, sizeof buf), -1);
  EXPECT_EQ(gshmem_describe(static_cast<gshmem_describe_item_t>(99), 0, buf, sizeof buf), -1);
  EXPECT_STREQ(buf, "keep");
  // Cut to fit, NUL-terminated, returning the full length.
  EXPECT_EQ(gshmem_describe(GSHMEM_DESCRIBE_MEMORY, 0, buf, sizeof buf), 18);
  EXPECT_STREQ(buf, "host sh");
}

TEST(SinglePe, VersionQueries) {
  int major = 0, minor = 0, patch = 0;
  nvshmem_info_get_version(&major, &minor);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 3);
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  EXPECT_EQ(major * 10000 + minor * 100 + patch, NVSHMEM_VENDOR_VERSION);
  EXPECT_EQ(NVSHMEM_VENDOR_VERSION, 30800);
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_name(name);
  EXPECT_EQ(std::string(name), NVSHMEM_VENDOR_STRING);
  EXPECT_NE(std::string(name).find(GSHMEM_VERSION_STRING), std::string::npos);
  EXPECT_STREQ(gshmem_status_string(GSHMEM_ERROR_TIMEOUT), "GSHMEM_ERROR_TIMEOUT");
}

TEST(SinglePe, PutGetToSelf) {
  auto* buf = static_cast<unsigned char*>(nvshmem_malloc(1 << 20));
  ASSERT_NE(buf, nullptr);
  std::vector<unsigned char> src(1 << 20), dst(1 << 20);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  nvshmem_putmem(buf + 1, src.data(), src.size() - 1, 0);
  nvshmem_getmem(dst.data(), buf + 1, src.size() - 1, 0);
  EXPECT_EQ(0, std::memcmp(src.data(), dst.data(), src.size() - 1));
  nvshmem_int_p(reinterpret_cast<int*>(buf), 77, 0);
  EXPECT_EQ(nvshmem_int_g(reinterpret_cast<int*>(buf), 0), 77);
  nvshmem_barrier_all();
  nvshmem_free(buf);
}

// NVSHMEM 3.8's regions on the host: one at a time, the handle start gave, hints that is_active reports.
TEST(SinglePe, RegionsStartStopAndReportTheirHints) {
  nvshmemx_region_handle_t h = 0, h2 = 0;
  int active = -1;
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(nvshmemx_region_stop(1), NVSHMEMX_ERROR_INVALID_VALUE);  // none active
  nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
  attrs.hints = NVSHMEMX_REGION_HINT_BATCH_RMA;
  ASSERT_EQ(nvshmemx_region_start(&h, &attrs), 0);
  EXPECT_NE(h, 0u);
  EXPECT_EQ(nvshmemx_region_start(&h2, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);  // no nesting
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active), 0);
  EXPECT_EQ(active, 1);
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 1);
  // Operations inside a region complete as outside it.
  auto* buf = static_cast<int*>(nvshmem_malloc(sizeof(int)));
  ASSERT_NE(buf, nullptr);
  const int v = 41;
  nvshmem_int_put_nbi(buf, &v, 1, 0);
  EXPECT_EQ(nvshmemx_region_stop(h + 1), NVSHMEMX_ERROR_INVALID_VALUE);  // not its handle
  EXPECT_EQ(nvshmemx_region_stop(h), 0);
  nvshmem_quiet();
  EXPECT_EQ(nvshmem_int_g(buf, 0), 41);
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 0);
  // Without hints: active for none, not for BATCH_RMA; handles are new each time.
  ASSERT_EQ(nvshmemx_region_start(&h2, nullptr), 0);
  EXPECT_NE(h2, h);
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active), 0);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 1);
  EXPECT_EQ(nvshmemx_region_stop(h2), 0);
  // Bad arguments.
  EXPECT_EQ(nvshmemx_region_start(nullptr, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  attrs.hints = 0x10;
  EXPECT_EQ(nvshmemx_region_start(&h, &attrs), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_region_is_active(0x10, &active), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  nvshmem_free(buf);
}

// nvshmemx_buffer_register: local buffers outside the heap, not overlapping; unregistered by their start.
TEST(SinglePe, LocalBufferRegistrations) {
  std::vector<char> a(4096), b(4096);
  EXPECT_EQ(nvshmemx_buffer_register(a.data(), a.size()), 0);
  EXPECT_EQ(nvshmemx_buffer_register(a.data() + 100, 10), NVSHMEMX_ERROR_INVALID_VALUE);  // overlaps a
  EXPECT_EQ(nvshmemx_buffer_register(a.data() - 10, 20), NVSHMEMX_ERROR_INVALID_VALUE);   // overlaps a's start
  EXPECT_EQ(nvshmemx_buffer_register(b.data(), b.size()), 0);
  auto* sym = static_cast<char*>(nvshmem_malloc(64));
  ASSERT_NE(sym, nullptr);
  EXPECT_EQ(nvshmemx_buffer_register(sym, 64), NVSHMEMX_ERROR_INVALID_VALUE);  // in the heap
  EXPECT_EQ(nvshmemx_buffer_register(nullptr, 8), NVSHMEMX_ERROR_INVALID_VALUE);
  // A registered buffer is the local side of a put and a get, as any buffer is.
  a[0] = 42;
  nvshmem_putmem(sym, a.data(), 1, 0);
  nvshmem_getmem(b.data(), sym, 1, 0);
  EXPECT_EQ(b[0], 42);
  EXPECT_EQ(nvshmemx_buffer_unregister(a.data() + 1), NVSHMEMX_ERROR_INVALID_VALUE);  // not its start
  EXPECT_EQ(nvshmemx_buffer_unregister(a.data()), 0);
  EXPECT_EQ(nvshmemx_buffer_unregister(a.data()), NVSHMEMX_ERROR_INVALID_VALUE);  // already gone
  EXPECT_EQ(nvshmemx_buffer_register(a.data() + 100, 10), 0);                     // a's space is free again
  nvshmemx_buffer_unregister_all();
  EXPECT_EQ(nvshmemx_buffer_unregister(b.data()), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_buffer_register(b.data(), b.size()), 0);
  nvshmemx_buffer_unregister_all();
  nvshmem_free(sym);
}

// NVSHMEM 3.5's queue pairs: handles of the ordinary channel (gshmem has one per peer), in an array the
// program frees.
TEST(SinglePe, QueuePairHandlesAreTheDefaultChannel) {
  nvshmemx_qp_handle_t* qps = nullptr;
  ASSERT_EQ(nvshmemx_qp_create(3, &qps), 0);
  ASSERT_NE(qps, nullptr);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(qps[i], NVSHMEMX_QP_DEFAULT);
  std::free(qps);
  EXPECT_EQ(nvshmemx_qp_create(-1, &qps), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_qp_create(1, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(NVSHMEMX_PE_ALL, 32768);
}

// NVSHMEM 3.8's counted-write counter: reset sets this PE's copy to 0.
TEST(SinglePe, CountedSignalResetClearsTheCounter) {
  auto* counter = static_cast<uint64_t*>(nvshmem_malloc(sizeof(uint64_t)));
  ASSERT_NE(counter, nullptr);
  nvshmem_uint64_p(counter, 12345, 0);
  nvshmemx_signal_counted_reset(counter);
  EXPECT_EQ(nvshmem_uint64_g(counter, 0), 0u);
  nvshmem_free(counter);
}

TEST(SinglePeDeathTest, InvalidPeEndsTheProgramWithTheRange) {
  auto* buf = static_cast<char*>(nvshmem_malloc(64));
  char src[8] = {};
  EXPECT_EXIT(nvshmem_putmem(buf, src, 8, 1), ::testing::ExitedWithCode(1),
              "nvshmem_putmem: PE 1 is out of range: valid PEs are 0 to 0 \\(1 PEs\\)");
  EXPECT_EXIT(nvshmem_getmem(src, src, 8, 0), ::testing::ExitedWithCode(1),
              "nvshmem_getmem: the source 0x[0-9a-f]+ \\(8 bytes\\) is not inside the symmetric heap");
  nvshmem_free(buf);
}

// A binding's mode: misuse found before a call has any effect throws gshmem::UsageError with the message, and
// the library goes on working; back in the default mode the same misuse ends the program.
TEST(SinglePe, MisuseThrowsWhereTheProgramChoseExceptions) {
  namespace host = gshmem::host;
  auto* buf = static_cast<char*>(nvshmem_malloc(64));
  char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  host::set_error_mode(host::ErrorMode::kThrow);
  try {
    host::putmem(buf, src, 8, 1, host::kBlocking, "binding.put");
    ADD_FAILURE() << "no exception for PE 1 of 1";
  } catch (const gshmem::UsageError& e) {
    EXPECT_STREQ(e.what(), "binding.put: PE 1 is out of range: valid PEs are 0 to 0 (1 PEs)");
  }
  EXPECT_THROW(host::getmem(src, src, 8, 0), gshmem::UsageError);      // the source is not in the heap
  EXPECT_THROW(host::elem_bytes(SIZE_MAX, 2), std::invalid_argument);  // overflow; UsageError is one
  host::putmem(buf, src, 8, 0);                                        // still working
  EXPECT_EQ(std::memcmp(buf, src, 8), 0);
  host::set_error_mode(host::ErrorMode::kExit);
  EXPECT_EXIT(host::putmem(buf, src, 8, 1), ::testing::ExitedWithCode(1), "PE 1 is out of range");
  nvshmem_free(buf);
}

// A call that returns a failed status leaves its reason as the thread's last error.
TEST(SinglePe, LastErrorHoldsTheReasonOfAFailedStatus) {
  namespace host = gshmem::host;
  gshmem::TeamConfig config;
  int team = 0;
  EXPECT_NE(host::team_split_strided(12345, 0, 1, 1, config, &team), GSHMEM_SUCCESS);
  EXPECT_NE(std::string(host::last_error()), "");
}

}  // namespace
