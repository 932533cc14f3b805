#include "report/report_paths.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "report/report_output.h"
#include "util/error.h"
#include "util/paths.h"

namespace workgate {

std::string ReportPathProblem(const ReportPath& report) {
  if (report.path.empty() || IsStandardOutput(report.path)) return "";
  struct stat st;
  const bool exists = stat(report.path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return "it is a directory";
  if (report.append && exists) {
    if (access(report.path.c_str(), W_OK) != 0) {
      return fmt::format("it cannot be written: {}", std::strerror(errno));
    }
    return "";
  }
  // A replaced report is written beside its final name and renamed over it,
  // so the directory must take new files.
  const std::string dir = DirectoryOf(report.path);
  if (stat(dir.c_str(), &st) != 0) {
    return fmt::format("its directory {} cannot be used: {}", dir, std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return fmt::format("{} is not a directory", dir);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return fmt::format("its directory {} is not writable: {}", dir, std::strerror(errno));
  }
  return "";
}

void CheckReportPaths(const std::vector<ReportPath>& reports) {
  for (const ReportPath& report : reports) {
    std::string problem = ReportPathProblem(report);
    if (!problem.empty()) {
      throw EnvironmentError(
          fmt::format("cannot write the {} report to {}: {}", report.option, report.path, problem));
    }
  }
}

void RemoveStaleReports(const std::vector<ReportPath>& reports) {
  for (const ReportPath& report : reports) {
    if (report.path.empty() || report.append || IsStandardOutput(report.path)) continue;
    if (unlink(report.path.c_str()) != 0 && errno != ENOENT) {
      throw EnvironmentError(fmt::format("cannot remove the earlier {} report {}: {}",
                                         report.option, report.path, std::strerror(errno)));
    }
  }
}

}  // namespace workgate
