// The exception that the native host API throws for a caller's misuse, where the program chose exceptions
// (gshmem::host::set_error_mode): bindings for other languages turn it into their own errors.
#pragma once

#include <stdexcept>
#include <string>

namespace gshmem {

// A call's arguments or the library's state made the call invalid, found before the call had any effect
// (an invalid PE or team, a pointer outside the symmetric heap, a count that overflows, a call before init).
// what() is the whole message, naming the call, what is wrong and what to do.
class UsageError : public std::invalid_argument {
 public:
  explicit UsageError(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace gshmem
