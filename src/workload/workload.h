#pragma once
// A workload: the argv to run for one build, its environment, its clock, and
// the score its pinned run must print. Suites (TOML files) list workloads;
// `count -- CMD` and `compare -- ARGS` make one ad hoc.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/simulated_events.h"
#include "model/model.h"

namespace workgate {

enum class ClockMode {
  kNone,  // the program's work does not depend on the clock
  kEnv,   // cooperative: WORKGATE_FIXED_CLOCK=1, the program pins itself
  kShim,  // LD_PRELOAD of workgate's clock shim (libworkgate-clock.so)
};
const char* ClockModeName(ClockMode mode);
/// "none", "env" or "shim" (ClockModeName's words); false for anything else.
bool ParseClockMode(const std::string& text, ClockMode* mode);

struct Workload {
  std::string name;
  /// argv with the placeholders {exe} (the build under test) and {suite_dir}.
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  ClockMode clock = ClockMode::kNone;
  double timeout_seconds = 600;
  bool region = false;
  /// Processes of the tree may outlive the workload (a daemon it starts on
  /// purpose): they are killed and the run stands, with a note. Otherwise a
  /// process left running is uncounted work, and the run is invalid.
  bool allow_leftover = false;
  std::optional<double> max_work_added_percent;
  /// What the gate counts and compares of it (`metric`): instructions, or
  /// the estimated cycles of every counted run's simulated events, which
  /// only the Valgrind backends count.
  Metric metric = Metric::kInstructions;
  std::optional<std::string> score_pattern;  // RE2, one capture group (workload/score.h)
  /// What the pinned run must print (score.expect): the candidate always,
  /// the baseline unless it prints score_previous.
  std::optional<std::string> score_expect;
  /// score.previous: the score before a change that alters it on purpose,
  /// which the baseline alone may print instead of score_expect. Then the
  /// two sides did different work by design (ScoreAdmitted, workload/score.h).
  std::optional<std::string> score_previous;
  /// Where it was defined, for messages: "workloads/interp.toml:12".
  std::string origin;
  /// `[workload.accepted]`: a delta accepted as intended work
  /// (workload/suite_edit.h writes it; decision/decision.h applies it).
  std::optional<AcceptedWork> accepted;
  /// A canonical text of what the workload runs and how its score is found
  /// (everything above but the expected scores, the origin and the accepted
  /// delta: accepting work changes no count, so it keeps the workload's
  /// directory and every stored count); its digest
  /// goes in fingerprints so a stored baseline of another definition is not
  /// compared, and it names the workload's directory (WorkDirKey). The
  /// expected scores say what a run must print, not what it runs: every
  /// comparison checks each side's printed score against them again (a
  /// stored baseline's and a stored count's too), so a change that edits
  /// them leaves the directory, and a stored baseline, as they were.
  std::string Canonical() const;
};

struct Suite {
  std::string path;  // as given
  std::string dir;   // absolute folder of the file: {suite_dir}
  std::string sha256;  // of the file's text as LoadSuite read it
  std::vector<Workload> workloads;
};

/// The largest suite file LoadSuite reads; the bundled ones are a few KiB.
inline constexpr size_t kMaxSuiteBytes = 4 << 20;

/// Reads a suite. Errors name the file, line and key ("interp.toml:7:
/// workload 'fib': key 'comand' is not known"), or say why the file cannot
/// be read ("the suite x.toml is a directory, not a file"), and are usage
/// errors. Numeric keys must lie in their NumberRange (workload/number_range.h).
bool LoadSuite(const std::string& path, Suite* suite, std::string* err);

/// LoadSuite's parsing of `text`, read from `path` (named in messages), without
/// touching the file system; `suite->dir` stays empty.
bool ParseSuite(std::string_view text, const std::string& path, Suite* suite, std::string* err);

/// Whether an argument of `command` names the build under test ({exe}).
bool NamesTheBuild(const std::vector<std::string>& command);

/// An ad hoc command line (`compare -- ARGS`, `init -- ARGS`) as a workload's
/// command: as given where an argument names {exe}; else the build is argv[0],
/// {exe} before the arguments.
std::vector<std::string> AdHocCommand(const std::vector<std::string>& args);

/// Whether `name` may name an ad hoc workload (`compare --name`): 1 to 200
/// bytes, no control characters. False with the reason in `*err`. (A
/// suite's names are the suite author's, and any text: reports escape them.)
bool CheckWorkloadName(const std::string& name, std::string* err);

/// Keeps the named workloads, in suite order. False if a name is unknown.
bool SelectWorkloads(Suite* suite, const std::vector<std::string>& names, std::string* err);

/// What `count --suite`, `compare --suite` and `explain` run: the suite at
/// `path` (LoadSuite) with the workloads named in `names`, all of them when
/// it is empty (SelectWorkloads). Throws a usage error (exit 2) with their
/// message.
Suite LoadSuiteSelecting(const std::string& path, const std::vector<std::string>& names);

/// The digest of what `w` runs besides the build, for fingerprints: its
/// definition (Workload::Canonical) and the content of each file its command
/// names through {suite_dir} (the script or input beside the suite; in an
/// argument such as "--in={suite_dir}/x", the path from the placeholder to
/// the argument's end). A stored baseline of another script is then another
/// workload, not work added. A named path that is no regular file (an output
/// the program makes) counts as such. The suite file itself takes no part:
/// other workloads in it do not change this one, and where it lies is in the
/// argv already. False with `*err` when a named file cannot be read.
bool WorkloadDigest(const Workload& w, const std::string& suite_dir, std::string* digest,
                    std::string* err);

}  // namespace workgate
