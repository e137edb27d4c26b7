// gshmrun: starts N PEs of a program, on this host or on several, and supervises them.
//
// It runs the job's bootstrap root (the TCP hub) and passes its address and a fresh per-job
// secret to each PE through GSHMEM_RUN_* variables. PEs on other hosts are started through a remote
// shell command (ssh by default) with those variables on the command line. If a PE exits with a
// non-zero status, dies by a signal or exits before nvshmem_finalize (even with 0), the job has
// failed: the hub tells the other PEs, which end by themselves; gshmrun stops those that do not
// within a second and exits non-zero, naming the PE and how it ended.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/tcp_hub.h"
#include "gshmem/version.h"
#include "util/config.h"
#include "util/log.h"
#include "util/netif.h"
#include "util/socket.h"

extern char** environ;

namespace {

using namespace gshmem;

// The main loop sleeps until something happens: a signal, a PE that ended (SIGCHLD), or the hub's news,
// each of which writes a byte into this pipe. (Polling instead, every 2 ms, took a core's worth of wake-ups
// from the PEs on a machine with as many PEs as cores: measured on 2 cores, a barrier across the network of
// 2 PEs was 0.3-0.5 us slower for it.)
int g_wake[2] = {-1, -1};
void wake_main_loop() {
  if (g_wake[1] < 0) return;
  const char byte = 0;
  const int saved = errno;  // also called from signal handlers
  if (write(g_wake[1], &byte, 1) < 0) {
    // Full: the loop wakes anyway.
  }
  errno = saved;
}
std::atomic<int> g_signal{0};
void on_signal(int sig) {
  g_signal = sig;
  wake_main_loop();
}
void on_child(int) { wake_main_loop(); }

struct Host {
  std::string name;
  int count = 0;
};

struct Options {
  int npes = 0;
  double timeout_s = -1;
  bool verbose = false;
  std::vector<Host> hosts;               // empty: every PE on this host
  std::string rsh = "ssh";               // remote shell command: RSH HOST COMMAND...
  std::vector<std::string> export_vars;  // -x NAME: also passed to remote PEs
  std::vector<std::string> argv;
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: gshmrun -n N [options] [--] program [args...]\n"
               "\n"
               "Starts N PEs of `program` on this host, connected through gshmem's TCP bootstrap.\n"
               "\n"
               "options:\n"
               "  -n, -np N        number of PEs to start (required unless --hosts gives counts)\n"
               "  --hosts LIST     hosts to start PEs on, as host[:count],... (counts: PEs per host; without\n"
               "                   counts the N PEs are spread evenly); PE ranks follow the list\n"
               "  --rsh CMD        command that runs a command on a host: CMD HOST COMMAND... (default ssh;\n"
               "                   'ip netns exec' runs in network namespaces)\n"
               "  -x NAME          pass the variable NAME to remote PEs too (NVSHMEM_*, GSHMEM_* and UCX_*\n"
               "                   always are)\n"
               "  --timeout S      seconds a bootstrap step waits for every PE before it fails naming\n"
               "                   the missing ones (default: GSHMEM_BOOTSTRAP_TIMEOUT, 120)\n"
               "  -v, --verbose    report each PE's start and end\n"
               "  --version        print the version\n"
               "  -h, --help       this text\n"
               "\n"
               "If a PE exits with a non-zero status, is killed by a signal, or exits before calling\n"
               "nvshmem_finalize, the other PEs end within moments saying what they were doing (those that do\n"
               "not are stopped), and gshmrun exits with that PE's status (128 + signal number for a signal,\n"
               "1 for an exit with 0 before nvshmem_finalize).\n"
               "\n"
               "The PEs of a job across the network (on several hosts, or with NVSHMEM_DISABLE_P2P) get\n"
               "CUDA_MODULE_LOADING=EAGER unless it is set: CUDA's lazy loading can hang such a GPU job.\n");
}

