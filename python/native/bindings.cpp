// The NVSHMEM constants that gshmem.nvshmem4py.bindings names in its enums, and the sizes of the structures its
// functions take by address, read from the compat headers (their only source).
#include "bindings.h"

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace gshmem {
namespace py {

nb::dict binding_constants() {
  nb::dict d;
#define GSHMEMPY_CONSTANT(name) d[#name] = static_cast<int64_t>(name)
  GSHMEMPY_CONSTANT(NVSHMEM_SIGNAL_SET);
  GSHMEMPY_CONSTANT(NVSHMEM_SIGNAL_ADD);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_EQ);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_NE);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_GT);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_LE);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_LT);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_GE);
  GSHMEMPY_CONSTANT(NVSHMEM_CMP_SENTINEL);
  GSHMEMPY_CONSTANT(NVSHMEM_STATUS_NOT_INITIALIZED);
  GSHMEMPY_CONSTANT(NVSHMEM_STATUS_IS_BOOTSTRAPPED);
  GSHMEMPY_CONSTANT(NVSHMEM_STATUS_IS_INITIALIZED);
  GSHMEMPY_CONSTANT(NVSHMEM_STATUS_LIMITED_MPG);
  GSHMEMPY_CONSTANT(NVSHMEM_STATUS_FULL_MPG);
  GSHMEMPY_CONSTANT(NVSHMEM_STATUS_INVALID);
  GSHMEMPY_CONSTANT(NVSHMEM_THREAD_SINGLE);
  GSHMEMPY_CONSTANT(NVSHMEM_THREAD_FUNNELED);
  GSHMEMPY_CONSTANT(NVSHMEM_THREAD_SERIALIZED);
  GSHMEMPY_CONSTANT(NVSHMEM_THREAD_MULTIPLE);
  GSHMEMPY_CONSTANT(NVSHMEM_THREAD_TYPE_SENTINEL);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_INVALID);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_WORLD);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_WORLD_INDEX);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_SHARED);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_SHARED_INDEX);
  GSHMEMPY_CONSTANT(NVSHMEMX_TEAM_NODE);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_NODE_INDEX);
  GSHMEMPY_CONSTANT(NVSHMEMX_TEAM_SAME_MYPE_NODE);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_SAME_GPU_INDEX);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_GPU_LEADERS_INDEX);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS);
  GSHMEMPY_CONSTANT(NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID);
  GSHMEMPY_CONSTANT(NVSHMEMX_INIT_THREAD_PES);
  GSHMEMPY_CONSTANT(NVSHMEMX_INIT_WITH_MPI_COMM);
  GSHMEMPY_CONSTANT(NVSHMEMX_INIT_WITH_SHMEM);
  GSHMEMPY_CONSTANT(NVSHMEMX_INIT_WITH_UNIQUEID);
  GSHMEMPY_CONSTANT(NVSHMEMX_INIT_MAX);
  GSHMEMPY_CONSTANT(NVSHMEMX_SUCCESS);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_INVALID_VALUE);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_OUT_OF_MEMORY);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_NOT_SUPPORTED);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_SYMMETRY);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_GPU_NOT_SELECTED);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_INTERNAL);
  GSHMEMPY_CONSTANT(NVSHMEMX_ERROR_SENTINEL);
#undef GSHMEMPY_CONSTANT
  d["sizeof_init_attr"] = sizeof(nvshmemx_init_attr_t);
  d["sizeof_uniqueid"] = sizeof(nvshmemx_uniqueid_t);
  d["sizeof_team_config"] = sizeof(nvshmem_team_config_t);
  return d;
}

