// The configuration table: defaults, value parsing and the errors that name variable and values.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "util/config.h"
#include "util/cpu_affinity.h"

namespace gshmem {
namespace {

Status parse_with(const std::map<std::string, std::string>& env, Config* cfg, std::string* errors) {
  return parse_config(
      [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      cfg, errors);
}

TEST(Config, DefaultsParse) {
  Config cfg;
  std::string errors;
  ASSERT_EQ(parse_with({}, &cfg, &errors), GSHMEM_SUCCESS) << errors;
  EXPECT_EQ(cfg.symmetric_size, 1ull << 30);
  EXPECT_EQ(cfg.max_memory_per_gpu, 128ull << 30);
  EXPECT_EQ(cfg.cumem_granularity, 512ull << 20);
  EXPECT_EQ(cfg.debug, "WARN");
  EXPECT_EQ(cfg.backend, "auto");
  EXPECT_EQ(cfg.bootstrap, "auto");
  EXPECT_FALSE(cfg.disable_p2p);
  EXPECT_EQ(cfg.run_rank, -1);
  EXPECT_DOUBLE_EQ(cfg.bootstrap_timeout, 120.0);
}

TEST(Config, ValuesFromTheEnvironment) {
  Config cfg;
  std::string errors;
  ASSERT_EQ(parse_with({{"NVSHMEM_SYMMETRIC_SIZE", "1.5G"},
                        {"NVSHMEM_DEBUG", "info"},
                        {"NVSHMEM_DISABLE_P2P", "Yes"},
                        {"GSHMEM_BACKEND", "CPU"},
                        {"NVSHMEM_DEBUG_SUBSYS", "init, ^mem"},
                        {"GSHMEM_BOOTSTRAP_TIMEOUT", "2.5"}},
                       &cfg, &errors),
            GSHMEM_SUCCESS)
      << errors;
  EXPECT_EQ(cfg.symmetric_size, 3ull << 29);
  EXPECT_EQ(cfg.debug, "INFO");  // canonical spelling from the table
  EXPECT_TRUE(cfg.disable_p2p);
  EXPECT_EQ(cfg.backend, "cpu");
  ASSERT_EQ(cfg.debug_subsys.size(), 2u);
  EXPECT_EQ(cfg.debug_subsys[0], "INIT");
  EXPECT_EQ(cfg.debug_subsys[1], "^MEM");
  EXPECT_DOUBLE_EQ(cfg.bootstrap_timeout, 2.5);
}

// Settings files (NVSHMEM 3.6): NAME=VALUE lines with comments; later files win, and files win over the
// environment; a file NVSHMEM_CONF_FILE names must exist; a malformed line is named with its file and line.
TEST(ConfigFiles, LaterFilesWinAndFilesWinOverTheEnvironment) {
  char dir[] = "/tmp/gshmem-conf-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string first = std::string(dir) + "/first.conf", second = std::string(dir) + "/second.conf";
  FILE* f = std::fopen(first.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("# the site's defaults\n  NVSHMEM_SYMMETRIC_SIZE = 256M  \nNVSHMEM_DEBUG=INFO # inline comment\n\n", f);
  std::fputs("GSHMEM_BACKEND=cpu\n", f);
  std::fclose(f);
  f = std::fopen(second.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("NVSHMEM_DEBUG=TRACE\nNVSHMEM_DEBUG_FILE=/tmp/log#%p\n", f);  // '#' not after a blank: kept
  std::fclose(f);
  std::map<std::string, std::string> values;
  std::string errors;
  ASSERT_TRUE(read_settings_files({first, "", std::string(dir) + "/missing.conf", second}, second, &values, &errors))
      << errors;
  EXPECT_EQ(values["NVSHMEM_SYMMETRIC_SIZE"], "256M");
  EXPECT_EQ(values["NVSHMEM_DEBUG"], "TRACE");  // the later file
  EXPECT_EQ(values["NVSHMEM_DEBUG_FILE"], "/tmp/log#%p");
  const std::map<std::string, std::string> env = {{"NVSHMEM_SYMMETRIC_SIZE", "2G"}, {"NVSHMEM_DISABLE_P2P", "1"}};
  const EnvLookup lookup = with_settings_files(values, [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  Config cfg;
  ASSERT_EQ(parse_config(lookup, &cfg, &errors), GSHMEM_SUCCESS) << errors;
  EXPECT_EQ(cfg.symmetric_size, 256ull << 20);  // the file over the environment
  EXPECT_EQ(cfg.debug, "TRACE");
  EXPECT_TRUE(cfg.disable_p2p);  // only in the environment
  EXPECT_EQ(cfg.backend, "cpu");
  // A required file that is missing, and a malformed line.
  errors.clear();
  EXPECT_FALSE(
      read_settings_files({std::string(dir) + "/missing.conf"}, std::string(dir) + "/missing.conf", &values, &errors));
  EXPECT_NE(errors.find("NVSHMEM_CONF_FILE='" + std::string(dir) + "/missing.conf' cannot be read"), std::string::npos)
      << errors;
  errors.clear();
  EXPECT_FALSE(parse_settings_text("NVSHMEM_DEBUG=WARN\njust words\n", "site.conf", &values, &errors));
  EXPECT_NE(errors.find("site.conf:2: 'just words' is not a setting"), std::string::npos) << errors;
  std::remove(first.c_str());
  std::remove(second.c_str());
  rmdir(dir);
}

// NVSHMEM_CPU_AFFINITY: the sysfs CPU lists, and a device without one leaves the set with a reason.
TEST(CpuAffinity, CpuListsParse) {
  std::vector<int> cpus;
  ASSERT_TRUE(parse_cpu_list("0-3,8,10-11\n", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  ASSERT_TRUE(parse_cpu_list("5", &cpus));
  EXPECT_EQ(cpus, (std::vector<int>{5}));
  EXPECT_FALSE(parse_cpu_list("", &cpus));
  EXPECT_FALSE(parse_cpu_list("3-1", &cpus));
  EXPECT_FALSE(parse_cpu_list("a-b", &cpus));
  EXPECT_FALSE(parse_cpu_list("1,,2", &cpus));
  std::string why;
  EXPECT_EQ(narrow_to_device_cpus("0000:ZZ:00.0", &why), "");
  EXPECT_NE(why.find("cannot read the GPU's local CPUs from /sys/bus/pci/devices/0000:zz:00.0/local_cpulist"),
            std::string::npos)
      << why;
}

TEST(Config, MalformedValuesNameTheVariableAndTheAcceptedValues) {
  Config cfg;
  std::string errors;
  EXPECT_EQ(parse_with({{"NVSHMEM_SYMMETRIC_SIZE", "12Q"}, {"GSHMEM_BACKEND", "tpu"}, {"NVSHMEM_DISABLE_P2P", "maybe"}},
                       &cfg, &errors),
            GSHMEM_ERROR_CONFIG);
  EXPECT_NE(errors.find("NVSHMEM_SYMMETRIC_SIZE='12Q'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("K, M, G or T"), std::string::npos) << errors;
  EXPECT_NE(errors.find("GSHMEM_BACKEND='tpu'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("auto, gpu, cpu"), std::string::npos) << errors;
  EXPECT_NE(errors.find("NVSHMEM_DISABLE_P2P='maybe'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("true/false"), std::string::npos) << errors;
  // The valid settings around the bad ones keep their defaults.
  EXPECT_EQ(cfg.symmetric_size, 1ull << 30);
}

TEST(Config, BadListItemIsAnError) {
  Config cfg;
  std::string errors;
  EXPECT_EQ(parse_with({{"NVSHMEM_DEBUG_SUBSYS", "INIT,NETWORKING"}}, &cfg, &errors), GSHMEM_ERROR_CONFIG);
  EXPECT_NE(errors.find("NVSHMEM_DEBUG_SUBSYS"), std::string::npos);
  EXPECT_NE(errors.find("BOOTSTRAP"), std::string::npos);
}

TEST(ConfigParsers, Sizes) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_size("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_size("512", &v));
  EXPECT_EQ(v, 512u);
  EXPECT_TRUE(parse_size("4k", &v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(parse_size("2MiB", &v));
  EXPECT_EQ(v, 2u << 20);
  EXPECT_TRUE(parse_size(" 3 GB ", &v));
  EXPECT_EQ(v, 3ull << 30);
  EXPECT_TRUE(parse_size("1T", &v));
  EXPECT_EQ(v, 1ull << 40);
  EXPECT_TRUE(parse_size("100B", &v));
  EXPECT_EQ(v, 100u);
  EXPECT_FALSE(parse_size("", &v));
  EXPECT_FALSE(parse_size("-1", &v));
  EXPECT_FALSE(parse_size("1X", &v));
  EXPECT_FALSE(parse_size("1Kx", &v));
  EXPECT_FALSE(parse_size("G", &v));
}

TEST(ConfigParsers, BoolsIntsSeconds) {
  bool b = false;
  EXPECT_TRUE(parse_bool("ON", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(parse_bool("0", &b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(parse_bool("2", &b));
  int64_t i = 0;
  EXPECT_TRUE(parse_int("-7", &i));
  EXPECT_EQ(i, -7);
  EXPECT_FALSE(parse_int("7x", &i));
  double s = 0;
  EXPECT_TRUE(parse_seconds("0.25", &s));
  EXPECT_DOUBLE_EQ(s, 0.25);
  EXPECT_TRUE(parse_seconds("3s", &s));
  EXPECT_FALSE(parse_seconds("-1", &s));
  EXPECT_FALSE(parse_seconds("soon", &s));
}

TEST(Config, DescribeListsEveryRowWithCurrentValues) {
  Config cfg;
  std::string errors;
  std::map<std::string, std::string> env{{"NVSHMEM_SYMMETRIC_SIZE", "64M"}};
  auto lookup = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  ASSERT_EQ(parse_config(lookup, &cfg, &errors), GSHMEM_SUCCESS);
  auto rows = describe_config(cfg, lookup);
  bool found = false;
  for (const auto& r : rows) {
    EXPECT_NE(r.help[0], '\0') << r.name << " has no help";
    if (std::string(r.name) == "NVSHMEM_SYMMETRIC_SIZE") {
      found = true;
      EXPECT_TRUE(r.is_set);
      EXPECT_EQ(r.current, "64 MiB");
      EXPECT_STREQ(r.default_value, "1G");
    }
  }
  EXPECT_TRUE(found);
}

TEST(ConfigFormat, Sizes) {
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(1024), "1 KiB");
  EXPECT_EQ(format_size(3ull << 30), "3 GiB");
  EXPECT_EQ(format_size(1536), "1.5 KiB (1536 B)");
}

}  // namespace
}  // namespace gshmem