bool parse_args(int argc, char** argv, Options* o) {
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gshmrun: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--") {
      ++i;
      break;
    } else if (a == "-n" || a == "-np" || a == "--np") {
      const char* v = value(a.c_str());
      if (!v) return false;
      char* end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (*end || n < 1 || n > 100000) {
        std::fprintf(stderr, "gshmrun: %s %s: expected a positive number of PEs\n", a.c_str(), v);
        return false;
      }
      o->npes = static_cast<int>(n);
    } else if (a == "--timeout") {
      const char* v = value("--timeout");
      if (!v) return false;
      if (!parse_seconds(v, &o->timeout_s)) {
        std::fprintf(stderr, "gshmrun: --timeout %s: expected a number of seconds\n", v);
        return false;
      }
    } else if (a == "--hosts") {
      const char* v = value("--hosts");
      if (!v) return false;
      std::string list = v;
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) {
          Host h;
          size_t colon = item.rfind(':');
          h.name = item.substr(0, colon);
          if (colon != std::string::npos) {
            char* end = nullptr;
            long c = std::strtol(item.c_str() + colon + 1, &end, 10);
            if (*end || c < 1) {
              std::fprintf(stderr, "gshmrun: --hosts %s: '%s' is not host or host:count\n", v, item.c_str());
              return false;
            }
            h.count = static_cast<int>(c);
          }
          o->hosts.push_back(h);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a == "--rsh") {
      const char* v = value("--rsh");
      if (!v) return false;
      o->rsh = v;
    } else if (a == "-x") {
      const char* v = value("-x");
      if (!v) return false;
      o->export_vars.push_back(v);
    } else if (a == "-v" || a == "--verbose") {
      o->verbose = true;
    } else if (a == "--version") {
      std::printf("gshmrun (gshmem) %s\n", GSHMEM_VERSION_STRING);
      std::exit(0);
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "gshmrun: unknown option '%s' (see gshmrun --help)\n", a.c_str());
      return false;
    } else {
      break;
    }
  }
  for (; i < argc; ++i) o->argv.push_back(argv[i]);
  if (!o->hosts.empty()) {
    int counted = 0, uncounted = 0;
    for (const Host& h : o->hosts) {
      counted += h.count;
      uncounted += h.count == 0;
    }
    if (uncounted == 0) {
      if (o->npes != 0 && o->npes != counted) {
        std::fprintf(stderr, "gshmrun: -n %d does not match the %d PEs that --hosts lists\n", o->npes, counted);
        return false;
      }
      o->npes = counted;
    } else if (uncounted != static_cast<int>(o->hosts.size())) {
      std::fprintf(stderr, "gshmrun: --hosts gives counts for some hosts only: give all or none\n");
      return false;
    } else if (o->npes > 0) {
      // Spread N evenly, the first hosts taking one more when it does not divide.
      int n = static_cast<int>(o->hosts.size());
      for (int k = 0; k < n; ++k) o->hosts[k].count = o->npes / n + (k < o->npes % n ? 1 : 0);
    }
  }
  if (o->npes == 0) {
    std::fprintf(stderr, "gshmrun: the number of PEs is missing: gshmrun -n N program [args...]\n");
    return false;
  }
  if (o->argv.empty()) {
    std::fprintf(stderr, "gshmrun: the program to run is missing: gshmrun -n N program [args...]\n");
    return false;
  }
  return true;
}

struct Pe {
  pid_t pid = -1;
  bool running = false;
  bool stopped_by_us = false;
  int lifeline = -1;  // a remote PE's stdin pipe: closing it (or gshmrun dying) stops that PE
};

// The command a remote shell runs for one PE. It reads the job secret from stdin (so the secret is
// on no command line), starts the PE in the background, and watches stdin: when gshmrun closes the
// pipe or dies, or the remote shell's connection drops, stdin ends and the PE gets SIGTERM, then
// SIGKILL 3 s later. A remote shell such as ssh without a terminal forwards no signal, so without
// this watch an interrupted job would leave its remote PEs running. A signal to this shell itself
// (a launcher that runs it directly) is passed on to the PE. Ends as the PE ended: with its exit
// code, or killed by the same signal.
std::string remote_script(const std::vector<std::string>& quoted_command) {
  std::string run = "env";
  for (const std::string& w : quoted_command) run += " " + w;
  return "IFS= read -r GSHMEM_RUN_SECRET || exit 111; export GSHMEM_RUN_SECRET; exec 3<&0; " + run +
         " </dev/null 3<&- & pe=$!; trap 'kill -TERM $pe 2>/dev/null' TERM INT HUP; "
         "(while IFS= read -r _; do :; done; kill -TERM $pe 2>/dev/null; sleep 3; kill -KILL $pe 2>/dev/null) <&3 & "
         "w=$!; exec 3<&-; while :; do wait $pe; rc=$?; kill -0 $pe 2>/dev/null || break; done; "
         "kill $w 2>/dev/null; "
         "if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then trap - TERM INT HUP; kill -$((rc - 128)) $$; fi; exit $rc";
}

