// The smallest gshmem program: start, say who we are, end. Runs on GPUs or on the CPU backend.
//   gshmrun -n 2 ./hello
#include <nvshmem.h>

#include <cstdio>

int main() {
  nvshmem_init();
  // NVSHMEM's idiom: pick a GPU by node rank here (cudaSetDevice), then the first collective
  // call binds it. Without a cudaSetDevice, gshmem picks the same GPU by itself.
  void* one_byte = nvshmem_malloc(1);
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_name(name);
  std::printf("Hello from PE %d of %d (rank %d of %d on this node), %s\n", nvshmem_my_pe(), nvshmem_n_pes(),
              nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), name);
  nvshmem_free(one_byte);
  nvshmem_finalize();
  return 0;
}
