// The arguments that many of the binding's functions read the same way: a status to raise on, comparisons,
// signal and reduction operations by name or number, the stream of an on-stream call (checked against this PE's
// GPU), a PE, a team. Each failure raises gshmem.UsageError naming the argument and what to pass.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "arrays.h"
#include "gshmem/host.hpp"
#include "team_arg.h"

namespace gshmem {
namespace py {

namespace nb = nanobind;

// A call that returned a failed status: gshmem.Error with the library's message.
struct StatusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Raises StatusError (gshmem.Error) with the library's last message when `s` is not success.
void check(host::Status s, const char* api);

// A comparison: "eq", "ne", "gt", "ge", "lt", "le" or a CMP_ constant.
int comparison(nb::handle cmp, const char* api);
// A signal operation: "set", "add" or a SIGNAL_ constant.
int signal_operation(nb::handle op, const char* api);
// A reduction: "sum", "prod", "min", "max", "and", "or", "xor" or its number.
ReduceOp reduce_operation(nb::handle op, const char* api);

// The stream of an on-stream call: false for None; else the handle of a raw int or of an object that carries one
// (torch.cuda.Stream, a cupy stream, a cuda.core Stream), checked to be this PE's GPU's.
bool stream_of(nb::handle s, Stream* out, const char* api);
// How an operation completes: on `stream` when one is given, else non-blocking when `nbi`, else blocking.
host::Mode mode_of(bool nbi, nb::handle stream, const char* api);
// A call not on a stream that touches GPU memory first waits for CUDA's default stream (see args.cpp).
void after_default_stream(const host::Mode& mode, const ConstArray& a, const ConstArray& b, const char* api);
// `pe`, checked against the job's PEs (and that gshmem is initialised).
int pe_of(int pe, const char* api);
// A team's number, from an int (gshmem.Team is one) or an object with __index__.
int team_arg(TeamArg t, const char* api);
// Raises unless `got` == `want` elements of the argument `what` (`why`: the rule, for the message).
void require_count(const char* what, size_t got, size_t want, const std::string& why, const char* api);
// The team's size; raises if this PE is not in it (invalid or destroyed).
int team_size(int team, const char* api);

}  // namespace py
}  // namespace gshmem
