// gshmem._native: RMA, signals and atomics.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "args.h"
#include "array_arg.h"
#include "arrays.h"
#include "gshmem/host.hpp"
#include "parts.h"
#include "scalars.h"

namespace gshmem {
namespace py {
namespace {

namespace host = gshmem::host;
using namespace nb::literals;

// The copy of a put or get: both arrays the same dtype and number of elements, both contiguous, or both 1-D
// (strided). `sym` is the symmetric side.
void rma(bool put, const ConstArray& dest, const ConstArray& src, int pe, bool nbi, nb::handle stream,
         const char* api) {
  pe_of(pe, api);
  require_same_dtype(dest, "dest", src, "src", api);
  const size_t n = count(src);
  if (count(dest) != n) {
    fail(api, "dest has " + std::to_string(count(dest)) + " elements but src " + std::to_string(n) +
                  ": pass arrays of one size (slice the larger one)");
  }
  require_symmetric(put ? dest : src, put ? "dest" : "src", api);
  const host::Mode mode = mode_of(nbi, stream, api);
  after_default_stream(mode, dest, src, api);
  void* d = const_cast<void*>(dest.data());
  const void* s = src.data();
  const size_t elem = src.itemsize();
  // (A stride means nothing for fewer than two elements; numpy 2 gives an empty array stride 0.)
  if (n > 1 && dest.ndim() == 1 && src.ndim() == 1 && (dest.stride(0) != 1 || src.stride(0) != 1)) {
    if (dest.stride(0) < 1 || src.stride(0) < 1) fail(api, "strided views must have positive strides");
    if (put) {
      host::iputmem(d, s, dest.stride(0), src.stride(0), elem, n, pe, mode, api);
    } else {
      host::igetmem(d, s, dest.stride(0), src.stride(0), elem, n, pe, mode, api);
    }
    return;
  }
  require_contiguous(dest, "dest", api);
  require_contiguous(src, "src", api);
  if (put) {
    host::putmem(d, s, n * elem, pe, mode, api);
  } else {
    host::getmem(d, s, n * elem, pe, mode, api);
  }
}

// Element `index` of a symmetric array, for p, g and atomics.
void* sym_element(const ConstArray& a, size_t index, const char* what, const char* api) {
  require_symmetric(a, what, api);
  return element(a, index, what, api);
}

uint64_t* signal_word(const ConstArray& sig, size_t index, const char* api) {
  const auto t = sig.dtype();
  if (t.bits != 64 || (t.code != static_cast<uint8_t>(nb::dlpack::dtype_code::UInt) &&
                       t.code != static_cast<uint8_t>(nb::dlpack::dtype_code::Int))) {
    fail(api, "the signal array is " + dtype_name(t) + ": signals are uint64 (or int64) elements");
  }
  return static_cast<uint64_t*>(sym_element(sig, index, "signal", api));
}

// The atomic `op` on element `index` of `dest` at `pe`; the previous value when `fetch`.
nb::object atomic(AmoOp op, const ConstArray& dest, nb::handle value, nb::handle compare, int pe, size_t index,
                  bool fetch, const char* api) {
  pe_of(pe, api);
  const auto t = dest.dtype();
  const bool is_float = t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) ||
                        t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat);
  const bool is_int = t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int) ||
                      t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
  const int bytes = t.bits / 8;
  bool ok = t.lanes == 1 &&
            ((is_int && (bytes == 4 || bytes == 8)) || (is_float && (bytes == 2 || bytes == 4 || bytes == 8)));
  if (ok && is_float) {
    ok = op == AmoOp::kLoad || op == AmoOp::kStore || op == AmoOp::kSwap || op == AmoOp::kFloatAdd;
    if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat)) ok = ok && op != AmoOp::kFloatAdd;
  }
  if (ok) ok = amo_applies(op, bytes);
  if (!ok)
    fail(api, "no such atomic on " + dtype_name(t) +
                  " elements (NVSHMEM's atomic types: 32- and 64-bit "
                  "integers; float, double and half for fetch, set, swap and add)");
  void* word = sym_element(dest, index, "dest", api);
  const uint64_t operand = value.is_none() ? 0 : to_bits(value, t, api);
  const uint64_t cmp = compare.is_none() ? 0 : to_bits(compare, t, api);
  const uint64_t old = host::atomic(word, op, bytes, operand, cmp, fetch, pe, api);
  return fetch ? from_bits(old, t) : nb::none();
}

}  // namespace

