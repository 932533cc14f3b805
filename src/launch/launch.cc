#include "launch/launch.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <chrono>
#include <fmt/format.h>
#include <memory>

#include "launch/file_system.h"
#include "launch/output_capture.h"
#include "launch/supervisor.h"
#include "launch/tree_registry.h"

namespace workgate {

namespace bp = boost::process;

namespace {

using Clock = std::chrono::steady_clock;

// After the deadline workgate asks the supervisor to kill the tree; if it has
// not ended this much later, its process group is killed outright.
constexpr auto kKillPatience = std::chrono::seconds(2);
// After the supervisor ended, the output pipes normally reach EOF at once;
// a descendant that escaped both supervisor and subreaper could hold them.
constexpr auto kPipeGrace = std::chrono::seconds(2);

// The Boost.Process initializer that does workgate's part of the launch.
struct SupervisedLaunch : bp::extend::handler {
  const ChildPlan* plan;
  const std::string* exec_path;
  char** envp;
  pid_t* forked;  // the child's pid, also when its exec failed

  template <class Executor>
  void on_setup(Executor& exec) const {
    // argv[0] and the exec path are separate choices: Boost uses argv[0] as
    // the path unless told otherwise.
    if (!exec_path->empty()) exec.exe = exec_path->c_str();
    // The environment is built here rather than with bp::env: Boost 1.74's
    // basic_environment_impl::find reads past the end of shorter entries
    // (AddressSanitizer: heap-buffer-overflow).
    exec.env = envp;
  }

  template <class Executor>
  void on_exec_setup(Executor&) const {
    BecomeWorkload(*plan);
  }

  template <class Executor>
  void on_error(Executor& exec, const std::error_code&) const {
    *forked = exec.pid;
  }

