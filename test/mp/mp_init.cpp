// Init states, PE and team queries, version queries and nvshmem_ptr.
#include <cstdlib>
#include <cstring>
#include <string>

#include "mp_test.h"

int main() {
  MP_CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED, "status before init");
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  MP_CHECK(nvshmemx_init_attr(0, &attr) == 0, "nvshmemx_init_attr(0) failed");
  const int status = nvshmemx_init_status();
  MP_CHECK(status == NVSHMEM_STATUS_IS_INITIALIZED || status == NVSHMEM_STATUS_IS_BOOTSTRAPPED, "status %d after init",
           status);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  MP_CHECK(me >= 0 && me < npes, "my_pe %d of %d", me, npes);
  MP_CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == me && nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) == npes, "world");
  // Every PE of these tests runs on this host.
  MP_CHECK(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE) == npes, "node team has %d PEs",
           nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE));
  MP_CHECK(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) == me, "node rank");
  MP_CHECK(nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED) == npes && nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED) == me, "shared");
  MP_CHECK(
      nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE) == 1 && nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE) == 0,
      "same-mype-node team");
  MP_CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID) == -1 && nvshmem_team_n_pes(77) == -1, "invalid teams");

  int major = 0, minor = 0, patch = 0;
  nvshmem_info_get_version(&major, &minor);
  MP_CHECK(major == NVSHMEM_MAJOR_VERSION && minor == NVSHMEM_MINOR_VERSION && major == 1 && minor == 3,
           "spec version %d.%d", major, minor);
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  MP_CHECK(major == NVSHMEM_VENDOR_MAJOR_VERSION && minor == NVSHMEM_VENDOR_MINOR_VERSION &&
               patch == NVSHMEM_VENDOR_PATCH_VERSION,
           "vendor version %d.%d.%d", major, minor, patch);
  char name[NVSHMEM_MAX_NAME_LEN];
  std::memset(name, 'x', sizeof name);
  nvshmem_info_get_name(name);
  MP_CHECK(std::strlen(name) < NVSHMEM_MAX_NAME_LEN && std::string(name) == NVSHMEM_VENDOR_STRING, "name '%s'", name);
  MP_CHECK(std::string(name).find("gshmem") != std::string::npos, "name '%s'", name);

  int provided = -1;
  nvshmem_query_thread(&provided);
  MP_CHECK(provided == NVSHMEM_THREAD_SERIALIZED, "thread level %d", provided);

  int* buf = static_cast<int*>(nvshmem_malloc(sizeof(int) * 16));
  // PEs sharing a GPU (the GPU backend on a machine with fewer GPUs than PEs) report limited MPG.
  const char* backend = std::getenv("GSHMEM_BACKEND");
  const bool gpu = backend && std::string(backend) == "gpu";
  const int bound = nvshmemx_init_status();
  MP_CHECK(bound == NVSHMEM_STATUS_IS_INITIALIZED || (gpu && bound == NVSHMEM_STATUS_LIMITED_MPG),
           "status %d after the first malloc", bound);
  const int next = (me + 1) % npes;
  MP_CHECK(nvshmem_ptr(buf, me) == buf, "nvshmem_ptr to myself");
  MP_CHECK(nvshmem_ptr(buf, next) != nullptr, "a PE on this node is reachable by load/store");
  int stack = 0;
  MP_CHECK(nvshmem_ptr(&stack, next) == nullptr, "nvshmem_ptr of non-heap memory");
  MP_CHECK(nvshmem_ptr(buf, npes) == nullptr && nvshmem_ptr(buf, -1) == nullptr, "nvshmem_ptr of invalid PEs");
  if (std::getenv("GSHMEM_BACKEND") && std::string(std::getenv("GSHMEM_BACKEND")) == "cpu") {
    // On the CPU backend the pointer is a host pointer: store through it and let the owner read.
    int* remote = static_cast<int*>(nvshmem_ptr(buf, next));
    remote[3] = 4242 + me;
    nvshmem_barrier_all();
    MP_CHECK(nvshmem_int_g(buf + 3, me) == 4242 + (me + npes - 1) % npes, "store through nvshmem_ptr");
  }
  nvshmem_barrier_all();
  nvshmem_free(buf);
  nvshmem_finalize();
  MP_CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED, "status after finalize");
  if (me == 0) std::printf("mp_init: %d PEs ok\n", npes);
  return 0;
}
