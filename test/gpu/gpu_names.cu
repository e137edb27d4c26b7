// Every typed, sized and mem RMA name of the device API, called once each with random data
// (test/gpu/gen/rma_names.cuh, generated from the type table), and each call's data checked. The
// calls are compiled in parts (gpu_names_part.cuh); this unit checks the results.
#include <cstdint>
#include <string>

#include "gen/rma_names.cuh"
#include "gpu_names_parts.h"
#include "gpu_test.cuh"

namespace {

constexpr size_t kSlotElems = 8;

const GshmemtRmaNamesInfo kInfo[] = {GSHMEMT_RMA_NAMES_INFO};
constexpr int kRows = sizeof(kInfo) / sizeof(kInfo[0]);
const GpuNamesPartFn kParts[kGpuNamesParts] = {gpu_names_part0, gpu_names_part1, gpu_names_part2, gpu_names_part3,
                                               gpu_names_part4};

// Which slots of a type's function are written by puts (in `sym`) and gets (in `res`): slot 0 by
// p and g, then for put, get, put_nbi, get_nbi three slots each (thread, warp, block).
bool slot_is_put(int slot) { return slot == 0 || ((slot - 1) / 3) % 2 == 0; }
bool slot_is_get(int slot) { return slot == 0 || ((slot - 1) / 3) % 2 == 1; }

}  // namespace

int main() {
  gputest::init_and_select_gpu();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t kBytes = 16 * 1024;  // room for 13 slots of 8 elements of 16 bytes, and the sized set
  char* sym = static_cast<char*>(nvshmem_malloc(kBytes));
  char* peer_src = static_cast<char*>(nvshmem_malloc(kBytes));
  char *src, *res;
  CUDA_CHECK(cudaMalloc(&src, kBytes));
  CUDA_CHECK(cudaMalloc(&res, kBytes));
  const GshmemtRmaNamesInfo* table = kInfo;

  std::vector<unsigned char> pattern(kBytes);
  int names = 0;
  for (int row = 0; row <= kRows; ++row) {
    const bool is_sized = row == kRows;
    const std::string name = is_sized ? "sized/mem" : table[row].name;
    const size_t used = is_sized ? GSHMEMT_RMA_NAMES_SIZED_BYTES : table[row].slots * kSlotElems * table[row].elem;
    CUDA_CHECK(cudaMemset(sym, 0x5A, kBytes));
    CUDA_CHECK(cudaMemset(res, 0x5A, kBytes));
    mp::fill(pattern.data(), kBytes, mp::seed_of(me, static_cast<uint64_t>(row)));
    CUDA_CHECK(cudaMemcpy(src, pattern.data(), kBytes, cudaMemcpyHostToDevice));
    mp::fill(pattern.data(), kBytes, mp::seed_of(me, static_cast<uint64_t>(row), 1));
    CUDA_CHECK(cudaMemcpy(peer_src, pattern.data(), kBytes, cudaMemcpyHostToDevice));
    nvshmem_barrier_all();
    int ran = 0;
    for (GpuNamesPartFn part : kParts) ran += part(row, kRows, sym, src, res, peer_src, next) ? 1 : 0;
    MP_CHECK(ran == 1, "%s: %d parts of gpu_names hold this row, expected 1", name.c_str(), ran);
    nvshmem_barrier_all();

    // What this PE should hold: in `sym`, the previous PE's `src` bytes where it put; in `res`,
    // the next PE's `peer_src` bytes where this PE got; 0x5A everywhere else.
    std::vector<unsigned char> from_prev(kBytes), from_next(kBytes);
    mp::fill(from_prev.data(), kBytes, mp::seed_of(prev, static_cast<uint64_t>(row)));
    mp::fill(from_next.data(), kBytes, mp::seed_of(next, static_cast<uint64_t>(row), 1));
    auto got_sym = gputest::to_host(sym, kBytes);
    auto got_res = gputest::to_host(res, kBytes);
    for (size_t b = 0; b < kBytes; ++b) {
      bool put_byte = false, get_byte = false;
      if (b < used) {
        if (is_sized) {
          // Layout of the sized function: widths 8..128 bits then mem, each with 12 slots
          // (put, get, put_nbi, get_nbi x thread, warp, block) of 8 elements.
          size_t off = 0;
          for (size_t width : {1, 2, 4, 8, 16, 1}) {
            size_t block = 12 * 8 * width;
            if (b < off + block) {
              int slot = static_cast<int>((b - off) / (8 * width));
              put_byte = (slot / 3) % 2 == 0;
              get_byte = !put_byte;
              break;
            }
            off += block;
          }
        } else {
          size_t slot_bytes = kSlotElems * table[row].elem;
          int slot = static_cast<int>(b / slot_bytes);
          // Slot 0 holds one element for p (in sym) and g (in res).
          bool first_elem = b % slot_bytes < table[row].elem;
          put_byte = slot_is_put(slot) && (slot != 0 || first_elem);
          get_byte = slot_is_get(slot) && (slot != 0 || first_elem);
        }
      }
      MP_CHECK(got_sym[b] == (put_byte ? from_prev[b] : 0x5A), "%s: byte %zu of the put target is %02x, expected %02x",
               name.c_str(), b, got_sym[b], put_byte ? from_prev[b] : 0x5A);
      MP_CHECK(got_res[b] == (get_byte ? from_next[b] : 0x5A), "%s: byte %zu of the get target is %02x, expected %02x",
               name.c_str(), b, got_res[b], get_byte ? from_next[b] : 0x5A);
    }
    names += is_sized ? 72 : 14;
  }
  nvshmem_barrier_all();
  if (me == 0) std::printf("gpu_names: %d types and the sized forms, %d device names checked\n", kRows, names);
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(res));
  nvshmem_free(peer_src);
  nvshmem_free(sym);
  nvshmem_finalize();
  return 0;
}