void def_rma(nb::module_& m) {
  m.def(
      "put",
      [](const ArrayArg& dest, const ArrayArg& src, int pe, bool nbi, nb::handle stream) {
        rma(true, dest, src, pe, nbi, stream, "gshmem.put");
      },
      "dest"_a, "src"_a, "pe"_a, nb::kw_only(), "nbi"_a = false, "stream"_a = nb::none(),
      "Copies src (local) into `pe`'s copy of the symmetric dest. nbi: complete by the next quiet; stream: in "
      "order on that CUDA stream.");
  m.def(
      "get",
      [](const ArrayArg& dest, const ArrayArg& src, int pe, bool nbi, nb::handle stream) {
        rma(false, dest, src, pe, nbi, stream, "gshmem.get");
      },
      "dest"_a, "src"_a, "pe"_a, nb::kw_only(), "nbi"_a = false, "stream"_a = nb::none(),
      "Copies `pe`'s copy of the symmetric src into dest (local).");
  m.def(
      "copy_bytes",
      [](const ArrayArg& dest, const ArrayArg& src, size_t nbytes, int pe, bool get, bool nbi, nb::handle stream) {
        const char* api = get ? "gshmem.get" : "gshmem.put";
        pe_of(pe, api);
        require_contiguous(dest, "dest", api);
        require_contiguous(src, "src", api);
        if (nbytes > dest.nbytes() || nbytes > src.nbytes()) {
          fail(api, std::to_string(nbytes) + " bytes do not fit dest (" + std::to_string(dest.nbytes()) +
                        " bytes) and src (" + std::to_string(src.nbytes()) + " bytes)");
        }
        require_symmetric(get ? src : dest, get ? "src" : "dest", api);
        const host::Mode mode = mode_of(nbi, stream, api);
        after_default_stream(mode, dest, src, api);
        if (get) {
          host::getmem(const_cast<void*>(dest.data()), src.data(), nbytes, pe, mode, api);
        } else {
          host::putmem(const_cast<void*>(dest.data()), src.data(), nbytes, pe, mode, api);
        }
      },
      "dest"_a, "src"_a, "nbytes"_a, "pe"_a, nb::kw_only(), "get"_a = false, "nbi"_a = false, "stream"_a = nb::none(),
      "The first nbytes of src into dest, whatever their dtypes (both contiguous; dest symmetric for a put, src "
      "for a get): the byte form that bindings of NVSHMEM's byte calls use.");
  m.def(
      "p",
      [](const ArrayArg& dest, nb::handle value, int pe, size_t index, nb::handle stream) {
        const char* api = "gshmem.p";
        pe_of(pe, api);
        void* d = sym_element(dest, index, "dest", api);
        const uint64_t bits = to_bits(value, dest.dtype(), api);
        Stream s = nullptr;
        if (stream_of(stream, &s, api)) {
          host::p_on_stream(d, &bits, dest.itemsize(), pe, s, api);
        } else {
          host::putmem(d, &bits, dest.itemsize(), pe, host::kBlocking, api);  // little-endian: the low bytes
        }
      },
      "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "stream"_a = nb::none(),
      "Stores one value into element `index` of `pe`'s copy of the symmetric dest.");
  m.def(
      "g",
      [](const ArrayArg& src, int pe, size_t index) {
        const char* api = "gshmem.g";
        pe_of(pe, api);
        const void* s = sym_element(src, index, "src", api);
        uint64_t bits = 0;
        host::getmem(&bits, s, src.itemsize(), pe, host::kBlocking, api);
        return from_bits(bits, src.dtype());
      },
      "src"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Element `index` of `pe`'s copy of the symmetric src.");

  // ---- Signals ----
  m.def(
      "put_signal",
      [](const ArrayArg& dest, const ArrayArg& src, const ArrayArg& signal, uint64_t value, int pe, nb::handle op,
         bool nbi, nb::handle stream, size_t signal_index) {
        const char* api = "gshmem.put_signal";
        pe_of(pe, api);
        require_same_dtype(dest, "dest", src, "src", api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        require_symmetric(dest, "dest", api);
        require_contiguous(dest, "dest", api);
        require_contiguous(src, "src", api);
        uint64_t* sig = signal_word(signal, signal_index, api);
        const host::Mode mode = mode_of(nbi, stream, api);
        after_default_stream(mode, dest, src, api);
        host::put_signal(const_cast<void*>(dest.data()), src.data(), src.nbytes(), sig, value,
                         signal_operation(op, api), pe, mode, api);
      },
      "dest"_a, "src"_a, "signal"_a, "value"_a, "pe"_a, nb::kw_only(), "op"_a = "set", "nbi"_a = false,
      "stream"_a = nb::none(), "signal_index"_a = 0,
      "Puts src into `pe`'s dest, then updates `pe`'s signal (op 'set' or 'add'): the data lands first.");
  m.def(
      "signal_op",
      [](const ArrayArg& signal, uint64_t value, int pe, nb::handle op, nb::handle stream, size_t index) {
        const char* api = "gshmem.signal_op";
        pe_of(pe, api);
        uint64_t* sig = signal_word(signal, index, api);
        host::signal_op(sig, value, signal_operation(op, api), pe, mode_of(false, stream, api), api);
      },
      "signal"_a, "value"_a, "pe"_a, nb::kw_only(), "op"_a = "set", "stream"_a = nb::none(), "index"_a = 0,
      "Updates `pe`'s signal with `value` (op 'set' or 'add').");
  m.def(
      "signal_fetch",
      [](const ArrayArg& signal, size_t index) {
        const char* api = "gshmem.signal_fetch";
        return host::signal_fetch(signal_word(signal, index, api), api);
      },
      "signal"_a, nb::kw_only(), "index"_a = 0, "This PE's signal value.");
  m.def(
      "signal_wait_until",
      [](const ArrayArg& signal, nb::handle cmp, uint64_t value, nb::handle stream, size_t index) -> nb::object {
        const char* api = "gshmem.signal_wait_until";
        uint64_t* sig = signal_word(signal, index, api);
        const int c = comparison(cmp, api);
        Stream s = nullptr;
        if (stream_of(stream, &s, api)) {
          host::signal_wait_until_on_stream(sig, c, value, s, api);
          return nb::none();
        }
        uint64_t got = 0;
        {
          nb::gil_scoped_release unlocked;
          got = host::signal_wait_until(sig, c, value, api);
        }
        return nb::int_(got);
      },
      "signal"_a, "cmp"_a, "value"_a, nb::kw_only(), "stream"_a = nb::none(), "index"_a = 0,
      "Waits until this PE's signal compares true with value; returns the value that did (None on a stream).");

  // ---- Atomics ----
  auto def_amo = [&m](const char* name, gshmem::AmoOp op, bool fetch, bool takes_value, const char* doc) {
    if (takes_value) {
      m.def(
          name,
          [op, fetch, name](const ArrayArg& dest, nb::handle value, int pe, size_t index) {
            return atomic(op, dest, value, nb::none(), pe, index, fetch, (std::string("gshmem.") + name).c_str());
          },
          "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, doc);
    } else {
      m.def(
          name,
          [op, fetch, name](const ArrayArg& dest, int pe, size_t index) {
            return atomic(op, dest, nb::none(), nb::none(), pe, index, fetch, (std::string("gshmem.") + name).c_str());
          },
          "dest"_a, "pe"_a, nb::kw_only(), "index"_a = 0, doc);
    }
  };
  using gshmem::AmoOp;
  def_amo("atomic_fetch", AmoOp::kLoad, true, false, "The value of element `index` of `pe`'s dest, atomically.");
  def_amo("atomic_set", AmoOp::kStore, false, true, "Sets element `index` of `pe`'s dest, atomically.");
  def_amo("atomic_swap", AmoOp::kSwap, true, true, "Swaps in value; returns the previous one.");
  def_amo("atomic_and", AmoOp::kAnd, false, true, "Bitwise and with value (integers).");
  def_amo("atomic_fetch_and", AmoOp::kAnd, true, true, "Bitwise and with value; returns the previous value.");
  def_amo("atomic_or", AmoOp::kOr, false, true, "Bitwise or with value (integers).");
  def_amo("atomic_fetch_or", AmoOp::kOr, true, true, "Bitwise or with value; returns the previous value.");
  def_amo("atomic_xor", AmoOp::kXor, false, true, "Bitwise xor with value (integers).");
  def_amo("atomic_fetch_xor", AmoOp::kXor, true, true, "Bitwise xor with value; returns the previous value.");
  m.def(
      "atomic_compare_swap",
      [](const ArrayArg& dest, nb::handle cond, nb::handle value, int pe, size_t index) {
        return atomic(AmoOp::kCompareSwap, dest, value, cond, pe, index, true, "gshmem.atomic_compare_swap");
      },
      "dest"_a, "cond"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0,
      "Stores value where the element equals cond; returns the previous value (integers).");
  // add, fetch_add, inc and fetch_inc: an integer add wraps; a float's is a floating-point add.
  auto add_op = [](const ConstArray& dest) {
    const auto code = dest.dtype().code;
    return code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) ||
                   code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat)
               ? AmoOp::kFloatAdd
               : AmoOp::kAdd;
  };
  m.def(
      "atomic_add",
      [add_op](const ArrayArg& dest, nb::handle value, int pe, size_t index) {
        atomic(add_op(dest), dest, value, nb::none(), pe, index, false, "gshmem.atomic_add");
      },
      "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds value to element `index` of `pe`'s dest.");
  m.def(
      "atomic_fetch_add",
      [add_op](const ArrayArg& dest, nb::handle value, int pe, size_t index) {
        return atomic(add_op(dest), dest, value, nb::none(), pe, index, true, "gshmem.atomic_fetch_add");
      },
      "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds value; returns the previous value.");
  m.def(
      "atomic_inc",
      [add_op](const ArrayArg& dest, int pe, size_t index) {
        atomic(add_op(dest), dest, nb::int_(1), nb::none(), pe, index, false, "gshmem.atomic_inc");
      },
      "dest"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds 1.");
  m.def(
      "atomic_fetch_inc",
      [add_op](const ArrayArg& dest, int pe, size_t index) {
        return atomic(add_op(dest), dest, nb::int_(1), nb::none(), pe, index, true, "gshmem.atomic_fetch_inc");
      },
      "dest"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds 1; returns the previous value.");
}

}  // namespace py
}  // namespace gshmem