class Supervisor final : public TcpHub::Listener {
 public:
  explicit Supervisor(int npes) : ended_(static_cast<size_t>(npes)) {}
  void on_abort(int rank, int code, const std::string& why) override {
    std::fprintf(stderr, "gshmrun: PE %d ended the job with exit code %d%s%s\n", rank, code, why.empty() ? "" : ": ",
                 why.c_str());
    abort_code_ = code;
    abort_requested_ = true;
    wake_main_loop();
  }
  // The hub thread asks how a PE whose connection closed ended: the main loop reaps it moments later.
  std::string describe_end(int rank) override {
    Deadline d = deadline_after(0.5);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, d, [&] { return !ended_[rank].empty(); });
    return ended_[rank];
  }
  void record_end(int rank, const std::string& how) {
    std::lock_guard<std::mutex> lock(mu_);
    ended_[rank] = how;
    cv_.notify_all();
  }
  std::atomic<bool> abort_requested_{false};
  std::atomic<int> abort_code_{0};

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> ended_;  // by rank: "(pid 12) exited with code 0", once reaped
};

bool is_local(const std::string& host) {
  if (host.empty() || host == "localhost" || host == "127.0.0.1" || host == "::1") return true;
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  std::string mine = name;
  return host == mine || mine.rfind(host + ".", 0) == 0;
}

// Quotes `s` for a POSIX shell (ssh hands the remote command to one).
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(w);
  return words;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return log::format("exited with code %d", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return log::format("was killed by signal %d (%s)%s", sig, strsignal(sig), WCOREDUMP(status) ? ", core dumped" : "");
  }
  return "ended";
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Finds the program as mpirun does: a name with a '/' is a path; otherwise the first match on PATH,
// else a program of that name in the current folder. Returns "" (and says why in *why) when none.
std::string find_program(const std::string& name, std::string* why) {
  if (name.find('/') != std::string::npos) {
    if (is_executable_file(name)) return name;
    *why = access(name.c_str(), F_OK) == 0 ? "it is not an executable file" : "no such file";
    return "";
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (is_executable_file(dir + "/" + name)) return dir == "." ? "./" + name : dir + "/" + name;
    start = end + 1;
  }
  if (is_executable_file(name)) return "./" + name;
  *why = access(name.c_str(), F_OK) == 0 ? "'./" + name + "' is not an executable file"
                                         : "it is neither on PATH nor in the current folder";
  return "";
}

