#include "util/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "util/log.h"

namespace gshmem {

int ms_until(Deadline d) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now()).count();
  if (left <= 0) return 0;
  if (left > 1000000) return 1000000;
  return static_cast<int>(left);
}

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void tcp_set_liveness(int fd, double seconds) {
  const int total = std::max(2, static_cast<int>(seconds + 0.999));
  int on = 1, idle = 1, interval = 1, count = total - 1;
  unsigned user_timeout_ms = static_cast<unsigned>(total) * 1000u;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

bool split_host_port(const std::string& addr, std::string* host, int* port) {
  size_t colon = addr.rfind(':');
  if (colon == std::string::npos || colon + 1 >= addr.size()) return false;
  *host = addr.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  char* end = nullptr;
  long p = std::strtol(addr.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || p <= 0 || p > 65535) return false;
  *port = static_cast<int>(p);
  return true;
}

namespace {

Status resolve(const std::string& host, int port, sockaddr_storage* sa, socklen_t* len, std::string* why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port_s = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res);
  if (rc != 0 || !res) {
    if (why) *why = log::format("cannot resolve '%s': %s", host.c_str(), gai_strerror(rc));
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  std::memcpy(sa, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  freeaddrinfo(res);
  return GSHMEM_SUCCESS;
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

Status tcp_listen(const std::string& host, int port, Fd* out, int* bound_port) {
  // IPv6 when the host is an IPv6 address or "::", IPv4 otherwise ("" = every IPv4 address).
  const bool v6 = host.find(':') != std::string::npos;
  Fd fd(::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    GSHMEM_ERROR("socket() failed: %s", std::strerror(errno));
    return GSHMEM_ERROR_SYSTEM;
  }
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (v6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, host.c_str(), &sa->sin6_addr) != 1) {
      GSHMEM_ERROR("cannot listen on '%s': not an IPv6 address", host.c_str());
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    len = sizeof *sa;
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&ss);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(static_cast<uint16_t>(port));
    if (host.empty()) {
      sa->sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (inet_pton(AF_INET, host.c_str(), &sa->sin_addr) != 1) {
      GSHMEM_ERROR("cannot listen on '%s': not an IPv4 address", host.c_str());
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    len = sizeof *sa;
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd.get(), 1024) != 0) {
    GSHMEM_ERROR("cannot listen on %s:%d: %s", host.empty() ? "*" : host.c_str(), port, std::strerror(errno));
    return GSHMEM_ERROR_SYSTEM;
  }
  len = sizeof ss;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len);
  if (bound_port) {
    *bound_port = v6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                     : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  }
  *out = std::move(fd);
  return GSHMEM_SUCCESS;
}

Status tcp_connect(const std::string& host, int port, Deadline deadline, Fd* out, std::string* why) {
  sockaddr_storage sa{};
  socklen_t len = 0;
  GSHMEM_CHECK(resolve(host, port, &sa, &len, why));
  // Refused connections are retried for a few seconds only: every root listens before its
  // address is handed out, so a refusal that lasts means the root is gone.
  Deadline refused_until = std::min(deadline, deadline_after(5));
  int delay_ms = 5;
  while (true) {
    Fd fd(::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) {
      if (why) *why = log::format("socket() failed: %s", std::strerror(errno));
      return GSHMEM_ERROR_SYSTEM;
    }
    int err = 0;
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{fd.get(), POLLOUT, 0};
        int rc;
        do {
          rc = ::poll(&p, 1, ms_until(deadline));
        } while (rc < 0 && errno == EINTR);
        if (rc == 0) {
          if (why)
            *why = log::format("cannot connect to %s:%d: no answer (a firewall, or no route?)", host.c_str(), port);
          return GSHMEM_ERROR_TIMEOUT;
        }
        socklen_t elen = sizeof err;
        getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen);
      }
    }
    if (err == 0) {
      int flags = fcntl(fd.get(), F_GETFL);
      fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
      set_nodelay(fd.get());
      *out = std::move(fd);
      return GSHMEM_SUCCESS;
    }
    bool retry = err == ECONNREFUSED || err == EAGAIN || err == EINTR || err == ENETUNREACH;
    if (!retry || ms_until(err == ECONNREFUSED ? refused_until : deadline) == 0) {
      if (why) *why = log::format("cannot connect to %s:%d: %s", host.c_str(), port, std::strerror(err));
      return retry ? GSHMEM_ERROR_TIMEOUT : GSHMEM_ERROR_BOOTSTRAP;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    delay_ms = delay_ms < 200 ? delay_ms * 2 : 200;
  }
}

Status tcp_accept(int listen_fd, Deadline deadline, Fd* out) {
  while (true) {
    pollfd p{listen_fd, POLLIN, 0};
    int rc = ::poll(&p, 1, ms_until(deadline));
    if (rc == 0) return GSHMEM_ERROR_TIMEOUT;
    if (rc < 0) {
      if (errno == EINTR) continue;
      return GSHMEM_ERROR_SYSTEM;
    }
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
      return GSHMEM_ERROR_SYSTEM;
    }
    set_nodelay(fd);
    out->reset(fd);
    return GSHMEM_SUCCESS;
  }
}

Status send_all(int fd, const void* buf, size_t n, Deadline deadline) {
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= static_cast<size_t>(k);
      continue;
    }
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      pollfd pf{fd, POLLOUT, 0};
      int rc = ::poll(&pf, 1, ms_until(deadline));
      if (rc == 0) return GSHMEM_ERROR_TIMEOUT;
      continue;
    }
    return (k < 0 && (errno == EPIPE || errno == ECONNRESET)) ? GSHMEM_ERROR_PEER_GONE : GSHMEM_ERROR_SYSTEM;
  }
  return GSHMEM_SUCCESS;
}

