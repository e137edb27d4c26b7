// Blocking socket helpers with deadlines, for the bootstrap and the heap's descriptor exchange.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace gshmem {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

inline Deadline deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}
// Milliseconds left until `d` (0 when past), capped for poll().
int ms_until(Deadline d);

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Listens on `host` ("" = any IPv4 address) and `port` (0 = an ephemeral port); returns the bound
// port through `bound_port`.
Status tcp_listen(const std::string& host, int port, Fd* out, int* bound_port);
// Connects to host:port, retrying refused connections until `deadline`.
Status tcp_connect(const std::string& host, int port, Deadline deadline, Fd* out, std::string* why);
// Accepts one connection (returns GSHMEM_ERROR_TIMEOUT at the deadline).
Status tcp_accept(int listen_fd, Deadline deadline, Fd* out);
// Makes the kernel notice a peer that stopped answering (its host lost, a cable cut) on connection
// `fd`: after `seconds` without an acknowledgement the connection fails (TCP keepalive probes once
// a second while idle, and a limit on unacknowledged data). A peer process that ends closes its
// connections itself; this covers the ends that close nothing.
void tcp_set_liveness(int fd, double seconds);
// Splits "host:port".
bool split_host_port(const std::string& addr, std::string* host, int* port);

// Sends/receives exactly `n` bytes before `deadline`. A closed peer yields GSHMEM_ERROR_PEER_GONE.
Status send_all(int fd, const void* buf, size_t n, Deadline deadline);
Status recv_all(int fd, void* buf, size_t n, Deadline deadline);

// Datagram sockets in the Linux abstract namespace: nothing is created in the file system, and
// the name disappears with the process, also when it crashes. Received datagrams carry the
// sender's process id (SO_PASSCRED), so that a receiver can check who sent a descriptor.
Status unix_dgram_bind(const std::string& name, Fd* out);
// One attempt to send `payload` with the descriptor `fd_to_pass` (or none when -1) to the socket
// `name`, without blocking. GSHMEM_ERROR_TIMEOUT: the receiver's queue is full, or no socket has
// that name yet (try again); another error: it failed.
Status unix_try_send_fd(int sock, const std::string& name, const void* payload, size_t n, int fd_to_pass);
// Receives one datagram without blocking: GSHMEM_ERROR_TIMEOUT if none is queued. `*fd_out` is the
// passed descriptor or -1, `*sender_pid` the sending process.
Status unix_try_recv_fd(int sock, void* payload, size_t n, size_t* got, int* fd_out, int* sender_pid);

// Fills `buf` with bytes from the kernel's random source.
Status random_bytes(void* buf, size_t n);

// SipHash-2-4 of `data` under a 128-bit key: the keyed hash that authenticates bootstrap peers.
uint64_t siphash24(const uint8_t key[16], const void* data, size_t n);

std::string to_hex(const void* data, size_t n);
bool from_hex(const std::string& hex, std::vector<uint8_t>* out);

}  // namespace gshmem
