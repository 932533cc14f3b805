#pragma once
// The files a command will write its reports to, checked before any counting:
// a report that cannot be written should stop the run at once, not after
// minutes of counting, and a report an earlier run left behind must not
// outlive a run that stops before writing its own.

#include <string>
#include <vector>

namespace workgate {

/// One report file: the option (or variable) that names it, its path, and
/// whether workgate appends to it ($GITHUB_STEP_SUMMARY) instead of replacing
/// it. An empty path is no report; "-" is standard output (report_output.h),
/// which needs no check and leaves nothing stale.
struct ReportPath {
  std::string option;
  std::string path;
  bool append = false;
};

/// A file a command reads (a build, the suite, a stored baseline, the store,
/// a part to merge): the option that names it and its path. An empty path is
/// none.
struct InputPath {
  std::string option;
  std::string path;
};

/// Throws Error(kExitUsage), naming both options and paths, when a report
/// would be written over a file the command reads, or two reports name one
/// file: `--markdown ./cand` would delete the candidate build before it is
/// counted, `--json suite.toml` would overwrite the suite. Two paths name
/// one file when both exist and have the same device and inode (a hard link
/// or a symbolic link to it too), or else when their absolute forms, with the
/// symbolic links of their existing parts resolved, are equal.
void CheckNoCollision(const std::vector<ReportPath>& reports, const std::vector<InputPath>& inputs);

/// Why `report` cannot be written, or "": its directory must exist and be
/// writable, the path must not be a directory, and a file appended to that
/// exists must be writable.
std::string ReportPathProblem(const ReportPath& report);

/// Throws Error(kExitUsage) when CheckNoCollision finds two of `reports`, or
/// a report and one of `inputs`, that are one file; then Error(kExitEnvironment)
/// with the first report's problem, naming its option and path.
void CheckReportPaths(const std::vector<ReportPath>& reports,
                      const std::vector<InputPath>& inputs = {});

/// Deletes the files at the replaced (not appended) reports' paths, so a
/// run that is interrupted or fails before it writes its reports leaves no
/// earlier run's report there. Throws Error(kExitEnvironment) when one exists
/// and cannot be deleted.
void RemoveStaleReports(const std::vector<ReportPath>& reports);

}  // namespace workgate