Status recv_all(int fd, void* buf, size_t n, Deadline deadline) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t k = ::recv(fd, p, n, MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= static_cast<size_t>(k);
      continue;
    }
    if (k == 0) return GSHMEM_ERROR_PEER_GONE;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      pollfd pf{fd, POLLIN, 0};
      int rc = ::poll(&pf, 1, ms_until(deadline));
      if (rc == 0) return GSHMEM_ERROR_TIMEOUT;
      continue;
    }
    return errno == ECONNRESET ? GSHMEM_ERROR_PEER_GONE : GSHMEM_ERROR_SYSTEM;
  }
  return GSHMEM_SUCCESS;
}

namespace {

socklen_t abstract_address(const std::string& name, sockaddr_un* sa) {
  std::memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  // sun_path[0] == '\0' selects the abstract namespace.
  size_t n = std::min(name.size(), sizeof(sa->sun_path) - 1);
  std::memcpy(sa->sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

}  // namespace

Status unix_dgram_bind(const std::string& name, Fd* out) {
  Fd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    GSHMEM_ERROR("socket(AF_UNIX) failed: %s", std::strerror(errno));
    return GSHMEM_ERROR_SYSTEM;
  }
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  sockaddr_un sa;
  socklen_t len = abstract_address(name, &sa);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0) {
    GSHMEM_ERROR("cannot bind the local socket '@%s': %s", name.c_str(), std::strerror(errno));
    return GSHMEM_ERROR_SYSTEM;
  }
  *out = std::move(fd);
  return GSHMEM_SUCCESS;
}

Status unix_try_send_fd(int sock, const std::string& name, const void* payload, size_t n, int fd_to_pass) {
  sockaddr_un sa;
  socklen_t len = abstract_address(name, &sa);
  iovec iov{const_cast<void*>(payload), n};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_name = &sa;
  msg.msg_namelen = len;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (fd_to_pass >= 0) {
    std::memset(control, 0, sizeof control);
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd_to_pass, sizeof(int));
  }
  if (::sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return GSHMEM_SUCCESS;
  int err = errno;
  // ECONNREFUSED/ENOENT: the receiver has not bound its socket yet (or is gone): the caller's
  // deadline decides.
  if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR || err == ENOBUFS || err == ECONNREFUSED || err == ENOENT) {
    return GSHMEM_ERROR_TIMEOUT;
  }
  GSHMEM_ERROR("sending a descriptor to '@%s' failed: %s", name.c_str(), std::strerror(err));
  return GSHMEM_ERROR_SYSTEM;
}

Status unix_try_recv_fd(int sock, void* payload, size_t n, size_t* got, int* fd_out, int* sender_pid) {
  iovec iov{payload, n};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  *fd_out = -1;
  *sender_pid = -1;
  ssize_t k = ::recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (k < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return GSHMEM_ERROR_TIMEOUT;
    GSHMEM_ERROR("receiving a descriptor failed: %s", std::strerror(errno));
    return GSHMEM_ERROR_SYSTEM;
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) {
      std::memcpy(fd_out, CMSG_DATA(c), sizeof(int));
    } else if (c->cmsg_type == SCM_CREDENTIALS) {
      ucred cred;
      std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
      *sender_pid = static_cast<int>(cred.pid);
    }
  }
  *got = static_cast<size_t>(k);
  return GSHMEM_SUCCESS;
}

Status random_bytes(void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t k = ::getrandom(p, n, 0);
    if (k < 0) {
      if (errno == EINTR) continue;
      GSHMEM_ERROR("getrandom() failed: %s", std::strerror(errno));
      return GSHMEM_ERROR_SYSTEM;
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
  return GSHMEM_SUCCESS;
}

namespace {
inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }
inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts only (x86-64, aarch64)
}
inline void sip_round(uint64_t& v0, uint64_t& v1, uint64_t& v2, uint64_t& v3) {
  v0 += v1;
  v1 = rotl(v1, 13);
  v1 ^= v0;
  v0 = rotl(v0, 32);
  v2 += v3;
  v3 = rotl(v3, 16);
  v3 ^= v2;
  v0 += v3;
  v3 = rotl(v3, 21);
  v3 ^= v0;
  v2 += v1;
  v1 = rotl(v1, 17);
  v1 ^= v2;
  v2 = rotl(v2, 32);
}
}  // namespace

uint64_t siphash24(const uint8_t key[16], const void* data, size_t n) {
  const uint8_t* in = static_cast<const uint8_t*>(data);
  uint64_t k0 = load64(key), k1 = load64(key + 8);
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  size_t blocks = n / 8;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t m = load64(in + 8 * i);
    v3 ^= m;
    sip_round(v0, v1, v2, v3);
    sip_round(v0, v1, v2, v3);
    v0 ^= m;
  }
  uint64_t b = static_cast<uint64_t>(n) << 56;
  const uint8_t* tail = in + 8 * blocks;
  for (size_t i = 0; i < n % 8; ++i) b |= static_cast<uint64_t>(tail[i]) << (8 * i);
  v3 ^= b;
  sip_round(v0, v1, v2, v3);
  sip_round(v0, v1, v2, v3);
  v0 ^= b;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) sip_round(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

std::string to_hex(const void* data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  const uint8_t* p = static_cast<const uint8_t*>(data);
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

bool from_hex(const std::string& hex, std::vector<uint8_t>* out) {
  if (hex.size() % 2) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    auto nib = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int hi = nib(hex[i]), lo = nib(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return true;
}

}  // namespace gshmem