namespace {

// numpy's type code of a field's C type (pointers as intp, as nvshmem4py's structures hold them).
template <class T>
const char* numpy_code() {
  if constexpr (std::is_pointer_v<T>) {
    return "intp";
  } else if constexpr (std::is_same_v<T, char>) {
    return "i1";
  } else {
    static_assert(std::is_integral_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "a field of a structure the bindings describe has no numpy code");
    constexpr const char* kSigned[] = {"i1", "i2", nullptr, "i4", nullptr, nullptr, nullptr, "i8"};
    constexpr const char* kUnsigned[] = {"u1", "u2", nullptr, "u4", nullptr, nullptr, nullptr, "u8"};
    return std::is_signed_v<T> ? kSigned[sizeof(T) - 1] : kUnsigned[sizeof(T) - 1];
  }
}

// A structure with every byte zero, padding included, before its initializer's values are assigned (its bytes are
// handed to Python as they are).
template <class T>
T zeroed() {
  T t;
  std::memset(static_cast<void*>(&t), 0, sizeof t);
  return t;
}

struct Layout {
  nb::list fields;
  void add(const char* name, size_t offset, const char* code, size_t count = 0) {
    fields.append(nb::make_tuple(name, offset, code, count));
  }
};

// A field: its name, offset and numpy code; an array of scalars also its length.
#define GSHMEMPY_FIELD(layout, type, field) \
  (layout).add(#field, offsetof(type, field), numpy_code<decltype(type::field)>())
#define GSHMEMPY_ARRAY(layout, type, field)                                                              \
  (layout).add(#field, offsetof(type, field), numpy_code<std::remove_extent_t<decltype(type::field)>>(), \
               std::extent_v<decltype(type::field)>)

}  // namespace

nb::dict binding_structs() {
  nb::dict d;
  // Each with the bytes of its C initializer, which a new Python instance starts from.
  auto entry = [&](const char* name, const auto& initial, Layout& l) {
    d[name] =
        nb::make_tuple(sizeof initial, nb::bytes(reinterpret_cast<const char*>(&initial), sizeof initial), l.fields);
  };
  {
    Layout l;
    GSHMEMPY_FIELD(l, nvshmemx_uniqueid_t, version);
    GSHMEMPY_ARRAY(l, nvshmemx_uniqueid_t, internal);
    auto initial = zeroed<nvshmemx_uniqueid_t>();
    initial = NVSHMEMX_UNIQUEID_INITIALIZER;
    entry("uniqueid", initial, l);
  }
  {
    Layout l;
    GSHMEMPY_FIELD(l, nvshmemx_uniqueid_args_t, version);
    GSHMEMPY_FIELD(l, nvshmemx_uniqueid_args_t, id);
    GSHMEMPY_FIELD(l, nvshmemx_uniqueid_args_t, myrank);
    GSHMEMPY_FIELD(l, nvshmemx_uniqueid_args_t, nranks);
    auto initial = zeroed<nvshmemx_uniqueid_args_t>();
    initial = NVSHMEMX_UNIQUEID_ARGS_INITIALIZER;
    entry("uniqueid_args", initial, l);
  }
  {
    // The arguments inside (uniqueid_args, cuda_device_id) are set by set_attr_uniqueid_args and the C
    // initializer; the structure shows them as one opaque field, as nvshmem4py does.
    Layout l;
    GSHMEMPY_FIELD(l, nvshmemx_init_attr_t, version);
    GSHMEMPY_FIELD(l, nvshmemx_init_attr_t, mpi_comm);
    l.add("args", offsetof(nvshmemx_init_attr_t, args), "i1", sizeof(nvshmemx_init_args_t));
    auto initial = zeroed<nvshmemx_init_attr_t>();
    initial = NVSHMEMX_INIT_ATTR_INITIALIZER;
    entry("init_attr", initial, l);
  }
  {
    Layout l;
    GSHMEMPY_FIELD(l, nvshmem_team_config_t, version);
    GSHMEMPY_FIELD(l, nvshmem_team_config_t, num_contexts);
    GSHMEMPY_FIELD(l, nvshmem_team_config_t, uniqueid);
    GSHMEMPY_ARRAY(l, nvshmem_team_config_t, padding);
    auto initial = zeroed<nvshmem_team_config_t>();
    initial = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    entry("team_config", initial, l);
  }
  return d;
}
#undef GSHMEMPY_FIELD
#undef GSHMEMPY_ARRAY

}  // namespace py
}  // namespace gshmem
