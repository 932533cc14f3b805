#include "launch/launch.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <chrono>
#include <fmt/format.h>
#include <future>

namespace workgate {

namespace bp = boost::process;

namespace {

// What the child tells the parent over the socket, before it execs.
struct SetupMessage {
  int error;  // 0, or the errno that stopped the ChildSetup
  int nfds;
};

// Sends the setup outcome and descriptors over `sock` with SCM_RIGHTS.
// Async-signal-safe (sendmsg only).
void SendSetupMessage(int sock, int error, const int* fds, int nfds) {
  SetupMessage msg{error, nfds};
  iovec iov{&msg, sizeof msg};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * ChildSetup::kMaxFds)];
  msghdr hdr{};
  hdr.msg_iov = &iov;
  hdr.msg_iovlen = 1;
  if (nfds > 0) {
    hdr.msg_control = control;
    hdr.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    cmsghdr* c = CMSG_FIRSTHDR(&hdr);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
  }
  while (sendmsg(sock, &hdr, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

// Receives the child's message, if it sent one (it has, once the exec
// happened or failed). Returns false when nothing arrived.
bool ReceiveSetupMessage(int sock, SetupMessage* msg, std::vector<int>* fds) {
  iovec iov{msg, sizeof *msg};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * ChildSetup::kMaxFds)];
  msghdr hdr{};
  hdr.msg_iov = &iov;
  hdr.msg_iovlen = 1;
  hdr.msg_control = control;
  hdr.msg_controllen = sizeof control;
  ssize_t n = recvmsg(sock, &hdr, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n != static_cast<ssize_t>(sizeof *msg)) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&hdr); c != nullptr; c = CMSG_NXTHDR(&hdr, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const int* data = reinterpret_cast<const int*>(CMSG_DATA(c));
      fds->assign(data, data + count);
    }
  }
  return true;
}

// Closes every descriptor but `keep`: Boost.Process's exec-error pipe and
// our copies of the output pipes included, so the parent sees the exec and
// EOF as if the stand-in had exec'd itself.
void CloseAllBut(int keep) {
  for (int fd = 0; fd < 1024; ++fd) {
    if (fd != keep) close(fd);
  }
}

int WaitFor(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// Ends this process the way `status` says a child ended: the same exit code,
// or death by the same signal.
[[noreturn]] void EndLike(int status) {
  if (status < 0) _exit(127);
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  const int sig = WTERMSIG(status);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);
}

// The namespace's init (pid 1): reaps whatever the workload leaves orphaned
// until the workload itself ends, then reports its wait status through
// `report` and exits, which takes the rest of the namespace with it. It
// cannot simply mirror the status: the kernel ignores signals that a
// namespace's init sends itself.
[[noreturn]] void RunNamespaceInit(pid_t workload, int report) {
  CloseAllBut(report);
  int status = -1;
  for (;;) {
    int s = 0;
    pid_t done = wait(&s);
    if (done == workload) {
      status = s;
      break;
    }
    if (done < 0 && errno != EINTR) break;
  }
  ssize_t unused = write(report, &status, sizeof status);
  (void)unused;
  _exit(0);
}

// Outside the namespace: a silent stand-in for its init until it ends, then
// ends as the workload did (from the init's report).
[[noreturn]] void MirrorNamespace(pid_t init, int report) {
  CloseAllBut(report);
  int init_status = WaitFor(init);
  int status = -1;
  if (read(report, &status, sizeof status) != static_cast<ssize_t>(sizeof status)) {
    status = init_status;
  }
  EndLike(status);
}

// The Boost.Process initializer that does workgate's part of the launch.
struct NormalisedLaunch : bp::extend::handler {
  const LaunchSpec* spec;
  int sock;  // child's end of the socketpair

  template <class Executor>
  void on_setup(Executor& exec) const {
    // argv[0] and the exec path are separate choices: Boost uses argv[0] as
    // the path unless told otherwise.
    if (!spec->exec_path.empty()) exec.exe = spec->exec_path.c_str();
  }

