#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bootstrap/bootstrap.h"

namespace gshmem {

// Joins the job whose hub listens at `root` ("host:port"), proving `secret`. `supervised`: a
// launcher (gshmrun) ends every PE when one aborts.
Status connect_tcp_bootstrap(const std::string& root, const uint8_t secret[16], int rank, int size, double timeout_s,
                             std::unique_ptr<Bootstrap>* out, bool supervised = false);

}  // namespace gshmem
