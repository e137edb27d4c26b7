// Loading the plugins that live beside libgshmem_host (bootstraps, network transports).
#pragma once

#include <string>

namespace gshmem {

// dlopens the plugin library `path`: a bare name is looked for beside libgshmem_host first, then by the
// dynamic loader. Returns the handle, or nullptr with the loader's reasons (each place tried) in *errors.
void* open_plugin_library(const std::string& path, std::string* errors);

}  // namespace gshmem
