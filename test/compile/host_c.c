/* The host API from C: the headers are C headers. Runs as a single PE. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>

int main(void) {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (nvshmemx_init_attr(0, &attr) != 0) return 1;
  int *x = (int *)nvshmem_malloc(4 * sizeof(int));
  nvshmem_int_p(x, 41, nvshmem_my_pe());
  int v = nvshmem_int_g(x, nvshmem_my_pe()) + 1;
  nvshmem_barrier_all();
  nvshmem_free(x);
  printf("C program: PE %d of %d, value %d\n", nvshmem_my_pe(), nvshmem_n_pes(), v);
  nvshmem_finalize();
  return v == 42 ? 0 : 1;
}
