#pragma once
// `workgate init`: a suite for the user's own program, written from what the
// program did rather than guessed. The command is counted twice with the
// clock and entropy pinned (vgcount answers every time and entropy read;
// callgrind runs it under the clock shim) and, when it read the time or
// entropy, twice more on the real ones. From those runs come:
//   - the clock mode: "none" when it read no time or entropy, or when the
//     real ones left its count unchanged; "shim" when they moved it;
//   - the score: a number every pinned run printed the same
//     (workload/score_guess.h), preferring one the real clock did not move;
//     none at all when the program's own score (a number its line calls a
//     score or checksum) changed between the pinned runs, or when no
//     number repeated and the clock is pinned, which needs a score: then no
//     suite is written, and InitResult::score_problem says why;
//   - how long one count takes, and a timeout from it.
// MakeInitSuite is the whole of `workgate init` below its command line: the
// request from its options, the backend, the runs, and the suite's text.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "counter/factory.h"
#include "measure/comparison.h"
#include "util/exit_codes.h"
#include "workload/run_plan.h"
#include "workload/suite_writer.h"

namespace workgate {

struct InitRequest {
  std::string exe;  // the build: {exe}
  std::string name;
  std::vector<std::string> command;  // with {exe} and {suite_dir}
  std::string suite_dir;             // the folder the suite is written to
  double timeout_seconds = 600;
  LaunchOptions options;
};

/// One measured run.
struct InitRun {
  uint64_t count = 0;
  double seconds = 0;                      // wall time of the counted run
  std::map<std::string, uint64_t> pinned;  // vgcount: the time and entropy reads it answered
  std::string stdout_text;                 // at most kMostInitOutput bytes
};

/// What a run's output keeps for the score search.
inline constexpr size_t kMostInitOutput = 4 << 20;

struct InitResult {
  SuiteDraft draft;
  std::vector<InitRun> pinned, real;
  bool inputs_seen = false;  // vgcount: the pinned reads are known
  std::string error;         // a run failed: why (the suite is not written)
  /// The runs printed no score a suite can assert: the program's own score
  /// changed between the pinned runs, or a suite that pins the clock needs
  /// one and no number repeated. Which line, and what each run printed
  /// (the suite is not written).
  std::string score_problem;
};

/// Measures `request`'s command for a suite (see the file comment). The
/// draft's header says what was measured; its comments say why each value.
InitResult MeasureForSuite(Counter& counter, const InitRequest& request,
                           const ProgressFn& progress);

/// The reads of `pinned` (CountedRun::pinned) that are time: "tsc", "clock",
/// "sysinfo"; and entropy: "rdrand", "rdseed", "getrandom", "random-device".
uint64_t TimeReads(const std::map<std::string, uint64_t>& pinned);
uint64_t EntropyReads(const std::map<std::string, uint64_t>& pinned);

/// What `workgate init` was given, as the user wrote it.
struct InitOptions {
  std::string exe;     // --exe
  std::string name;    // --name; "" names the workload after the build's file
  std::string output;  // --output: the suite file
  double timeout_seconds = 600;
  LaunchOptions launch;
  std::vector<std::string> command;  // after --
  /// --each GLOB: one workload per file the globs match, the file named by
  /// {file} in the command (after its last argument where none names it).
  std::vector<std::string> each;
  /// --append: the workloads are added to the suite `output` names.
  bool append = false;
};

/// An argument as the suite must name it: the workload runs in an empty
/// private directory, so one that names an existing file relative to where
/// workgate was started ("bench.py") becomes "{suite_dir}/bench.py" when the
/// file is in `suite_dir` or below it, else the file's absolute path.
/// "--in=x.txt" is rewritten after its '='. Anything else (an option, an
/// absolute path, an argument with a placeholder, no file) is kept.
std::string AsTheSuiteNamesIt(const std::string& arg, const std::string& suite_dir);

/// The request MeasureForSuite takes for `options`: the workload named after
/// the build's file where --name is not given, the suite's folder that of
/// --output (links resolved), and the command as a workload's (AdHocCommand)
/// with each argument AsTheSuiteNamesIt.
InitRequest InitRequestFor(const InitOptions& options);

/// Every request `options` makes: InitRequestFor's one, or with --each one
/// per file its globs match (regular files, in the globs' order, each file
/// once), each named after its file's name without the extension, or its
/// path as matched without it where two files share a name. Throws
/// UsageError for a glob that matches no file, two workloads of one name,
/// --name beside --each (each workload is named after its file), and {file}
/// without --each.
std::vector<InitRequest> InitRequestsFor(const InitOptions& options);

/// The backend init counts with, from ChooseBackend's answers to a request
/// for vgcount and for callgrind: vgcount where it can count, since it
/// answers every read of the time and entropy and so says which the program
/// made; else callgrind. Throws Error(kExitEnvironment) with callgrind's
/// reason where neither can.
BackendChoice InitBackend(const BackendChoice& vgcount, const BackendChoice& callgrind);

/// The comment lines at the top of the suite (above the first workload it
/// adds, with --append): when (`written_at`, as UtcNow gives it) and from
/// which command line it was written, what a count of each workload with
/// `backend` took (`firsts`: each workload's first pinned run), and the
/// command that gates two builds with it.
std::vector<std::string> InitHeader(const InitOptions& options, const std::string& backend,
                                    const std::vector<InitRun>& firsts,
                                    const std::string& written_at);

/// What MakeInitSuite measured and wrote.
struct InitSuite {
  /// One a workload, in the suite's order; the first's draft has the header.
  std::vector<InitResult> measured;
  std::string backend;  // the counter's name
  std::string text;     // the suite file; "" when `error` says why there is none
  /// Why no suite was written, with the exit that says so: kExitInvalid when
  /// the command failed or printed no score a suite can assert,
  /// kExitEnvironment when the text would not read back.
  int exit_code = kExitPass;
  std::string error;
};

/// `workgate init` for `options`: checks the build, counts each request with
/// InitBackend's choice (MeasureForSuite, which reports through `progress`)
/// and writes the suite's text (with --append, the existing suite's text and
/// then the new workloads), checked to read back as the workloads measured.
/// Throws Error where it cannot start: the build fails its checks
/// (kExitInvalid), nothing can count (kExitEnvironment), the suite to append
/// to cannot be read or already has a workload of a new one's name
/// (kExitUsage). What stops it after the runs comes back in
/// InitSuite::error instead, so that the caller can clear its progress line
/// before it says so.
InitSuite MakeInitSuite(const InitOptions& options, const ProgressFn& progress);

}  // namespace workgate