  template <class Executor>
  void on_success(Executor& exec) const {
    *forked = exec.pid;
  }
};

// Receives one message from the supervisor, with any descriptors it carries.
bool ReceiveMessage(int sock, LaunchMessage* msg, std::vector<int>* fds) {
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

// One output pipe read to its end, chunk by chunk, into a bounded capture.
class PipeReader {
 public:
  PipeReader(boost::asio::io_context& ios, int fd,
             std::function<void(std::string_view)> on_line,
             const std::function<void(int, std::string_view)>& passthrough)
      : pipe_(ios), capture_(std::move(on_line)), fd_(fd), passthrough_(passthrough) {}

  bp::async_pipe& pipe() { return pipe_; }
  bool done() const { return done_; }
  const OutputCapture& capture() const { return capture_; }

  void Start(std::function<void()> on_end) {
    on_end_ = std::move(on_end);
    Read();
  }
  // Stops reading: what still holds the write end is no longer waited for.
  void Abandon() {
    boost::system::error_code ec;
    pipe_.close(ec);
  }

 private:
  void Read() {
    pipe_.async_read_some(boost::asio::buffer(*buffer_),
                          [this](const boost::system::error_code& ec, size_t n) {
                            if (n > 0) {
                              std::string_view chunk(buffer_->data(), n);
                              capture_.Feed(chunk);
                              if (passthrough_) passthrough_(fd_, chunk);
                            }
                            if (ec) {
                              capture_.Finish();
                              done_ = true;
                              on_end_();
                              return;
                            }
                            Read();
                          });
  }

  bp::async_pipe pipe_;
  OutputCapture capture_;
  int fd_;
  const std::function<void(int, std::string_view)>& passthrough_;
  // Not zeroed: read() fills what is used (two per launch, every launch).
  std::unique_ptr<std::array<char, 64 * 1024>> buffer_ =
      std::make_unique_for_overwrite<std::array<char, 64 * 1024>>();
  std::function<void()> on_end_;
  bool done_ = false;
};

// What the child side needs (launch/supervisor.h); `sock` is its end of the
// launch socket.
ChildPlan PlanChild(const LaunchSpec& spec, int sock) {
  ChildPlan plan;
  plan.sock = sock;
  plan.no_aslr = spec.no_aslr;
  plan.new_pid_namespace = spec.new_pid_namespace;
  plan.user_namespace = spec.new_pid_namespace && geteuid() != 0;
  plan.fd_limit = spec.pin_fd_limit ? kPinnedFdLimit : 0;
  plan.setup = spec.setup;
  plan.inherit_fds = spec.inherit_fds.data();
  plan.n_inherit_fds = static_cast<int>(spec.inherit_fds.size());
  plan.grace_ms = static_cast<int>(spec.grace_seconds * 1000);
  return plan;
}

// Why the supervisor stopped before the workload started, from its setup
// message: the ChildSetup's errno (the descriptors it handed back are
// closed), or the PID namespace that could not be made. Empty when it did not.
std::string SetupFailure(int setup_errno, int namespace_errno, std::vector<int>* fds) {
  if (setup_errno == 0 && namespace_errno == 0) return "";
  for (int fd : *fds) close(fd);
  fds->clear();
  if (setup_errno != 0) {
    return fmt::format("setting up the counters failed: {}", strerror(setup_errno));
  }
  return fmt::format("cannot run the workload in a PID namespace of its own: {}",
                     strerror(namespace_errno));
}

// The outcome as the supervisor reported it (`final_msg`, when it did) or
// as the supervisor's own wait status says.
void RecordOutcome(const LaunchMessage* final_msg, int native_status, LaunchResult* result) {
  const int status = final_msg != nullptr ? final_msg->status : native_status;
  if (status >= 0 && WIFEXITED(status)) result->exit_code = WEXITSTATUS(status);
  if (status >= 0 && WIFSIGNALED(status)) result->signal = WTERMSIG(status);
  if (final_msg != nullptr) {
    result->leftover_processes = final_msg->leftovers;
    // Asked to kill the tree without a deadline passing: an interruption.
    if (final_msg->killed_on_request && !result->timed_out) result->interrupted = true;
  }
}

// The paths bound for a contained workload on its read-only file system,
// in order (ContainFileSystem): what its command names that lies in a fresh
// directory (the program it executes, an argument that is an absolute path
// to a file there) and no other path bound, read-only; what the spec keeps
// from it, read-only; then its working directory, its TMPDIR and what the
// spec adds, writable.
struct PathToBind {
  std::string path;
  BoundPath::Mode mode;
  std::string source;  // where it is on this machine, when not at `path`
};

std::vector<PathToBind> BoundPaths(const LaunchSpec& spec) {
  std::vector<std::pair<std::string, BoundPath::Mode>> own;
  for (const std::string& dir : spec.hidden_dirs) own.emplace_back(dir, BoundPath::kHidden);
  for (const std::string& dir : spec.readonly_dirs) own.emplace_back(dir, BoundPath::kReadOnly);
  if (!spec.cwd.empty()) own.emplace_back(spec.cwd, BoundPath::kWritable);
  if (const auto tmpdir = spec.env.find("TMPDIR"); tmpdir != spec.env.end()) {
    own.emplace_back(tmpdir->second, BoundPath::kWritableOrEmpty);
  }
  for (const std::string& dir : spec.writable_dirs) own.emplace_back(dir, BoundPath::kWritable);
  auto named_only_here = [&own](const std::string& path) {
    if (path.empty() || path[0] != '/') return false;
    bool fresh = false;
    for (const char* dir : kFreshDirectories) {
      if (path == dir) return false;  // the fresh one stays
      fresh = fresh || PathIsWithin(path.c_str(), dir);
    }
    for (const auto& [bound, mode] : own) {
      if (PathIsWithin(path.c_str(), bound.c_str())) return false;
    }
    return fresh;
  };
  std::vector<std::pair<std::string, BoundPath::Mode>> paths;
  std::vector<std::string> named = {spec.exec_path.empty() ? spec.argv[0] : spec.exec_path};
  named.insert(named.end(), spec.argv.begin() + 1, spec.argv.end());
  for (const std::string& path : named) {
    if (named_only_here(path)) paths.emplace_back(path, BoundPath::kReadOnly);
  }
  paths.insert(paths.end(), own.begin(), own.end());
  std::vector<PathToBind> out;
  for (const auto& [path, mode] : paths) {
    const std::string host = HostPath(spec, path);
    out.push_back({path, mode, host != path ? host : ""});
  }
  for (const FileInPlace& file : spec.files_in_place) {
    out.push_back({file.path, BoundPath::kReadOnly, file.source});
  }
  return out;
}

std::vector<std::string> EnvironmentStrings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

// One launch from the spawn of its supervisor to the end of its tree: the
// output pipes, the deadline and what the supervisor reported, all on one
// io_context run in the calling thread. `sock` is workgate's end of the
// launch socket; the caller closes it after Supervise.
class TreeRun {
 public:
  TreeRun(const LaunchSpec& spec, int sock, LaunchResult* result)
      : spec_(spec),
        sock_(sock),
        result_(result),
        out_(ios_, 1, spec.stdout_line, spec.passthrough),
        err_(ios_, 2, {}, spec.passthrough),
        deadline_(ios_),
        patience_(ios_),
        pipe_grace_(ios_) {}

  // Forks the supervisor and has it exec the workload (launch/supervisor.h).
  // False with result->start_error when the workload did not start.
  bool Spawn(const ChildPlan& plan, char** envp);
  // Streams the output and keeps the deadline until the tree is gone.
  void Supervise();
  // Fills the result from the supervisor's reports and the captured output.
  void Collect();

 private:
  void OnSupervisorExit();
  void ArmDeadline(pid_t pgid);

  const LaunchSpec& spec_;
  const int sock_;
  LaunchResult* const result_;
  boost::asio::io_context ios_;
  PipeReader out_, err_;
  boost::asio::steady_timer deadline_, patience_, pipe_grace_;
  Clock::time_point start_, end_;
  bool supervisor_done_ = false;
  LaunchMessage final_msg_{};
  bool have_final_ = false;
  int namespace_errno_ = 0;  // the PID namespace asked for could not be made
  std::unique_ptr<bp::child> child_;
};

bool TreeRun::Spawn(const ChildPlan& plan, char** envp) {
  pid_t supervisor = -1;
  SupervisedLaunch hook;
  hook.plan = &plan;
  hook.exec_path = &spec_.exec_path;
  hook.envp = envp;
  hook.forked = &supervisor;
  const std::vector<std::string> args(spec_.argv.begin() + 1, spec_.argv.end());
  start_ = end_ = Clock::now();
  try {
    auto lock = LockSpawning();
    if (LaunchesInterrupted()) {
      result_->start_error = "workgate is being interrupted";
      return false;
    }
    try {
      child_ = std::make_unique<bp::child>(
          bp::exe = spec_.argv[0], bp::args = args,
          bp::start_dir = spec_.cwd.empty() ? std::string(".") : HostPath(spec_, spec_.cwd),
          bp::std_in < bp::null,
          bp::std_out > out_.pipe(), bp::std_err > err_.pipe(), ios_,
          bp::on_exit = [this](int, const std::error_code&) { OnSupervisorExit(); }, hook);
    } catch (...) {
      // An exec that failed leaves the supervisor, which ends on its own.
      if (supervisor > 0) {
        while (waitpid(supervisor, nullptr, 0) < 0 && errno == EINTR) {
        }
      }
      throw;
    }
    RegisterTree(child_->id(), sock_);
  } catch (const bp::process_error& e) {
    const int code = e.code().value();
    result_->start_error =
        fmt::format("{}: {}", spec_.exec_path.empty() ? spec_.argv[0] : spec_.exec_path,
                    code != 0 ? strerror(code) : e.what());
    return false;
  }
  result_->started = true;
  return true;
}

void TreeRun::Supervise() {
  const pid_t pgid = child_->id();
  LaunchMessage setup{};
  if (ReceiveMessage(sock_, &setup, &result_->fds) && setup.kind == LaunchMessage::kSetup) {
    result_->setup_errno = setup.error;
    namespace_errno_ = setup.namespace_error;
  }
  auto pipes_done = [this] {
    if (out_.done() && err_.done()) pipe_grace_.cancel();
  };
  out_.Start(pipes_done);
  err_.Start(pipes_done);
  if (spec_.timeout_seconds > 0) ArmDeadline(pgid);
  ios_.run();
  std::error_code wait_error;
  child_->wait(wait_error);
  UnregisterTree(pgid);
}

void TreeRun::OnSupervisorExit() {
  end_ = Clock::now();
  supervisor_done_ = true;
  deadline_.cancel();
  patience_.cancel();
  std::vector<int> none;
  have_final_ =
      ReceiveMessage(sock_, &final_msg_, &none) && final_msg_.kind == LaunchMessage::kFinal;
  // A supervisor that died without its report (the workload killed it)
  // leaves orphans with workgate, the subreaper. One whose setup failed
  // never started a workload.
  if (!have_final_ && result_->setup_errno == 0 && namespace_errno_ == 0) {
    result_->leftover_processes = -1;
    KillEscapees();
  }
  if (!out_.done() || !err_.done()) {
    pipe_grace_.expires_after(kPipeGrace);
    pipe_grace_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      KillEscapees();
      out_.Abandon();
      err_.Abandon();
    });
  }
}

void TreeRun::ArmDeadline(pid_t pgid) {
  deadline_.expires_after(std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(spec_.timeout_seconds)));
  deadline_.async_wait([this, pgid](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: the tree ended in time
    result_->timed_out = true;
    send(sock_, &kKillRequest, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    patience_.expires_after(kKillPatience);
    patience_.async_wait([this, pgid](const boost::system::error_code& ec2) {
      if (ec2 || supervisor_done_) return;
      kill(-pgid, SIGKILL);
      kill(pgid, SIGKILL);
    });
  });
}

void TreeRun::Collect() {
  LaunchResult& r = *result_;
  RecordOutcome(have_final_ ? &final_msg_ : nullptr, child_->native_exit_code(), &r);
  r.start_error = SetupFailure(r.setup_errno, namespace_errno_, &r.fds);
  if (!r.start_error.empty()) r.started = false;
  r.out = out_.capture().Text();
  r.err = err_.capture().Text();
  r.out_bytes = out_.capture().total_bytes();
  r.err_bytes = err_.capture().total_bytes();
  r.wall_seconds = have_final_ && final_msg_.wall_ns > 0
                       ? static_cast<double>(final_msg_.wall_ns) / 1e9
                       : std::chrono::duration<double>(end_ - start_).count();
}

}  // namespace

