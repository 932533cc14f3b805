#include "workload/run_plan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

extern char** environ;

namespace workgate {

namespace fs = std::filesystem;

namespace {

uint64_t Fnv1a64(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string Substitute(const std::string& arg, const std::string& exe,
                       const std::string& suite_dir) {
  return ReplaceAll(ReplaceAll(arg, "{exe}", exe), "{suite_dir}", suite_dir);
}

// The per-user base directory, $TMPDIR/workgate-<uid> (/tmp without TMPDIR);
// refuses one that another user could have prepared (a shared /tmp).
std::string BaseDirectory() {
  const char* tmp = getenv("TMPDIR");
  const std::string base =
      fmt::format("{}/workgate-{}", tmp != nullptr && *tmp == '/' ? tmp : "/tmp", getuid());
  mkdir(base.c_str(), 0700);
  struct stat st;
  if (lstat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
      (st.st_mode & 0077) != 0) {
    throw EnvironmentError(fmt::format(
        "{} is not a private directory of this user; remove it and run again", base));
  }
  return base;
}

// Takes the exclusive lock on `fd`. When another workgate holds it (a
// second CI job on this runner counting the same workload), says so before
// waiting, so a wait does not look like a hang.
bool LockSaying(int fd, const std::string& key, const std::string& lock) {
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
  if (errno != EWOULDBLOCK) return false;
  fmt::print(stderr,
             "workgate: waiting for another workgate that counts the workload {} (lock {})\n",
             TerminalSafe(key, LineBreaks::kToSpace), lock);
  return flock(fd, LOCK_EX) == 0;
}

}  // namespace

std::string WorkDirKey(const Workload& w, const std::string& suite_dir) {
  return suite_dir + '\n' + w.Canonical();
}

WorkDir::WorkDir(const Workload& w, const std::string& suite_dir, Place place) {
  const std::string base = BaseDirectory();
  const std::string name = fmt::format("w{:016x}", Fnv1a64(WorkDirKey(w, suite_dir)));
  // Bound, it is at one path in every run, whatever TMPDIR says: in /tmp,
  // which every run has fresh, where nothing else of the run is bound.
  const std::string in_runs = fmt::format("/tmp/workgate-{}/{}", getuid(), name);
  if (place == Place::kAuto && BindableInRuns(in_runs)) {
    path_ = in_runs;
    std::string made = fmt::format("{}/{}.XXXXXX", base, name);
    if (mkdtemp(made.data()) == nullptr) {
      throw EnvironmentError(fmt::format("cannot create {}: {}", made, strerror(errno)));
    }
    host_path_ = made;
    RegisterCleanupPath(host_path_);
    return;
  }
  path_ = fmt::format("{}/{}", base, name);
  host_path_ = path_;
  const std::string& key = w.name;
  const std::string lock = lock_path();
  // The holder removes the lock file when it is done, so a waiter may end up
  // holding a lock on a file that is no longer there: it tries again until
  // the file it locked is the one at the path.
  for (;;) {
    lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_fd_ < 0 || !LockSaying(lock_fd_, key, lock)) {
      throw EnvironmentError(fmt::format("cannot lock {}: {}", lock, strerror(errno)));
    }
    struct stat held, named;
    if (fstat(lock_fd_, &held) == 0 && stat(lock.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      break;
    }
    close(lock_fd_);
  }
  // Each registered once it is made (util/cleanup.h): one made after an
  // interruption's last sweep then goes at once.
  RegisterCleanupPath(lock);
  std::error_code ec;
  fs::remove_all(path_, ec);  // a fresh directory: nothing left by an earlier run
  if (mkdir(path_.c_str(), 0700) != 0) {
    throw EnvironmentError(fmt::format("cannot create {}: {}", path_, strerror(errno)));
  }
  RegisterCleanupPath(path_);
}

WorkDir::~WorkDir() {
  RemoveTree(host_path_);
  UnregisterCleanupPath(host_path_);
  if (bound()) return;
  unlink(lock_path().c_str());  // while still holding it: see the constructor
  UnregisterCleanupPath(lock_path());
  if (lock_fd_ >= 0) close(lock_fd_);
}

bool WorkDir::PointExeAt(const std::string& target, std::string* err) const {
  const std::string real = RealPath(target);
  if (real.empty()) {
    *err = fmt::format("{} does not exist", target);
    return false;
  }
  if (!EmptyDirectory(host_path_, err)) return false;
  const std::string link = host_exe_link();
  if (symlink(real.c_str(), link.c_str()) != 0) {
    *err = fmt::format("cannot link {} to {}", link, real);
    return false;
  }
  return true;
}

std::string FindClockShim() {
  const char* override_path = getenv("WORKGATE_CLOCK_SHIM");
  if (override_path && *override_path) return override_path;
  return FindCompanion("libworkgate-clock.so");
}

bool PlanRun(const SideRun& side, RunKind kind, LaunchSpec* out, std::string* err) {
  LaunchSpec spec;
  spec.timeout_seconds = side.w.timeout_seconds;
  if (side.options.as_is) {
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos) spec.env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    spec.no_aslr = false;
  } else {
    spec.env = MinimalEnvironment(side.dir.path());
    spec.cwd = side.dir.path();
    if (side.dir.bound()) spec.cwd_source = side.dir.host_path();
    spec.no_aslr = true;
    spec.new_pid_namespace = PidNamespaceAvailable();
    // The other workloads' directories (of this workgate, or another on the
    // machine) are read-only to this one: a candidate cannot plant files in
    // a baseline's directory while it runs (--jobs). A bound one's run has
    // the base directory fresh, and sees none of them.
    if (!side.dir.bound()) spec.readonly_dirs.push_back(BaseDirectory());
  }
  for (const auto& [k, v] : side.w.env) spec.env[k] = v;
  if (kind == RunKind::kPinned) {
    if (side.w.clock == ClockMode::kEnv) spec.env["WORKGATE_FIXED_CLOCK"] = "1";
    if (side.w.clock == ClockMode::kShim) {
      const std::string shim = FindClockShim();
      if (shim.empty()) {
        *err = "the clock shim libworkgate-clock.so is not built beside workgate (looked for " +
               CompanionPlaces("libworkgate-clock.so") + ")";
        return false;
      }
      spec.env["LD_PRELOAD"] = shim;
    }
  }
  for (const auto& [k, v] : side.options.extra_env) spec.env[k] = v;
  for (const auto& key : side.options.pass_env) {
    const char* value = getenv(key.c_str());
    if (value != nullptr) spec.env[key] = value;
  }
  const std::string exe_text = side.options.as_is ? side.exe : side.dir.exe_link();
  for (const auto& arg : side.w.command) {
    spec.argv.push_back(Substitute(arg, exe_text, side.suite_dir));
  }
  spec.exec_path = SearchPath(spec.argv[0], spec.env.count("PATH") ? spec.env["PATH"] : "");
  if (spec.exec_path.empty()) {
    *err = fmt::format("{}: command not found on PATH {}", spec.argv[0], spec.env["PATH"]);
    return false;
  }
  *out = std::move(spec);
  return true;
}

}  // namespace workgate
