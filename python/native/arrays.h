// What the Python binding knows of arrays: the symmetric allocations it made (live or freed), and the
// checks that turn a wrong array into a gshmem.Error naming the argument and what to do.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace gshmem {
namespace py {

namespace nb = nanobind;

// An array of any framework (numpy, torch, cupy, anything with DLPack or the buffer protocol), any dtype and
// device; Const is the read-only view that sources take.
using Array = nb::ndarray<>;
using ConstArray = nb::ndarray<nb::ro>;

// One allocation of the symmetric heap made through the binding. Arrays made over it hold it as their owner,
// so that their memory stays valid while they live; gshmem.free marks it freed (collective, explicit: an
// allocation is never freed by the garbage collector, whose timing differs between PEs).
struct Allocation {
  uintptr_t base = 0;
  size_t bytes = 0;
  bool live = true;
};

// The allocations by base address. Not thread-safe beyond the GIL, which every caller holds.
class Registry {
 public:
  static Registry& instance();
  std::shared_ptr<Allocation> add(void* base, size_t bytes);
  // The live allocation holding [p, p + bytes), or nullptr.
  Allocation* find(const void* p, size_t bytes) const;
  // Whether p lies in an allocation freed since (and not allocated again).
  bool was_freed(const void* p) const;
  // Whether p lies in an allocation of a session that finalize ended (and not allocated again since: a new
  // session's heap may lie at the same addresses, and then its arrays are told apart only by address).
  bool of_ended_session(const void* p) const;
  // Marks the allocation at `base` freed; false if there is no live one there.
  bool release(void* base);
  size_t live_count() const { return live_.size(); }
  // At finalize (the heap is gone): every allocation becomes one of an ended session.
  void end_session();

 private:
  std::map<uintptr_t, std::shared_ptr<Allocation>> live_;
  std::map<uintptr_t, size_t> freed_;  // base -> bytes
  std::map<uintptr_t, size_t> ended_;
};

// Raises gshmem.Error: `api`: message.
[[noreturn]] void fail(const char* api, const std::string& message);

// The checks. `what` names the argument in messages ("dest", "src", "signal").
// The number of elements.
size_t count(const ConstArray& a);
// Contiguous in C order (row-major), which every operation that moves whole arrays needs.
void require_contiguous(const ConstArray& a, const char* what, const char* api);
// A live symmetric array (or a view into one) covering its `nbytes`; returns its data pointer.
void* require_symmetric(const ConstArray& a, const char* what, const char* api);
// The same dtype in both (code, bits and lanes).
void require_same_dtype(const ConstArray& a, const char* an, const ConstArray& b, const char* bn, const char* api);
// `a`'s dtype by name ("int64", "float32", "bfloat16", ...).
std::string dtype_name(nb::dlpack::dtype t);
// The address of element `index` of `a` (flat, C order), which must exist.
void* element(const ConstArray& a, size_t index, const char* what, const char* api);

}  // namespace py
}  // namespace gshmem
