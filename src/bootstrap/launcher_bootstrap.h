#pragma once

#include <memory>

#include "bootstrap/bootstrap.h"
#include "bootstrap/hub_host.h"
#include "bootstrap/launcher.h"

namespace gshmem {

// A job started by `launcher`: rank 0 serves a TCP root, the launcher broadcasts its address,
// every PE joins it. Collective over the launcher's processes.
Status make_launcher_bootstrap(const Config& config, std::unique_ptr<Launcher> launcher,
                               std::unique_ptr<Bootstrap>* out);
// A unique-ID job: `tcp` is joined to the root; `hub` is the root when this process serves it.
Status make_root_bootstrap(const Config& config, std::unique_ptr<HubHost> hub, std::unique_ptr<Bootstrap> tcp,
                           std::unique_ptr<Bootstrap>* out);

}  // namespace gshmem