  template <class Executor>
  void on_exec_setup(Executor&) const {
    // Its own process group, so a timeout kills the whole tree and ctrl-c
    // at the terminal reaches workgate first.
    setpgid(0, 0);
    if (spec->no_aslr) {
      int persona = personality(0xffffffff);
      if (persona != -1) personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE);
    }
    int fds[ChildSetup::kMaxFds];
    int nfds = 0;
    int error = spec->setup != nullptr ? spec->setup->InChild(fds, &nfds) : 0;
    SendSetupMessage(sock, error, fds, error == 0 ? nfds : 0);
    if (error != 0) _exit(127);
    close(sock);
    int report[2];
    if (spec->new_pid_namespace && pipe(report) == 0 && unshare(CLONE_NEWPID) == 0) {
      // The workload runs as pid 2 of a fresh PID namespace: the same pid
      // every run (runtimes that mix the pid into hash seeds count the same),
      // and not its init, which would ignore signals it sends itself.
      pid_t init = fork();
      if (init > 0) MirrorNamespace(init, report[0]);
      if (init == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // if the stand-in dies, so do we
        pid_t workload = fork();
        if (workload > 0) RunNamespaceInit(workload, report[1]);
        if (workload == 0) prctl(PR_SET_PDEATHSIG, SIGKILL);
      }
      close(report[0]);
      close(report[1]);
    }
  }
};

}  // namespace

std::string LaunchResult::Describe(double timeout_seconds) const {
  if (!started) return "could not start: " + start_error;
  if (timed_out) {
    return fmt::format("timed out after {:g} s (process tree killed)", timeout_seconds);
  }
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exit_code);
}

LaunchResult Launch(const LaunchSpec& spec) {
  LaunchResult result;
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0) {
    result.start_error = fmt::format("socketpair: {}", strerror(errno));
    return result;
  }
  // The child's end must survive until the child's own exec (CLOEXEC closes it there).
  NormalisedLaunch hook;
  hook.spec = &spec;
  hook.sock = sv[1];

  bp::environment env;
  for (const auto& [key, value] : spec.env) env[key] = value;
  std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());

  boost::asio::io_context ios;
  std::future<std::string> out, err;
  boost::asio::steady_timer timer(ios);
  auto start = std::chrono::steady_clock::now();
  auto end = start;
  try {
    bp::child child(
        bp::exe = spec.argv[0], bp::args = args, bp::env = env,
        bp::start_dir = spec.cwd.empty() ? std::string(".") : spec.cwd, bp::std_in < bp::null,
        bp::std_out > out, bp::std_err > err, ios,
        bp::on_exit = [&](int, const std::error_code&) {
          end = std::chrono::steady_clock::now();
          timer.cancel();
        },
        hook);
    close(sv[1]);
    sv[1] = -1;
    result.started = true;
    const pid_t pgid = child.id();
    if (spec.timeout_seconds > 0) {
      timer.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(spec.timeout_seconds)));
      timer.async_wait([&](const boost::system::error_code& ec) {
        if (ec) return;  // cancelled: the child exited in time
        result.timed_out = true;
        kill(-pgid, SIGKILL);
      });
    }
    SetupMessage msg{};
    std::vector<int> fds;
    if (ReceiveSetupMessage(sv[0], &msg, &fds)) result.fds = fds;
    ios.run();
    child.wait();
    // Whatever the workload left running in its process group goes too.
    kill(-pgid, SIGKILL);
    const int status = child.native_exit_code();
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    if (msg.error != 0) {
      result.started = false;
      result.setup_errno = msg.error;
      result.start_error = fmt::format("setting up the counters failed: {}", strerror(msg.error));
      for (int fd : result.fds) close(fd);
      result.fds.clear();
    }
    result.out = out.get();
    result.err = err.get();
  } catch (const bp::process_error& e) {
    result.started = false;
    const int code = e.code().value();
    result.start_error = fmt::format("{}: {}", spec.exec_path.empty() ? spec.argv[0] : spec.exec_path,
                                     code != 0 ? strerror(code) : e.what());
    end = std::chrono::steady_clock::now();
  }
  if (sv[1] >= 0) close(sv[1]);
  close(sv[0]);
  result.wall_seconds = std::chrono::duration<double>(end - start).count();
  return result;
}

bool PidNamespaceAvailable() {
  static const bool available = [] {
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) _exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }();
  return available;
}

std::map<std::string, std::string> MinimalEnvironment(const std::string& home) {
  return {
      {"PATH", "/usr/local/bin:/usr/bin:/bin"},
      {"HOME", home},
      {"LC_ALL", "C"},
      {"TZ", "UTC"},
  };
}

}  // namespace workgate