std::string LaunchResult::Describe(double timeout_seconds) const {
  if (!started) return "could not start: " + start_error;
  if (interrupted) return "interrupted (process tree killed)";
  if (timed_out) {
    return fmt::format("timed out after {:g} s (process tree killed)", timeout_seconds);
  }
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exit_code);
}

std::string LaunchResult::LeftoverNote() const {
  if (leftover_processes == 0 || timed_out || interrupted) return "";
  if (leftover_processes < 0) return "the workload's supervisor was killed; its tree was killed";
  return leftover_processes == 1
             ? "the workload left 1 process running; it was killed"
             : fmt::format("the workload left {} processes running; they were killed",
                           leftover_processes);
}

LaunchResult Launch(const LaunchSpec& spec) {
  LaunchResult result;
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  if (!spec.cwd_source.empty() && !spec.new_pid_namespace) {
    // Nothing would bind it: the run would work in another directory.
    result.start_error = fmt::format("{} can be bound at {} only in a namespace of the run's own",
                                     spec.cwd_source, spec.cwd);
    return result;
  }
  BecomeSubreaper();
  // SOCK_SEQPACKET, not DGRAM: the supervisor sees EOF when workgate's end
  // closes (workgate died), which a datagram socket pair never reports.
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    result.start_error = fmt::format("socketpair: {}", strerror(errno));
    return result;
  }
  ChildPlan plan = PlanChild(spec, sv[1]);
  // What the workload may reach in its namespace, and how.
  const std::vector<PathToBind> paths = BoundPaths(spec);
  if (spec.new_pid_namespace && paths.size() > static_cast<size_t>(kMaxBoundPaths)) {
    close(sv[0]);
    close(sv[1]);
    result.start_error =
        fmt::format("{} paths to bind for the workload; at most {}", paths.size(), kMaxBoundPaths);
    return result;
  }
  std::vector<BoundPath> bound;
  for (const PathToBind& p : paths) {
    bound.push_back(BoundPath{p.path.c_str(), p.mode, p.source.empty() ? nullptr : p.source.c_str()});
  }
  plan.bound = bound.data();
  plan.n_bound = static_cast<int>(bound.size());
  std::vector<std::string> env_strings = EnvironmentStrings(spec.env);
  std::vector<char*> envp;
  for (std::string& kv : env_strings) envp.push_back(kv.data());
  envp.push_back(nullptr);

  TreeRun run(spec, sv[0], &result);
  const bool spawned = run.Spawn(plan, envp.data());
  close(sv[1]);
  if (spawned) run.Supervise();
  close(sv[0]);
  if (spawned) run.Collect();
  return result;
}

