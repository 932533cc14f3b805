#include "report/report_paths.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

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

namespace {

// One file as CheckNoCollision compares it.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;  // absolute, normal, existing parts' links resolved

  explicit FileIdentity(const std::string& name) {
    struct stat st;
    if (stat(name.c_str(), &st) == 0) {
      exists = true;
      device = st.st_dev;
      inode = st.st_ino;
    }
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(name, ec);
    if (ec) p = std::filesystem::absolute(name, ec).lexically_normal();
    path = p.string();
  }

  bool operator==(const FileIdentity& other) const {
    if (exists && other.exists) return device == other.device && inode == other.inode;
    return path == other.path;
  }
};

struct Named {
  std::string what;  // "--json report.json"
  FileIdentity file;
};

}  // namespace

void CheckNoCollision(const std::vector<ReportPath>& reports,
                      const std::vector<InputPath>& inputs) {
  std::vector<Named> inputs_named, outputs_named;
  for (const InputPath& input : inputs) {
    if (input.path.empty() || IsStandardOutput(input.path)) continue;
    inputs_named.push_back(
        {fmt::format("{} {}", input.option, input.path), FileIdentity(input.path)});
  }
  for (const ReportPath& report : reports) {
    if (report.path.empty() || IsStandardOutput(report.path)) continue;
    Named output{fmt::format("{} {}", report.option, report.path), FileIdentity(report.path)};
    for (const Named& input : inputs_named) {
      if (output.file == input.file) {
        throw Error(kExitUsage,
                    fmt::format("the report {} would be written over {}, which this command "
                                "reads: they are the same file; choose another report path",
                                output.what, input.what));
      }
    }
    for (const Named& other : outputs_named) {
      if (output.file == other.file) {
        throw Error(kExitUsage,
                    fmt::format("the reports {} and {} are the same file; give each its own path",
                                other.what, output.what));
      }
    }
    outputs_named.push_back(std::move(output));
  }
}

void CheckReportPaths(const std::vector<ReportPath>& reports,
                      const std::vector<InputPath>& inputs) {
  CheckNoCollision(reports, inputs);
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
