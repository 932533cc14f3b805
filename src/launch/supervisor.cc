#include "launch/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch/launch.h"
#include "launch/process_table.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace workgate {

namespace {

constexpr int kMaxChildren = 1024;

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void SendMessage(int sock, const LaunchMessage& msg, const int* fds, int nfds) {
  LaunchMessage copy = msg;
  iovec iov{&copy, sizeof copy};
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

// The highest descriptor number the fallbacks below visit when close_range(2)
// (Linux 5.9, CLOSE_RANGE_CLOEXEC 5.11) is missing.
unsigned FallbackFdLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur > 65536) return 65536;
  return static_cast<unsigned>(limit.rlim_cur);
}

void CloseRange(unsigned lo, unsigned hi) {
  if (syscall(SYS_close_range, lo, hi, 0) == 0) return;
  for (unsigned fd = lo, end = FallbackFdLimit(); fd <= hi && fd < end; ++fd) close(fd);
}

// Closes every descriptor but `keep` (at most 4): the Boost.Process exec-error
// pipe and the output pipes included, so workgate sees EOF on them exactly
// when the workload's tree is gone.
void CloseAllBut(std::initializer_list<int> keep) {
  int sorted[4];
  int n = 0;
  for (int fd : keep) {
    if (fd < 0 || n == 4) continue;
    int i = n++;
    for (; i > 0 && sorted[i - 1] > fd; --i) sorted[i] = sorted[i - 1];
    sorted[i] = fd;
  }
  unsigned lo = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned fd = static_cast<unsigned>(sorted[i]);
    if (fd > lo) CloseRange(lo, fd - 1);
    lo = fd + 1;
  }
  CloseRange(lo, ~0U);
}

// Marks every descriptor from 3 up close-on-exec: the workload starts with
// stdin, stdout, stderr and what it is meant to inherit, never another
// launch's pipe end that this process happened to hold at fork time.
void MarkCloseOnExecFrom3() {
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  for (unsigned fd = 3, end = FallbackFdLimit(); fd < end; ++fd) {
    fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  }
}

void OnChildSignal(int) {}  // only interrupts ppoll

struct Outcome {
  int32_t status = -1;
  int32_t leftovers = 0;
  int32_t killed_on_request = 0;
  int64_t wall_ns = 0;
};

// The supervisor's state while it waits.
struct Watch {
  pid_t workload = -1;
  int64_t started_ns = 0;
  bool workload_done = false;
  Outcome outcome;

  void Record(pid_t pid, int status) {
    if (pid != workload || workload_done) return;
    workload_done = true;
    outcome.status = status;
    outcome.wall_ns = NowNs() - started_ns;
  }
};

// As a subreaper, this process gets back every orphan of its tree: kills its
// children, reaps them, and repeats, since each one killed hands its own
// children over. Counts the processes that were still running, the workload
// aside.
void KillDescendants(Watch* watch) {
  ChildProcess kids[kMaxChildren];
  for (int round = 0; round < 100000; ++round) {
    int n = ListChildren(getpid(), kids, kMaxChildren);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      if (kids[i].zombie) continue;
      kill(kids[i].pid, SIGKILL);
      if (kids[i].pid != watch->workload) ++watch->outcome.leftovers;
    }
    for (int i = 0; i < n; ++i) {
      int status;
      pid_t r;
      while ((r = waitpid(kids[i].pid, &status, 0)) < 0 && errno == EINTR) {
      }
      if (r > 0) watch->Record(r, status);
    }
  }
}

// As a PID namespace's init: kill(-1) reaches every other process of the
// namespace at once (pid_namespaces(7)); they all end up as our children.
void KillNamespace(Watch* watch) {
  kill(-1, SIGKILL);
  for (;;) {
    int status;
    pid_t r = waitpid(-1, &status, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r != watch->workload) ++watch->outcome.leftovers;
    watch->Record(r, status);
  }
}

