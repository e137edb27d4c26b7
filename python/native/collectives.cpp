// gshmem._native: teams and the collectives on them.
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

ReduceType reduce_type_of(nb::dlpack::dtype t, const char* api) {
  using nb::dlpack::dtype_code;
  if (t.lanes == 1) {
    switch (static_cast<dtype_code>(t.code)) {
      case dtype_code::Int:
      case dtype_code::UInt: {
        const bool s = t.code == static_cast<uint8_t>(dtype_code::Int);
        switch (t.bits) {
          case 8:
            return s ? ReduceType::kI8 : ReduceType::kU8;
          case 16:
            return s ? ReduceType::kI16 : ReduceType::kU16;
          case 32:
            return s ? ReduceType::kI32 : ReduceType::kU32;
          case 64:
            return s ? ReduceType::kI64 : ReduceType::kU64;
        }
        break;
      }
      case dtype_code::Float:
        if (t.bits == 16) return ReduceType::kF16;
        if (t.bits == 32) return ReduceType::kF32;
        if (t.bits == 64) return ReduceType::kF64;
        break;
      case dtype_code::Bfloat:
        if (t.bits == 16) return ReduceType::kBF16;
        break;
      default:
        break;
    }
  }
  fail(api, "no reduction on " + dtype_name(t) +
                " elements (integers of 8 to 64 bits, float16, bfloat16, "
                "float32, float64)");
}

host::Mode collective_mode(nb::handle stream, const char* api) { return mode_of(false, stream, api); }

// dest and src: symmetric, contiguous, one dtype.
void collective_arrays(const ConstArray& dest, const ConstArray& src, const char* api) {
  if (host::init_state() == 0) fail(api, "gshmem is not initialised: call gshmem.init() first");
  require_same_dtype(dest, "dest", src, "src", api);
  require_symmetric(dest, "dest", api);
  require_symmetric(src, "src", api);
  require_contiguous(dest, "dest", api);
  require_contiguous(src, "src", api);
}

}  // namespace

