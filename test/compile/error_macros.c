/* What programs written for NVSHMEM rely on beyond the API: assert() without <assert.h>, the
 * error codes and error-check macros of non_abi/nvshmemx_error.h, and nvshmemx_status_string (3.8), all
 * through the umbrella headers alone (as NVSHMEM's perftest helpers include them). Exit 0 only if each
 * acted as described. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <string.h>

static int jumps(void* p, int a, int b) {
  int status = 0;
  NVSHMEMI_NULL_ERROR_JMP(p, status, NVSHMEMX_ERROR_OUT_OF_MEMORY, out, "p is NULL\n");
  NVSHMEMI_EQ_ERROR_JMP(a, b, status, NVSHMEMX_ERROR_INVALID_VALUE, out, "a == b\n");
  NVSHMEMI_NE_ERROR_JMP(a, b + 1, status, NVSHMEMX_ERROR_INTERNAL, out, "a != b + 1\n");
  status = 99; /* not reached unless a == b + 1 */
out:
  return status;
}

int main(void) {
  int x = 1;
  assert(x == 1); /* from nvshmem.h, as with NVSHMEM's headers */
  int status = 5;
  NVSHMEMI_NZ_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, fail, "status %d\n", status);
  return 1; /* the jump must have happened */
fail:
  if (status != NVSHMEMX_ERROR_INTERNAL) return 2;
  if (jumps(NULL, 0, 0) != NVSHMEMX_ERROR_OUT_OF_MEMORY) return 3;
  if (jumps(&x, 4, 4) != NVSHMEMX_ERROR_INVALID_VALUE) return 4;
  if (jumps(&x, 4, 7) != NVSHMEMX_ERROR_INTERNAL) return 5;
  if (jumps(&x, 5, 4) != 99) return 6;
  if (strcmp(nvshmemx_status_string(NVSHMEMX_SUCCESS), "NVSHMEMX_SUCCESS") != 0) return 7;
  if (strcmp(nvshmemx_status_string(NVSHMEMX_ERROR_SYMMETRY), "NVSHMEMX_ERROR_SYMMETRY") != 0) return 8;
  if (strcmp(nvshmemx_status_string(NVSHMEMX_ERROR_INTERNAL), "NVSHMEMX_ERROR_INTERNAL") != 0) return 9;
  if (strcmp(nvshmemx_status_string(8), "NVSHMEMX_ERROR_<unknown>") != 0) return 10;
  if (strcmp(nvshmemx_status_string(-1), "NVSHMEMX_ERROR_<unknown>") != 0) return 11;
  NVSHMEMI_ERROR_PRINT("error macros: all acted\n");
  return 0;
}