// Waits for the workload, reaping orphans as they end; then kills what is
// left once the workload has ended and `grace_ms` has passed, or at once
// when a request (or EOF: workgate is gone) arrives on `control`.
Outcome Supervise(pid_t workload, int64_t started_ns, int control, bool namespace_init,
                  int grace_ms) {
  Watch watch;
  watch.workload = workload;
  watch.started_ns = started_ns;
  sigset_t during_poll;
  sigprocmask(SIG_SETMASK, nullptr, &during_poll);
  sigdelset(&during_poll, SIGCHLD);
  int64_t grace_end = 0;
  for (;;) {
    bool running = false;
    for (;;) {
      int status;
      pid_t r = waitpid(-1, &status, WNOHANG);
      if (r > 0) {
        if (r == workload) grace_end = NowNs() + int64_t{grace_ms} * 1000000;
        watch.Record(r, status);
        continue;
      }
      running = r == 0;  // r < 0 (ECHILD): no child at all
      break;
    }
    if (watch.workload_done && !running) return watch.outcome;
    if (watch.outcome.killed_on_request || (watch.workload_done && NowNs() >= grace_end)) break;
    timespec wait{};
    if (watch.workload_done) {
      const int64_t left = grace_end - NowNs();
      wait.tv_sec = left / 1000000000;
      wait.tv_nsec = left % 1000000000;
    }
    pollfd p{control, POLLIN, 0};
    if (ppoll(&p, 1, watch.workload_done ? &wait : nullptr, &during_poll) > 0 && p.revents) {
      char request = 0;
      // Anything, or EOF (workgate went away), means: end the tree now.
      ssize_t n = read(control, &request, 1);
      (void)n;
      watch.outcome.killed_on_request = 1;
    }
  }
  if (namespace_init) {
    KillNamespace(&watch);
  } else {
    KillDescendants(&watch);
  }
  return watch.outcome;
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

[[noreturn]] void Finish(int sock, const Outcome& o) {
  LaunchMessage msg{};
  msg.kind = LaunchMessage::kFinal;
  msg.status = o.status;
  msg.leftovers = o.leftovers;
  msg.killed_on_request = o.killed_on_request;
  msg.wall_ns = o.wall_ns;
  SendMessage(sock, msg, nullptr, 0);
  EndLike(o.status);
}

// P without a namespace: the supervisor itself.
[[noreturn]] void RunSupervisor(pid_t workload, int64_t started_ns, const ChildPlan& plan) {
  CloseAllBut({plan.sock});
  Finish(plan.sock, Supervise(workload, started_ns, plan.sock, false, plan.grace_ms));
}

// The namespace's init (pid 1): supervises, then reports to P through
// `report` and exits, which takes the namespace with it.
[[noreturn]] void RunNamespaceInit(pid_t workload, int64_t started_ns, int control, int report,
                                   int grace_ms) {
  CloseAllBut({control, report});
  Outcome o = Supervise(workload, started_ns, control, true, grace_ms);
  ssize_t n = write(report, &o, sizeof o);
  (void)n;
  _exit(0);
}

// P with a namespace: a stand-in outside it that forwards workgate's kill
// request to the init and, when the init is gone, passes on its report.
[[noreturn]] void RunStandIn(pid_t init, int report, int control, int sock) {
  CloseAllBut({report, control, sock});
  sigset_t during_poll;
  sigprocmask(SIG_SETMASK, nullptr, &during_poll);
  sigdelset(&during_poll, SIGCHLD);
  int init_status = -1;
  bool forwarded = false;
  for (;;) {
    int status;
    if (waitpid(init, &status, WNOHANG) == init) {
      init_status = status;
      break;
    }
    pollfd p{sock, POLLIN, 0};
    if (ppoll(&p, forwarded ? 0 : 1, nullptr, &during_poll) > 0 && p.revents) {
      char request = 0;
      ssize_t n = read(sock, &request, 1);
      (void)n;
      n = write(control, &kKillRequest, 1);
      forwarded = true;
    }
  }
  Outcome o;
  if (read(report, &o, sizeof o) != static_cast<ssize_t>(sizeof o)) {
    // The init died without a report (killed from outside): the namespace
    // went with it, and how much was running is unknown.
    o = Outcome{};
    o.status = init_status;
    o.leftovers = -1;
  }
  Finish(sock, o);
}

// Writes the decimal digits of `n` to `*p`, advancing it.
void PutDecimal(char** p, unsigned long n) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  while (count > 0) *(*p)++ = digits[--count];
}

// Writes `text` (`size` bytes) to the file `path`; 0 or an errno value.
int WriteProcFile(const char* path, const char* text, size_t size) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = write(fd, text, size);
  const int e = n == static_cast<ssize_t>(size) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return e;
}

// "ID ID 1": `id` mapped to itself, for uid_map and gid_map.
int MapToItself(const char* path, unsigned long id) {
  char line[64];
  char* p = line;
  PutDecimal(&p, id);
  *p++ = ' ';
  PutDecimal(&p, id);
  *p++ = ' ';
  *p++ = '1';
  *p++ = '\n';
  return WriteProcFile(path, line, static_cast<size_t>(p - line));
}

// In W, when its mount namespace could not be made: says so on its stderr,
// which workgate quotes, and ends before the program runs uncontained.
[[noreturn]] void ExitUncontained(int error) {
  const char* prefix = "workgate: cannot contain the workload in its namespaces: ";
  const char* reason = strerror(error);
  ssize_t n = write(STDERR_FILENO, prefix, strlen(prefix));
  n = write(STDERR_FILENO, reason, strlen(reason));
  n = write(STDERR_FILENO, "\n", 1);
  (void)n;
  _exit(127);
}

