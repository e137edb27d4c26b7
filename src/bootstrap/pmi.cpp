// PMI-1 and PMI-2 wire-protocol clients: no PMI library is linked.
//
// PMI-1 (MPICH Hydra): text lines "cmd=NAME k=v ...\n" on PMI_FD, or on a connection to PMI_PORT
// after an "initack" with PMI_ID. PMI-2 (srun --mpi=pmi2, Hydra): a PMI-1 init line, then frames of
// a 6-digit length and "cmd=NAME;k=v;...;". Slurm needs pmijobid in fullinit. Neither server
// honours the ';;' escape, so values are hex.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "bootstrap/launcher.h"
#include "util/config.h"
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {
namespace {

using KV = std::map<std::string, std::string>;

constexpr const char* kRootKey = "gshmem-root";

// A blocking text/frame channel to the PMI server with deadlines.
class PmiChannel {
 public:
  explicit PmiChannel(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~PmiChannel() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  Status send(const std::string& s, Deadline d) { return send_all(fd_, s.data(), s.size(), d); }
  // One '\n'-terminated line, without the '\n'.
  Status read_line(std::string* line, Deadline d) {
    while (true) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        *line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return GSHMEM_SUCCESS;
      }
      GSHMEM_CHECK(fill(d));
    }
  }
  Status read_exact(size_t n, std::string* out, Deadline d) {
    while (buf_.size() < n) GSHMEM_CHECK(fill(d));
    *out = buf_.substr(0, n);
    buf_.erase(0, n);
    return GSHMEM_SUCCESS;
  }
  int fd() const { return fd_; }

 private:
  Status fill(Deadline d) {
    char tmp[4096];
    // recv_all needs an exact size; read what is there, waiting until something arrives.
    Status s = recv_all(fd_, tmp, 1, d);
    if (!ok(s)) return s;
    buf_.push_back(tmp[0]);
    return GSHMEM_SUCCESS;
  }
  int fd_;
  bool owned_;
  std::string buf_;
};

KV parse_pmi1(const std::string& line) {
  KV kv;
  std::istringstream is(line);
  for (std::string tok; is >> tok;) {
    size_t eq = tok.find('=');
    if (eq != std::string::npos) kv[tok.substr(0, eq)] = tok.substr(eq + 1);
  }
  return kv;
}

KV parse_pmi2(const std::string& s) {
  KV kv;
  std::string k, v, *cur = &k;
  for (char c : s) {
    if (c == ';') {
      kv[k] = v;
      k.clear();
      v.clear();
      cur = &k;
    } else if (c == '=' && cur == &k) {
      cur = &v;
    } else {
      *cur += c;
    }
  }
  return kv;
}

std::string why_failed(Status s, const char* step, double timeout_s) {
  if (s == GSHMEM_ERROR_TIMEOUT) {
    return log::format(
        "%s did not complete within %g s (GSHMEM_BOOTSTRAP_TIMEOUT): a process of the job did not "
        "start or did not call nvshmem_init, and the launcher does not say which",
        step, timeout_s);
  }
  return log::format("%s failed: the launcher closed the PMI connection (the job is ending?)", step);
}

bool to_int(const std::string& s, int* out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end) return false;
  *out = static_cast<int>(v);
  return true;
}