namespace {

// What a launch can make here, found once by a child that tries it all.
struct NamespaceSupport {
  bool pid = false;
  bool read_only = false;
  unsigned fresh = 0;  // FileSystemView::fresh
};

// The probe child's exit status: 1 when it could make none of it, else
// kMadeNamespaces with the file system's bits.
constexpr int kMadeNamespaces = 0x40;
constexpr int kMadeReadOnly = 0x20;

const NamespaceSupport& Namespaces() {
  static const NamespaceSupport support = [] {
    auto lock = LockSpawning();  // a child of workgate that is no tree
    pid_t pid = fork();
    if (pid < 0) return NamespaceSupport{};
    if (pid == 0) {
      // What a launch does (launch/supervisor.cc): a user namespace when not
      // root, the PID namespace, and in a process of it the mount namespace.
      if (geteuid() != 0 && EnterUserNamespace() != 0) _exit(1);
      if (unshare(CLONE_NEWPID) != 0) _exit(1);
      const pid_t inside = fork();
      if (inside < 0) _exit(1);
      if (inside == 0) {
        FileSystemView view;
        if (ContainFileSystem(nullptr, 0, &view) != 0) _exit(1);
        if (geteuid() == 0 && DropCapabilities() != 0) _exit(1);
        _exit(kMadeNamespaces | (view.read_only ? kMadeReadOnly : 0) |
              static_cast<int>(view.fresh));
      }
      int inner = 0;
      while (waitpid(inside, &inner, 0) < 0 && errno == EINTR) {
      }
      _exit(WIFEXITED(inner) ? WEXITSTATUS(inner) : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    const int all_fresh = (1 << kFreshDirectoryCount) - 1;
    if ((code & kMadeNamespaces) == 0 ||
        (code & ~(kMadeNamespaces | kMadeReadOnly | all_fresh)) != 0) {
      return NamespaceSupport{};
    }
    return NamespaceSupport{true, (code & kMadeReadOnly) != 0,
                            static_cast<unsigned>(code & all_fresh)};
  }();
  return support;
}

}  // namespace

bool PidNamespaceAvailable() { return Namespaces().pid; }

std::string HostPath(const std::string& path, const std::string& cwd,
                     const std::string& cwd_source) {
  if (cwd_source.empty() || !PathIsWithin(path.c_str(), cwd.c_str())) return path;
  return cwd_source + path.substr(cwd.size());
}

bool BindableInRuns(const std::string& path) {
  if (!PidNamespaceAvailable() || path.empty() || path[0] != '/') return false;
  for (int r = 0; r < kFreshDirectoryCount; ++r) {
    const char* dir = kFreshDirectories[r];
    if (path != dir && PathIsWithin(path.c_str(), dir)) {
      return (Namespaces().fresh & (1u << r)) != 0;
    }
  }
  return false;
}

bool ReadOnlyFileSystemAvailable() { return Namespaces().read_only; }

std::vector<std::string> SharedTemporaryDirectories() {
  std::vector<std::string> shared;
  for (int r = 0; r < kFreshDirectoryCount; ++r) {
    if (!PidNamespaceAvailable() || (Namespaces().fresh & (1u << r)) == 0) {
      shared.push_back(kFreshDirectories[r]);
    }
  }
  return shared;
}

std::map<std::string, std::string> MinimalEnvironment(const std::string& home) {
  return {
      {"PATH", "/usr/local/bin:/usr/bin:/bin"},
      {"HOME", home},
      {"LC_ALL", "C"},
      {"TZ", "UTC"},
      // Runtimes that seed their hash tables from the environment: with
      // these, CPython's str and bytes hashes and Perl's hash order and
      // bucket layout are the same every run (a different seed is different
      // work). vgcount pins the getrandom bytes they otherwise use, but
      // callgrind and perf do not.
      {"PYTHONHASHSEED", "0"},
      {"PERL_HASH_SEED", "0"},
      {"PERL_PERTURB_KEYS", "0"},
  };
}

}  // namespace workgate