// In W, just before Boost.Process execs it. `kept` are the ChildSetup's
// descriptors when the workload itself uses them (a region's counters).
void PrepareForExec(const ChildPlan& plan, const int* kept, int nkept) {
  if (plan.new_pid_namespace) {
    FileSystemView view;
    int error = ContainFileSystem(plan.bound, plan.n_bound, &view);
    // Root keeps its user id but no capability: it cannot mount the file
    // system writable again, or trace the namespace's init. A user in its
    // user namespace loses them at exec.
    if (error == 0 && geteuid() == 0) error = DropCapabilities();
    if (error != 0) ExitUncontained(error);
  }
  if (plan.fd_limit > 0) {
    // Both limits, so that no Valgrind of the tree raises the soft one and
    // moves its reserved descriptors (counter/vgcount_channel.h). Lowering
    // a hard limit needs no privilege.
    struct rlimit limit {};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      const rlim_t pinned = static_cast<rlim_t>(plan.fd_limit);
      limit.rlim_cur = limit.rlim_max = limit.rlim_max < pinned ? limit.rlim_max : pinned;
      setrlimit(RLIMIT_NOFILE, &limit);
    }
  }
  // If its supervisor is killed (by the workload itself, or by workgate's
  // last resort), the workload goes too.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  MarkCloseOnExecFrom3();
  for (int i = 0; i < plan.n_inherit_fds; ++i) fcntl(plan.inherit_fds[i], F_SETFD, 0);
  for (int i = 0; i < nkept; ++i) fcntl(kept[i], F_SETFD, 0);
}

}  // namespace

int EnterUserNamespace() {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER) != 0) return errno;
  // An unprivileged process may map only its own ids, and its group only
  // after giving up setgroups(2).
  int error = WriteProcFile("/proc/self/setgroups", "deny", 4);
  if (error == 0) error = MapToItself("/proc/self/uid_map", uid);
  if (error == 0) error = MapToItself("/proc/self/gid_map", gid);
  return error;
}

int DropCapabilities() {
  // The bounding set first: with it empty, no exec gives any back, not
  // even to root (capabilities(7), "Transformation of capabilities during
  // execve()").
  for (int cap = 0; cap < 64; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return errno;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return errno;
  }
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) return errno;
  return 0;
}

void BecomeWorkload(const ChildPlan& plan) {
  // Its own process group, so ctrl-c at the terminal reaches workgate first.
  setpgid(0, 0);
  if (plan.no_aslr) {
    int persona = personality(0xffffffff);
    if (persona != -1) personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE);
  }
  int fds[ChildSetup::kMaxFds];
  int nfds = 0;
  int error = plan.setup != nullptr ? plan.setup->InChild(fds, &nfds) : 0;
  // The workload runs as pid 2 of a fresh PID namespace: the same pid every
  // run (runtimes that mix the pid into hash seeds count the same), and not
  // its init, which would ignore signals it sends itself. Asked for and not
  // had (namespaces ran out, a seccomp policy), the launch fails rather than
  // count the workload at another pid.
  int report[2] = {-1, -1}, control[2] = {-1, -1};
  int namespace_error = 0;
  if (error == 0 && plan.new_pid_namespace) {
    if (pipe2(report, O_CLOEXEC) != 0 || pipe2(control, O_CLOEXEC) != 0) {
      namespace_error = errno;
    } else if (plan.user_namespace) {
      namespace_error = EnterUserNamespace();
    }
    if (namespace_error == 0 && unshare(CLONE_NEWPID) != 0) namespace_error = errno;
  }
  LaunchMessage setup{};
  setup.kind = LaunchMessage::kSetup;
  setup.error = error;
  setup.namespace_error = namespace_error;
  setup.nfds = error == 0 && namespace_error == 0 ? nfds : 0;
  SendMessage(plan.sock, setup, fds, setup.nfds);
  if (error != 0 || namespace_error != 0) _exit(127);
  const int nkept = plan.setup != nullptr && plan.setup->WorkloadKeepsFds() ? nfds : 0;

  // Orphans of the tree come back to this process instead of init
  // (PR_SET_CHILD_SUBREAPER, prctl(2)), so none can slip away.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction on_child {};
  on_child.sa_handler = OnChildSignal;
  on_child.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &on_child, nullptr);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);

  if (plan.new_pid_namespace) {
    pid_t init = fork();
    if (init > 0) RunStandIn(init, report[0], control[1], plan.sock);
    if (init < 0) _exit(127);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // if the stand-in dies, the namespace goes
    // The init is a copy of workgate (its memory, its environment) that the
    // workload sees as pid 1: not dumpable, so a workload without privilege
    // cannot read its /proc files (environ, mem) or trace it.
    prctl(PR_SET_DUMPABLE, 0);
    const int64_t started = NowNs();
    pid_t workload = fork();
    if (workload > 0) RunNamespaceInit(workload, started, control[0], report[1], plan.grace_ms);
    if (workload < 0) _exit(127);
    PrepareForExec(plan, fds, nkept);
    return;
  }
  const int64_t started = NowNs();
  pid_t workload = fork();
  if (workload > 0) RunSupervisor(workload, started, plan);
  if (workload < 0) _exit(127);
  PrepareForExec(plan, fds, nkept);
}

}  // namespace workgate
