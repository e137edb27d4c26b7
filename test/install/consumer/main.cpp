#include <nvshmem.h>

#include <cstdio>

int main() {
  nvshmem_init();
  int* x = static_cast<int*>(nvshmem_malloc(sizeof(int)));
  nvshmem_int_p(x, nvshmem_my_pe(), (nvshmem_my_pe() + 1) % nvshmem_n_pes());
  nvshmem_barrier_all();
  std::printf("consumer: PE %d of %d via %s, got %d\n", nvshmem_my_pe(), nvshmem_n_pes(), PACKAGE_NAME,
              nvshmem_int_g(x, nvshmem_my_pe()));
  nvshmem_free(x);
  nvshmem_finalize();
  return 0;
}