std::string current_folder() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? std::string(buf) : std::string(".");
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, &opt)) return 2;

  Config config;
  std::string errors;
  if (!ok(parse_config_from_environment(&config, &errors))) {
    std::fprintf(stderr, "gshmrun: %s\n", errors.c_str());
    return 2;
  }
  log::configure(config);
  // Resolved once, here, so that a missing program is one message rather than one per PE. A
  // program found in the current folder starts remote PEs from the same absolute path.
  std::string why_not_found;
  const std::string program = find_program(opt.argv[0], &why_not_found);
  bool remote = false;
  for (const Host& h : opt.hosts) remote = remote || !is_local(h.name);
  if (program.empty() && !remote) {
    std::fprintf(stderr, "gshmrun: cannot start '%s': %s\n", opt.argv[0].c_str(), why_not_found.c_str());
    return 127;
  }
  std::string remote_program = opt.argv[0];
  if (program.rfind("./", 0) == 0) remote_program = current_folder() + program.substr(1);
  double timeout = opt.timeout_s >= 0 ? opt.timeout_s : config.bootstrap_timeout;

  // One host: the root listens on loopback. Several: on every address, publishing the one of the
  // interface NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME names (else the first non-loopback one).
  Fd listen_fd;
  int port = 0;
  std::string root_host = "127.0.0.1";
  if (remote) {
    NetInterface nif;
    if (!ok(pick_interface(config.bootstrap_uid_sock_ifname, AF_INET, &nif)) ||
        !ok(tcp_listen("", 0, &listen_fd, &port))) {
      std::fprintf(stderr, "gshmrun: cannot open the bootstrap port for remote hosts\n");
      return 1;
    }
    root_host = nif.address;
    if (opt.verbose)
      std::fprintf(stderr, "gshmrun: bootstrap root on %s (%s)\n", nif.address.c_str(), nif.name.c_str());
  } else if (!ok(tcp_listen("127.0.0.1", 0, &listen_fd, &port))) {
    std::fprintf(stderr, "gshmrun: cannot open the bootstrap port on 127.0.0.1\n");
    return 1;
  }
  TcpHub::Options hub_opt;
  hub_opt.size = opt.npes;
  hub_opt.timeout_s = timeout;
  hub_opt.peer_timeout_s = config.peer_timeout;
  if (!ok(random_bytes(hub_opt.secret, sizeof hub_opt.secret))) return 1;

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::fprintf(stderr, "gshmrun: pipe2: %s\n", std::strerror(errno));
    return 1;
  }
  struct sigaction child {};
  child.sa_handler = on_child;
  sigemptyset(&child.sa_mask);
  child.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &child, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a PE that is gone must not take gshmrun with it; PEs get the default back

  const std::string root = root_host + ":" + std::to_string(port);
  const std::string secret_hex = to_hex(hub_opt.secret, sizeof hub_opt.secret);
  const std::string timeout_s = log::format("%g", timeout);
  std::vector<std::string> local_args = opt.argv;
  if (!program.empty()) local_args[0] = program;
  std::vector<char*> child_argv;
  for (std::string& s : local_args) child_argv.push_back(&s[0]);
  child_argv.push_back(nullptr);

  // The host of each rank, and the variables remote PEs need on their command line.
  std::vector<std::string> host_of(static_cast<size_t>(opt.npes));
  if (!opt.hosts.empty()) {
    int r = 0;
    for (const Host& h : opt.hosts) {
      for (int k = 0; k < h.count && r < opt.npes; ++k) host_of[r++] = h.name;
    }
  }
  // CUDA's lazy loading can hang GPU PEs that reach each other through the network (docs/network.md):
  // such a job gets eager loading unless the user chose a mode.
  const char* why_network = nullptr;
  std::vector<std::string> host_names;
  for (const Host& h : opt.hosts) {
    if (std::find(host_names.begin(), host_names.end(), h.name) == host_names.end()) host_names.push_back(h.name);
  }
  if (host_names.size() > 1) {
    why_network = "its PEs are on several hosts";
  } else if (config.disable_p2p) {
    why_network = "NVSHMEM_DISABLE_P2P is set";
  }
  if (why_network && !std::getenv("CUDA_MODULE_LOADING")) {
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    opt.export_vars.push_back("CUDA_MODULE_LOADING");
    if (opt.verbose) {
      std::fprintf(stderr,
                   "gshmrun: CUDA_MODULE_LOADING=EAGER for the PEs: %s, and under CUDA's lazy loading a GPU job "
                   "across the network can hang\n",
                   why_network);
    }
  }
  std::vector<std::string> forwarded;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool wanted = name.rfind("NVSHMEM_", 0) == 0 || name.rfind("UCX_", 0) == 0 ||
                  (name.rfind("GSHMEM_", 0) == 0 && name.rfind("GSHMEM_RUN_", 0) != 0);
    for (const std::string& x : opt.export_vars) wanted = wanted || name == x;
    if (wanted) forwarded.push_back(entry);
  }
  const std::vector<std::string> rsh = split_words(opt.rsh);
  const bool rsh_is_shell = !rsh.empty() && (rsh[0].find("ssh") != std::string::npos || rsh[0] == "rsh");

  std::vector<Pe> pes(static_cast<size_t>(opt.npes));
  for (int r = 0; r < opt.npes; ++r) {
    const bool remote_pe = !host_of[r].empty() && !is_local(host_of[r]);
    int secret_pipe[2] = {-1, -1};
    if (remote_pe && pipe2(secret_pipe, O_CLOEXEC) != 0) {
      std::fprintf(stderr, "gshmrun: pipe failed: %s\n", std::strerror(errno));
      return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "gshmrun: fork failed for PE %d: %s\n", r, std::strerror(errno));
      for (int k = 0; k < r; ++k) kill(pes[k].pid, SIGKILL);
      return 1;
    }
    if (pid == 0) {
      setenv("GSHMEM_RUN_ROOT", root.c_str(), 1);
      setenv("GSHMEM_RUN_SECRET", secret_hex.c_str(), 1);
      setenv("GSHMEM_RUN_RANK", std::to_string(r).c_str(), 1);
      setenv("GSHMEM_RUN_SIZE", std::to_string(opt.npes).c_str(), 1);
      setenv("GSHMEM_BOOTSTRAP_TIMEOUT", timeout_s.c_str(), 1);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      signal(SIGHUP, SIG_DFL);
      signal(SIGPIPE, SIG_DFL);
      if (remote_pe) {
        // RSH HOST sh -c 'read the secret from stdin; env VAR=VALUE... PROGRAM ARGS... & watch stdin':
        // the secret never appears on a command line, where every user of either host could read it.
        std::vector<std::string> vars = {"GSHMEM_RUN_ROOT=" + root, "GSHMEM_RUN_RANK=" + std::to_string(r),
                                         "GSHMEM_RUN_SIZE=" + std::to_string(opt.npes),
                                         "GSHMEM_BOOTSTRAP_TIMEOUT=" + timeout_s};
        for (const std::string& f : forwarded) {
          if (f.rfind("GSHMEM_BOOTSTRAP_TIMEOUT=", 0) != 0) vars.push_back(f);
        }
        std::vector<std::string> quoted;
        for (const std::string& v : vars) quoted.push_back(shell_quote(v));
        for (size_t i = 0; i < opt.argv.size(); ++i) quoted.push_back(shell_quote(i ? opt.argv[i] : remote_program));
        const std::string script = remote_script(quoted);
        std::vector<std::string> words = rsh;
        words.push_back(host_of[r]);
        words.push_back("sh");
        words.push_back("-c");
        words.push_back(rsh_is_shell ? shell_quote(script) : script);
        dup2(secret_pipe[0], 0);  // the copy keeps no close-on-exec flag
        close(secret_pipe[0]);
        std::vector<char*> rargv;
        for (std::string& w : words) rargv.push_back(&w[0]);
        rargv.push_back(nullptr);
        execvp(rargv[0], rargv.data());
        std::fprintf(stderr, "gshmrun: cannot start PE %d on %s with '%s': %s\n", r, host_of[r].c_str(),
                     opt.rsh.c_str(), std::strerror(errno));
        _exit(127);
      }
      // A local PE does not outlive gshmrun, even if gshmrun is killed.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      execv(child_argv[0], child_argv.data());
      std::fprintf(stderr, "gshmrun: cannot start PE %d: '%s': %s\n", r, child_argv[0], std::strerror(errno));
      _exit(127);
    }
    if (remote_pe) {
      // The write end stays open as the PE's lifeline (close-on-exec, so no other PE holds it).
      close(secret_pipe[0]);
      std::string line = secret_hex + "\n";
      (void)!write(secret_pipe[1], line.data(), line.size());
      pes[r].lifeline = secret_pipe[1];
    }
    pes[r].pid = pid;
    pes[r].running = true;
    if (opt.verbose) {
      std::fprintf(stderr, "gshmrun: started PE %d as pid %d%s%s\n", r, static_cast<int>(pid),
                   host_of[r].empty() ? "" : " on ", host_of[r].c_str());
    }
  }

  Supervisor supervisor(opt.npes);
  TcpHub hub(std::move(listen_fd), hub_opt, &supervisor);
  std::thread hub_thread([&] { hub.run(); });

  int exit_code = 0;
  bool stopping = false;
  Deadline kill_deadline{};
  int running = opt.npes;
  auto cut_lifeline = [](Pe& p) {
    if (p.lifeline >= 0) close(p.lifeline);
    p.lifeline = -1;
  };
  auto stop_all = [&](int sig) {
    for (Pe& p : pes) {
      if (p.running) {
        p.stopped_by_us = true;
        cut_lifeline(p);
        kill(p.pid, sig);
        // A stopped PE (SIGSTOP, a debugger's stop) takes the signal only once it runs again.
        if (sig != SIGKILL) kill(p.pid, SIGCONT);
      }
    }
    if (!stopping) kill_deadline = deadline_after(3);
    stopping = true;
  };
  // A failed PE: the PEs told by the hub that it is gone end by themselves within moments, each
  // saying what it was doing; those that have not after a grace period are stopped.
  struct Failure {
    int rank = -1;
    std::string how;
    int code = 0;
  };
  std::vector<Failure> failures;
  bool reported = false;
  int clean_ends = 0;  // PEs that finalized and exited 0
  Deadline grace_end{};
  auto report = [&](const Failure& f) {
    const int others = opt.npes - 1 - clean_ends;
    exit_code = f.code;
    reported = true;
    if (others > 0) {
      std::fprintf(stderr, "gshmrun: PE %d %s; stopping the other %d PE%s\n", f.rank, f.how.c_str(), others,
                   others == 1 ? "" : "s");
    } else {
      std::fprintf(stderr, "gshmrun: PE %d %s\n", f.rank, f.how.c_str());
    }
  };

  // The PE the hub saw go first is the cause; the others most likely ended because of it.
  auto cause = [&]() -> const Failure* {
    for (const Failure& f : failures) {
      if (f.rank == hub.first_gone()) return &f;
    }
    return nullptr;
  };

  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (int r = 0; r < opt.npes; ++r) {
        Pe& p = pes[r];
        if (p.pid != pid || !p.running) continue;
        p.running = false;
        cut_lifeline(p);
        --running;
        const std::string how = log::format("(pid %d) %s", static_cast<int>(pid), describe_status(status).c_str());
        supervisor.record_end(r, how);
        // The hub sees the PE's connection close (or its Fin) as it ends; a PE that never joined
        // is told to the hub, so that no step waits for it.
        if (hub.joined(r)) {
          Deadline d = deadline_after(1);
          while (!hub.settled(r) && ms_until(d) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (!hub.settled(r)) hub.notify_ended(r, describe_status(status));
        const bool exited_0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        const bool unfinished = hub.joined(r) && !hub.finalized(r);
        if (opt.verbose)
          std::fprintf(stderr, "gshmrun: PE %d %s%s\n", r, how.c_str(),
                       exited_0 && unfinished ? " before calling nvshmem_finalize" : "");
        if (exited_0 && !unfinished) {
          ++clean_ends;
          continue;
        }
        if (p.stopped_by_us) continue;
        Failure f;
        f.rank = r;
        f.how = exited_0 ? how + " before calling nvshmem_finalize" : how;
        f.code = exited_0 ? 1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        failures.push_back(f);
        if (failures.size() == 1) grace_end = deadline_after(1);
      }
      continue;
    }
    if (pid < 0 && errno == ECHILD) break;
    if (!failures.empty() && !reported) {
      const int first = hub.first_gone();
      const bool cause_pending = first >= 0 && !cause() && pes[first].running;
      if (!cause_pending || Clock::now() > grace_end) report(cause() ? *cause() : failures.front());
    }
    if (reported && !stopping && (running == 0 || Clock::now() > grace_end)) stop_all(SIGTERM);
    if (int sig = g_signal.exchange(0)) {
      if (exit_code == 0) exit_code = 128 + sig;
      std::fprintf(stderr, "gshmrun: received signal %d (%s); stopping %d PE%s\n", sig, strsignal(sig), running,
                   running == 1 ? "" : "s");
      reported = true;
      stop_all(sig == SIGINT ? SIGINT : SIGTERM);
    }
    if (supervisor.abort_requested_.exchange(false)) {
      if (exit_code == 0) exit_code = supervisor.abort_code_;
      reported = true;
      stop_all(SIGTERM);
    }
    if (stopping && Clock::now() > kill_deadline) {
      stop_all(SIGKILL);
      kill_deadline = deadline_after(3600);
    }
    // Until the next event, or the next deadline above (the loop's own checks; 100 ms at most, for safety).
    int wait_ms = 100;
    if (!failures.empty()) wait_ms = std::min(wait_ms, std::max(1, ms_until(grace_end)));
    if (stopping) wait_ms = std::min(wait_ms, std::max(1, ms_until(kill_deadline)));
    pollfd fd{g_wake[0], POLLIN, 0};
    if (::poll(&fd, 1, wait_ms) > 0) {
      char drain[64];
      while (read(g_wake[0], drain, sizeof drain) > 0) {
      }
    }
  }
  if (!failures.empty() && !reported) report(cause() ? *cause() : failures.front());
  hub.stop();
  hub_thread.join();
  return exit_code;
}
