#pragma once
// Running a program under real callgrind for the explain tests: ASLR off and
// a fixed environment, so that a run counts the same every time.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_requirements.h"

namespace workgate::testing {

/// The first of valgrind and setarch that is missing, or "".
inline std::string MissingCallgrindTool() {
  for (const char* tool : {"valgrind", "setarch"}) {
    if (!HaveTool(tool)) return std::string(tool) + " is not installed";
  }
  return "";
}

inline std::string ReadAllOf(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs the shell command line `command` in `cwd` under callgrind with
/// `options`, its output files in `out` (created; callgrind.out.%p) and its
/// log in `out`.log. Returns the output files, sorted. A failed run is a
/// test failure, with the log.
inline std::vector<std::string> RunUnderCallgrind(const std::filesystem::path& cwd,
                                                  const std::string& command,
                                                  const std::filesystem::path& out,
                                                  const std::string& options = "") {
  std::filesystem::create_directories(out);
  std::string cmd = "cd " + cwd.string() +
                    " && env -i PATH=/usr/bin:/bin LC_ALL=C setarch -R valgrind"
                    " --tool=callgrind --trace-children=yes " +
                    options + " --callgrind-out-file=" + out.string() + "/callgrind.out.%p " +
                    command + " >/dev/null 2>" + out.string() + ".log";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << ReadAllOf(out.string() + ".log");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace workgate::testing
