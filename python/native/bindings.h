// gshmem.nvshmem4py.bindings: NVSHMEM's C host functions called by name from Python, as nvshmem4py's
// nvshmem.bindings offers them (pointers as integers). The table of names, codes and addresses is generated
// (gen/bindings_table.cpp); a call converts the arguments from Python by the codes, releases the GIL for the C
// call (which may block: a barrier, a wait) and converts the result back. A misuse that the C function reports by
// ending the job in a C program (an invalid PE, a pointer outside the heap) comes back as gshmem.UsageError,
// since the binding runs in the library's throwing error mode; nothing was done then.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gshmem {
namespace py {

namespace nb = nanobind;

using BindingFn = void (*)();

struct BindingEntry {
  const char* name;    // the C name (nvshmem_int_put)
  const char* result;  // a code of codegen/gen_api.py's PY_CODES, or S: an int status
  const char* params;  // one code per parameter
  int signature;       // which invoke<> calls it
  BindingFn fn;
};

extern const BindingEntry kBindings[];
extern const size_t kBindingCount;

// Calls `e` with the Python arguments `a` (TypeError on a wrong count or an argument that does not convert).
nb::object call_binding(const BindingEntry& e, const nb::args& a);
// NVSHMEM's enum values by name, and the sizes of the structures the functions take by address.
nb::dict binding_constants();
// The structures the functions take by address, by nvshmem4py's class name: (sizeof, the bytes of the C
// initializer, [(field, offset, numpy code, array length or 0)]), from the compat headers' definitions.
nb::dict binding_structs();

[[noreturn]] inline void bad_argument(const BindingEntry& e, size_t i, const char* what) {
  throw nb::type_error((std::string(e.name) + ": argument " + std::to_string(i + 1) + " must be " + what).c_str());
}

// One argument. Pointers: an integer address (intptr_t, as nvshmem4py passes them) or None.
template <class T>
T binding_arg(const BindingEntry& e, nb::handle h, size_t i) {
  if constexpr (std::is_pointer_v<T>) {
    if (h.is_none()) return nullptr;
    uint64_t u = 0;
    int64_t s = 0;
    if (nb::try_cast(h, u, true)) return reinterpret_cast<T>(static_cast<uintptr_t>(u));
    if (nb::try_cast(h, s, true)) return reinterpret_cast<T>(static_cast<intptr_t>(s));
    bad_argument(e, i, "an address (an int) or None");
  } else if constexpr (std::is_floating_point_v<T>) {
    double v = 0;
    if (!nb::try_cast(h, v, true)) bad_argument(e, i, "a number");
    return static_cast<T>(v);
  } else {
    T v{};
    if (!nb::try_cast(h, v, true)) bad_argument(e, i, "an int in the range of its C type");
    return v;
  }
}

template <class R>
nb::object binding_result(R r) {
  if constexpr (std::is_pointer_v<R>) {
    return nb::int_(reinterpret_cast<uintptr_t>(r));
  } else if constexpr (std::is_floating_point_v<R>) {
    return nb::float_(static_cast<double>(r));
  } else {
    return nb::int_(r);
  }
}

template <class R, class... A, size_t... I>
nb::object invoke_with(const BindingEntry& e, const nb::args& a, std::index_sequence<I...>) {
  if (a.size() != sizeof...(A)) {
    throw nb::type_error((std::string(e.name) + " takes " + std::to_string(sizeof...(A)) + " argument(s), " +
                          std::to_string(a.size()) + " given")
                             .c_str());
  }
  std::tuple<A...> args{binding_arg<A>(e, a[I], I)...};
  auto f = reinterpret_cast<R (*)(A...)>(e.fn);
  if constexpr (std::is_void_v<R>) {
    {
      nb::gil_scoped_release unlocked;
      f(std::get<I>(args)...);
    }
    return nb::none();
  } else {
    R r;
    {
      nb::gil_scoped_release unlocked;
      r = f(std::get<I>(args)...);
    }
    return binding_result(r);
  }
}

template <class R, class... A>
nb::object invoke(const BindingEntry& e, const nb::args& a) {
  return invoke_with<R, A...>(e, a, std::index_sequence_for<A...>{});
}

}  // namespace py
}  // namespace gshmem