class Pmi1Launcher final : public Launcher {
 public:
  std::string name() const override { return "PMI-1"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status start(const Config& c) {
    Deadline d = deadline_after(c.bootstrap_timeout);
    timeout_ = c.bootstrap_timeout;
    if (!c.env_pmi_fd.empty()) {
      int fd = -1;
      if (!to_int(c.env_pmi_fd, &fd) || !to_int(c.env_pmi_rank, &rank_) || !to_int(c.env_pmi_size, &size_)) {
        GSHMEM_ERROR("PMI-1: PMI_FD=%s, PMI_RANK=%s, PMI_SIZE=%s are not numbers", c.env_pmi_fd.c_str(),
                     c.env_pmi_rank.c_str(), c.env_pmi_size.c_str());
        return GSHMEM_ERROR_BOOTSTRAP;
      }
      ch_ = std::make_unique<PmiChannel>(fd, true);
    } else {
      std::string host;
      int port = 0;
      Fd fd;
      std::string why;
      if (!split_host_port(c.env_pmi_port, &host, &port) || !ok(tcp_connect(host, port, d, &fd, &why))) {
        GSHMEM_ERROR("PMI-1: cannot reach the launcher at PMI_PORT=%s %s", c.env_pmi_port.c_str(), why.c_str());
        return GSHMEM_ERROR_BOOTSTRAP;
      }
      ch_ = std::make_unique<PmiChannel>(fd.release(), true);
      KV kv;
      GSHMEM_CHECK(call("cmd=initack pmiid=" + c.env_pmi_id + "\n", "initack", &kv, d));
      // The server then announces size, rank and debug.
      for (int i = 0; i < 3; ++i) {
        std::string line;
        if (!ok(ch_->read_line(&line, d))) return fail("PMI-1 initack");
        KV set = parse_pmi1(line);
        if (set.count("size")) to_int(set["size"], &size_);
        if (set.count("rank")) to_int(set["rank"], &rank_);
      }
    }
    if (size_ < 1 || rank_ < 0 || rank_ >= size_) {
      GSHMEM_ERROR("PMI-1: the launcher gave rank %d of %d", rank_, size_);
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    KV kv;
    GSHMEM_CHECK(call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", &kv, d));
    GSHMEM_CHECK(call("cmd=get_my_kvsname\n", "my_kvsname", &kv, d));
    kvs_ = kv["kvsname"];
    return GSHMEM_SUCCESS;
  }

  Status broadcast_root(void* buf, size_t bytes, double timeout_s) override {
    Deadline d = deadline_after(timeout_s);
    KV kv;
    if (rank_ == 0) {
      GSHMEM_CHECK(call("cmd=put kvsname=" + kvs_ + " key=" + kRootKey + " value=" + to_hex(buf, bytes) + "\n",
                        "put_result", &kv, d));
    }
    Status s = call("cmd=barrier_in\n", "barrier_out", &kv, d, "the PMI-1 barrier");
    if (!ok(s) || rank_ == 0) return s;
    GSHMEM_CHECK(call("cmd=get kvsname=" + kvs_ + " key=" + kRootKey + "\n", "get_result", &kv, d));
    std::vector<uint8_t> data;
    if (!from_hex(kv["value"], &data) || data.size() != bytes) {
      GSHMEM_ERROR("PMI-1: rank 0's bootstrap address is malformed ('%s')", kv["value"].c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    std::memcpy(buf, data.data(), bytes);
    return GSHMEM_SUCCESS;
  }

  void abort_job(int code, const std::string&) override {
    ch_->send("cmd=abort exitcode=" + std::to_string(code) + "\n", deadline_after(5));
  }

  Status finalize() override {
    KV kv;
    return call("cmd=finalize\n", "finalize_ack", &kv, deadline_after(timeout_));
  }

 private:
  Status fail(const char* step, Status s = GSHMEM_ERROR_PEER_GONE) {
    GSHMEM_ERROR("%s", why_failed(s, step, timeout_).c_str());
    return s == GSHMEM_ERROR_TIMEOUT ? s : GSHMEM_ERROR_BOOTSTRAP;
  }
  Status call(const std::string& req, const char* expect, KV* kv, Deadline d, const char* step = nullptr) {
    Status s = ch_->send(req, d);
    std::string line;
    if (ok(s)) s = ch_->read_line(&line, d);
    if (!ok(s)) return fail(step ? step : expect, s);
    *kv = parse_pmi1(line);
    if ((*kv)["cmd"] != expect || (kv->count("rc") && (*kv)["rc"] != "0")) {
      GSHMEM_ERROR("PMI-1: the launcher answered '%s' to '%s'", line.c_str(), req.substr(0, req.size() - 1).c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    return GSHMEM_SUCCESS;
  }

  std::unique_ptr<PmiChannel> ch_;
  int rank_ = -1, size_ = -1;
  double timeout_ = 120;
  std::string kvs_;
};

class Pmi2Launcher final : public Launcher {
 public:
  std::string name() const override { return "PMI-2"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status start(const Config& c) {
    timeout_ = c.bootstrap_timeout;
    Deadline d = deadline_after(c.bootstrap_timeout);
    int fd = -1;
    if (!to_int(c.env_pmi_fd, &fd)) {
      GSHMEM_ERROR("PMI-2: PMI_FD=%s is not a number", c.env_pmi_fd.c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    ch_ = std::make_unique<PmiChannel>(fd, true);
    std::string line;
    Status s = ch_->send("cmd=init pmi_version=2 pmi_subversion=0\n", d);
    if (ok(s)) s = ch_->read_line(&line, d);
    if (!ok(s)) return fail("PMI-2 init", s);
    if (line.find("cmd=response_to_init") == std::string::npos || line.find("rc=0") == std::string::npos) {
      GSHMEM_ERROR("PMI-2: the launcher refused PMI version 2 ('%s'); try NVSHMEM_BOOTSTRAP_PMI=PMI", line.c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    std::string req = "cmd=fullinit;";
    if (!c.env_pmi_jobid.empty()) req += "pmijobid=" + c.env_pmi_jobid + ";";  // Slurm requires it
    if (!c.env_pmi_rank.empty()) req += "pmirank=" + c.env_pmi_rank + ";";
    req += "threaded=FALSE;";
    KV kv;
    GSHMEM_CHECK(call(req, "fullinit-response", &kv, d));
    if (!to_int(kv["rank"], &rank_) || !to_int(kv["size"], &size_) || size_ < 1 || rank_ < 0 || rank_ >= size_) {
      GSHMEM_ERROR("PMI-2: fullinit gave no valid rank and size");
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    GSHMEM_CHECK(call("cmd=job-getid;", "job-getid-response", &kv, d));
    jobid_ = kv["jobid"];
    return GSHMEM_SUCCESS;
  }

  Status broadcast_root(void* buf, size_t bytes, double timeout_s) override {
    Deadline d = deadline_after(timeout_s);
    KV kv;
    if (rank_ == 0) {
      GSHMEM_CHECK(call(std::string("cmd=kvs-put;key=") + kRootKey + ";value=" + to_hex(buf, bytes) + ";",
                        "kvs-put-response", &kv, d));
    }
    Status s = call("cmd=kvs-fence;", "kvs-fence-response", &kv, d, "the PMI-2 fence");
    if (!ok(s) || rank_ == 0) return s;
    GSHMEM_CHECK(call("cmd=kvs-get;jobid=" + jobid_ + ";srcid=-1;key=" + kRootKey + ";", "kvs-get-response", &kv, d));
    std::vector<uint8_t> data;
    if (!from_hex(kv["value"], &data) || data.size() != bytes) {
      GSHMEM_ERROR("PMI-2: rank 0's bootstrap address is malformed ('%s')", kv["value"].c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    std::memcpy(buf, data.data(), bytes);
    return GSHMEM_SUCCESS;
  }

  void abort_job(int code, const std::string& why) override {
    std::string msg;
    for (char c : why) msg += (c == ';' || c == '=') ? ' ' : c;
    (void)code;  // PMI-2 has no exit code in abort: the launcher ends the job
    send_frame("cmd=abort;isworld=TRUE;msg=" + msg + ";", deadline_after(5));
  }

  Status finalize() override {
    KV kv;
    return call("cmd=finalize;", "finalize-response", &kv, deadline_after(timeout_));
  }

 private:
  Status fail(const char* step, Status s) {
    GSHMEM_ERROR("%s", why_failed(s, step, timeout_).c_str());
    return s == GSHMEM_ERROR_TIMEOUT ? s : GSHMEM_ERROR_BOOTSTRAP;
  }
  Status send_frame(const std::string& cmd, Deadline d) {
    char hdr[8];
    std::snprintf(hdr, sizeof hdr, "%6zu", cmd.size());
    return ch_->send(std::string(hdr, 6) + cmd, d);
  }
  Status call(const std::string& req, const char* expect, KV* kv, Deadline d, const char* step = nullptr) {
    Status s = send_frame(req, d);
    std::string len_text, body;
    if (ok(s)) s = ch_->read_exact(6, &len_text, d);
    if (ok(s)) s = ch_->read_exact(std::strtoul(len_text.c_str(), nullptr, 10), &body, d);
    if (!ok(s)) return fail(step ? step : expect, s);
    *kv = parse_pmi2(body);
    if ((*kv)["cmd"] != expect || (kv->count("rc") && (*kv)["rc"] != "0")) {
      GSHMEM_ERROR("PMI-2: the launcher answered '%s' to '%s'", body.c_str(), req.c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    return GSHMEM_SUCCESS;
  }

  std::unique_ptr<PmiChannel> ch_;
  int rank_ = -1, size_ = -1;
  double timeout_ = 120;
  std::string jobid_;
};

}  // namespace

Status make_pmi1_launcher(const Config& config, std::unique_ptr<Launcher>* out) {
  auto l = std::make_unique<Pmi1Launcher>();
  GSHMEM_CHECK(l->start(config));
  *out = std::move(l);
  return GSHMEM_SUCCESS;
}

Status make_pmi2_launcher(const Config& config, std::unique_ptr<Launcher>* out) {
  auto l = std::make_unique<Pmi2Launcher>();
  GSHMEM_CHECK(l->start(config));
  *out = std::move(l);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
