// The kinds of peer path (path.h) that the transport manager builds, one per PE.
#pragma once

#include <memory>
#include <string>

#include "transport/manager.h"
#include "transport/network.h"
#include "transport/path.h"
#include "transport/transport.h"

namespace gshmem {

// This PE (`local`) or a peer whose heap is mapped here at `base`: every operation by address through
// the memory transport.
std::unique_ptr<PeerPath> make_mapped_path(int pe, bool local, char* base, Transport& memory);
// A peer reached through the network transport by heap offset. Stream-ordered operations go through
// `*poster` when it is set and takes them; otherwise they wait for the stream's earlier work (through
// `memory`) and run at once.
std::unique_ptr<PeerPath> make_network_path(int pe, NetworkTransport& network, Transport& memory,
                                            const StreamPoster* poster);
// A peer this PE cannot reach: every operation fails with GSHMEM_ERROR_NOT_SUPPORTED; `reason` says why.
std::unique_ptr<PeerPath> make_unreachable_path(int pe, std::string reason);

}  // namespace gshmem
