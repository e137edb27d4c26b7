// gshmem-info: prints the version, how this gshmem was built, and every setting with its default,
// its value in the current environment and one line of help. Exits 1 if a setting is malformed.
#include <cstdio>
#include <cstring>
#include <string>

#include "gshmem/version.h"
#include "util/config.h"
#include "util/cuda_driver.h"

#ifndef GSHMEM_BUILD_CUDA_ARCHS
#define GSHMEM_BUILD_CUDA_ARCHS ""
#endif

namespace {

void print_gpus(const std::string& cuda_path) {
#ifdef GSHMEM_HAVE_CUDA
  std::string why;
  if (!gshmem::ok(gshmem::load_cuda_driver(cuda_path, &why))) {
    std::printf("  GPUs:            none usable (%s); the CPU backend will be used\n", why.c_str());
    return;
  }
  int version = 0, n = 0;
  gshmem::cu().cuDriverGetVersion(&version);
  gshmem::cu().cuDeviceGetCount(&n);
  std::printf("  CUDA driver:     %d.%d\n", version / 1000, (version % 1000) / 10);
  for (int i = 0; i < n; ++i) {
    CUdevice d;
    char name[128] = "";
    gshmem::cu().cuDeviceGet(&d, i);
    gshmem::cu().cuDeviceGetName(name, sizeof name, d);
    std::printf("  GPU %d:           %s\n", i, name);
  }
  if (n == 0) std::printf("  GPUs:            none visible; the CPU backend will be used\n");
#else
  (void)cuda_path;
  std::printf("  GPUs:            not supported by this build (CPU backend only)\n");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--all") || !std::strcmp(argv[i], "-a")) {
      all = true;
    } else if (!std::strcmp(argv[i], "--markdown")) {
      std::fputs(gshmem::settings_markdown().c_str(), stdout);
      return 0;
    } else if (!std::strcmp(argv[i], "--version")) {
      std::printf("gshmem %s\n", GSHMEM_VERSION_STRING);
      return 0;
    } else {
      std::printf(
          "usage: gshmem-info [--all] [--version] [--markdown]\n"
          "Prints the version, the build options and every setting (--all: also the internal ones);\n"
          "--markdown prints the reference table of the settings (docs/settings.md).\n");
      return std::strcmp(argv[i], "-h") && std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  gshmem::Config config;
  std::string errors;
  gshmem::Status s = gshmem::parse_config_from_environment(&config, &errors);

  std::printf("gshmem %s (implements the NVSHMEM %d.%d.%d API, OpenSHMEM %d.%d)\n\n", GSHMEM_VERSION_STRING,
              GSHMEM_NVSHMEM_API_MAJOR, GSHMEM_NVSHMEM_API_MINOR, GSHMEM_NVSHMEM_API_PATCH, GSHMEM_OPENSHMEM_MAJOR,
              GSHMEM_OPENSHMEM_MINOR);
  std::printf("Build:\n");
#ifdef GSHMEM_HAVE_CUDA
  std::printf("  GPU backend:     yes (CUDA %d.%d headers; embedded kernels for sm %s)\n", CUDA_VERSION / 1000,
              (CUDA_VERSION % 1000) / 10, GSHMEM_BUILD_CUDA_ARCHS);
#else
  std::printf("  GPU backend:     no (built without CUDA)\n");
#endif
  std::printf(
      "  CPU backend:     yes\n  Bootstraps:      gshmrun (TCP), PMI-1, PMI-2, unique ID, single PE; plugins: MPI, "
      "PMIx\n\nThis machine:\n");
  print_gpus(config.cuda_path);

  std::printf("\nSettings (environment variables; * = set in this environment):\n");
  for (const gshmem::ConfigEntry& e : gshmem::describe_config_from_environment(config)) {
    if (e.category != gshmem::ConfigCategory::Public && !all) continue;
    std::printf("\n  %s%s  (%s", e.name, e.is_set ? " *" : "", gshmem::config_type_name(e.type));
    if (e.values[0]) {
      std::string v = e.values;
      for (char& c : v) {
        if (c == '|') c = ',';
      }
      std::printf(": %s", v.c_str());
    }
    std::printf(")\n    default: %s\n    current: %s\n    %s\n", e.default_value[0] ? e.default_value : "(empty)",
                e.current.empty() ? "(empty)" : e.current.c_str(), e.help);
  }
  if (!gshmem::ok(s)) {
    std::fprintf(stderr, "\nerror: malformed settings:\n  %s\n", errors.c_str());
    return 1;
  }
  return 0;
}
