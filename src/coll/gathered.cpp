#include "coll/gathered.h"

namespace gshmem {
namespace {

// The memory operations of combine_by_value over the gathered rows: combine_by_value asks for member
// j's copy of the source's start (the only pointer it maps), which is row j.
struct Rows {
  char* data;
  size_t stride;
  template <class T>
  T* peer(int j, T*) const {
    return reinterpret_cast<T*>(data + stride * static_cast<size_t>(j));
  }
  template <class T>
  T load(const T* p) const {
    return *p;
  }
  int rank() const { return 0; }
  int threads() const { return 1; }
};

}  // namespace

GatheredSources::GatheredSources(const CollCall& c, int size, int my_index, const char* heap_base)
    : call_(c),
      size_(size),
      my_index_(my_index),
      from_(static_cast<uint64_t>(static_cast<const char*>(c.src) - heap_base) +
            (c.op == detail::CollOp::kReducescatter ? c.bytes * static_cast<uint64_t>(my_index) : 0)),
      bytes_(c.bytes),
      stride_((c.bytes + 63) / 64 * 64),
      buffer_((stride_ * static_cast<size_t>(size)) / 16 + 1) {}

bool GatheredSources::combine(void* out) {
  Rows rows{data(), stride_};
  detail::TeamSlot t{};
  t.size = size_;
  t.my_index = my_index_;
  const size_t n = bytes_ / detail::reduce_type_size(call_.dtype);
  return detail::combine_by_value(rows, t, call_.dtype, call_.redop, out, row(my_index_), n);
}

}  // namespace gshmem