void def_collectives(nb::module_& m) {
  m.def("team_my_pe", &host::team_my_pe, "team"_a, "This PE's index in the team, or -1.");
  m.def("team_n_pes", &host::team_n_pes, "team"_a, "The team's size, or -1.");
  m.def("team_translate_pe", &host::team_translate_pe, "src_team"_a, "pe"_a, "dest_team"_a,
        "The index in dest_team of member `pe` of src_team, or -1.");
  m.def(
      "team_split_strided",
      [](int parent, int start, int stride, int size) {
        const char* api = "gshmem.Team.split_strided";
        team_size(parent, api);
        int out = GSHMEM_TEAM_INVALID;
        {
          nb::gil_scoped_release unlocked;
          check(host::team_split_strided(parent, start, stride, size, gshmem::TeamConfig(), &out, api), api);
        }
        return out;
      },
      "parent"_a, "start"_a, "stride"_a, "size"_a,
      "A team of the parent's members start + i * stride (collective over the parent); TEAM_INVALID where this "
      "PE is not in it.");
  m.def(
      "team_split_2d",
      [](int parent, int xrange) {
        const char* api = "gshmem.Team.split_2d";
        team_size(parent, api);
        int x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
        {
          nb::gil_scoped_release unlocked;
          check(host::team_split_2d(parent, xrange, gshmem::TeamConfig(), &x, gshmem::TeamConfig(), &y, api), api);
        }
        return nb::make_tuple(x, y);
      },
      "parent"_a, "xrange"_a, "Rows of xrange members and the columns (collective over the parent): (x, y).");
  m.def(
      "team_destroy",
      [](int team) {
        const char* api = "gshmem.Team.destroy";
        nb::gil_scoped_release unlocked;
        check(host::team_destroy(team, api), api);
      },
      "team"_a, "Destroys a team that a split made (collective over its members).");
  m.def(
      "team_uniqueid",
      []() {
        uint64_t id = 0;
        check(host::team_uniqueid(&id, "gshmem.team_uniqueid"), "gshmem.team_uniqueid");
        return id;
      },
      "An ID for a team made by team_init (on one PE; hand it to the members).");
  m.def(
      "team_init",
      [](uint64_t id, int npes, int index) {
        const char* api = "gshmem.team_init";
        int out = GSHMEM_TEAM_INVALID;
        gshmem::TeamConfig c;
        c.uniqueid = id;
        nb::gil_scoped_release unlocked;
        check(host::team_init(id, npes, index, c, &out, api), api);
        return out;
      },
      "uniqueid"_a, "npes"_a, "index"_a, "A team of npes members from a team unique ID; this PE is member `index`.");

  // ---- Collectives ----
  // Their team argument: TEAM_WORLD unless given (the stubs say so by name).
  const auto world = [] { return nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD); };
  m.def(
      "barrier",
      [](TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.barrier";
        const int team = team_arg(team_object, api);
        team_size(team, api);
        const host::Mode mode = collective_mode(stream, api);
        nb::gil_scoped_release unlocked;
        check(host::barrier(team, mode, api), api);
      },
      world(), nb::kw_only(), "stream"_a = nb::none(),
      "Completes this PE's operations, then waits for the team's members (collective).");
  m.def(
      "sync",
      [](TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.sync";
        const int team = team_arg(team_object, api);
        team_size(team, api);
        const host::Mode mode = collective_mode(stream, api);
        nb::gil_scoped_release unlocked;
        check(host::team_sync(team, mode, api), api);
      },
      world(), nb::kw_only(), "stream"_a = nb::none(), "Waits for the team's members (collective; no quiet).");
  m.def(
      "broadcast",
      [](const ArrayArg& dest, const ArrayArg& src, int root, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.broadcast";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        if (root < 0 || root >= n) {
          fail(api, "root " + std::to_string(root) + " is not a member index of the team (0 to " +
                        std::to_string(n - 1) + ")");
        }
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::broadcastmem(team, const_cast<void*>(dest.data()), src.data(), src.nbytes(), root, mode, api), api);
      },
      "dest"_a, "src"_a, "root"_a = 0, world(), nb::kw_only(), "stream"_a = nb::none(),
      "The root's src into every member's dest (root: an index in the team).");
  m.def(
      "fcollect",
      [](const ArrayArg& dest, const ArrayArg& src, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.fcollect";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src) * n, "src's elements times the team's size", api);
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::fcollectmem(team, const_cast<void*>(dest.data()), src.data(), src.nbytes(), mode, api), api);
      },
      "dest"_a, "src"_a, world(), nb::kw_only(), "stream"_a = nb::none(),
      "Every member's src, in team order, into every member's dest.");
  m.def(
      "alltoall",
      [](const ArrayArg& dest, const ArrayArg& src, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.alltoall";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        if (count(src) % static_cast<size_t>(n) != 0) {
          fail(api, "src has " + std::to_string(count(src)) + " elements, not a block for each of the team's " +
                        std::to_string(n) + " members");
        }
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::alltoallmem(team, const_cast<void*>(dest.data()), src.data(), src.nbytes() / n, mode, api), api);
      },
      "dest"_a, "src"_a, world(), nb::kw_only(), "stream"_a = nb::none(),
      "Block j of member i's src into block i of member j's dest (src and dest hold a block per member).");
  m.def(
      "reduce",
      [](const ArrayArg& dest, const ArrayArg& src, nb::handle op, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.reduce";
        const int team = team_arg(team_object, api);
        team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        const gshmem::ReduceOp o = reduce_operation(op, api);
        const gshmem::ReduceType t = reduce_type_of(src.dtype(), api);
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::reduce(team, t, o, const_cast<void*>(dest.data()), src.data(), count(src), mode, api), api);
      },
      "dest"_a, "src"_a, "op"_a = "sum", world(), nb::kw_only(), "stream"_a = nb::none(),
      "src combined with op ('sum', 'prod', 'min', 'max', 'and', 'or', 'xor') over the team's members into every "
      "member's dest (collective; team: a gshmem.Team or a team number; stream: on that CUDA stream).");
  m.def(
      "reducescatter",
      [](const ArrayArg& dest, const ArrayArg& src, nb::handle op, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.reducescatter";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("src", count(src), count(dest) * n, "a block of dest's size for each member", api);
        const gshmem::ReduceOp o = reduce_operation(op, api);
        const gshmem::ReduceType t = reduce_type_of(src.dtype(), api);
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::reducescatter(team, t, o, const_cast<void*>(dest.data()), src.data(), count(dest), mode, api), api);
      },
      "dest"_a, "src"_a, "op"_a = "sum", world(), nb::kw_only(), "stream"_a = nb::none(),
      "Block i of the combination over the members into member i's dest.");
}

}  // namespace py
}  // namespace gshmem
