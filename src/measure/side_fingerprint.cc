#include "measure/side_fingerprint.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <optional>

#include "counter/counter.h"
#include "identity/fingerprint.h"
#include "launch/launch.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/sha256.h"
#include "workload/workload.h"

namespace workgate {

namespace {

// The program a side really runs: the build itself when it is a file, else
// (a build directory, or an interpreter running a script of the build) the
// first program of the command, found as its launch found it. False with
// `*err` when it is not there: the fingerprint would then name no binary
// and no libraries at all.
bool MeasuredProgram(const std::string& exe, const RunIdentity& run, std::string* program,
                     std::string* err) {
  struct stat st;
  if (stat(exe.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    *program = RealPath(exe);
  } else if (!run.argv.empty()) {
    const auto path = run.env.find("PATH");
    std::string found =
        SearchPath(run.argv[0], path != run.env.end() ? path->second : "/usr/bin:/bin");
    if (!found.empty() && found[0] != '/' && !run.cwd.empty()) found = run.cwd + "/" + found;
    // A path in the run's directory, where this machine has it.
    *program = found.empty() ? "" : RealPath(HostPath(found, run.cwd, run.host_cwd));
  }
  if (!program->empty()) return true;
  *err = fmt::format("cannot find the program that ran ({})",
                     run.argv.empty() ? exe : run.argv[0]);
  return false;
}

}  // namespace

Fingerprint CommonFingerprint(const Fingerprint& machine, const Counter& counter,
                              const std::string& workgate_version) {
  Fingerprint common = machine;
  common.workgate_version = workgate_version;
  common.backend = counter.name();
  common.event = counter.event();
  common.valgrind_version = counter.tool_version();
  common.valgrind_path = counter.tool_path();
  std::string err;
  std::optional<std::string> cache = LdSoCacheSha256(&err);
  if (!cache) throw EnvironmentError("cannot fingerprint the loader cache: " + err);
  common.ld_so_cache_sha256 = *cache;
  return common;
}

bool FingerprintSide(const Fingerprint& common, const SideRun& side, const RunIdentity& run,
                     Fingerprint* fp, std::string* err) {
  *fp = common;
  fp->argv = run.argv;
  fp->env = run.env;
  if (!WorkloadDigest(side.w, side.suite_dir, &fp->suite_sha256, err)) return false;
  std::string program;
  if (!MeasuredProgram(side.exe, run, &program, err)) return false;
  std::optional<std::string> sha = Sha256OfFile(program, err);
  if (!sha) return false;
  fp->binary_sha256 = *sha;
  return SharedLibrariesOf(program, run.env, &fp->libraries, err);
}

}  // namespace workgate
