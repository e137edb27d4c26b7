// Unique-ID bootstrap: nvshmemx_get_uniqueid makes an ID that carries the address and secret of a
// TCP root served by the calling process; the application hands the ID to every process by its own
// means (an MPI broadcast, a file), and each joins with its rank and the job size.
#pragma once

#include <cstddef>
#include <memory>

#include "bootstrap/bootstrap.h"

namespace gshmem {

struct Config;

// Fills `internal` (`len` bytes, the ID's opaque part) and starts this process's root if it does
// not serve one yet. The same process always hands out the same ID.
Status make_unique_id(const Config& config, void* internal, size_t len);
// Joins the job of the ID as `rank` of `size`.
Status join_unique_id(const Config& config, const void* internal, size_t len, int rank, int size,
                      std::unique_ptr<Bootstrap>* out);

}  // namespace gshmem
