#pragma once
// Real git repositories for the tests of source lines: made and changed with
// the git command line, as a CI's checkout is.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "measure/source_lines.h"

namespace workgate::testing {

/// A commit with a fixed author, whatever the user's configuration says.
inline const std::string kGitCommit = "git -c user.name=t -c user.email=t@t commit -q";

/// Runs `command` with sh in `dir`, its output discarded; fails the test
/// when it fails.
inline void ShellIn(const std::string& dir, const std::string& command) {
  const std::string line = "cd '" + dir + "' && ( " + command + " ) >/dev/null 2>&1";
  ASSERT_EQ(std::system(line.c_str()), 0) << command;
}

/// What `command` prints, run with sh in `dir`, without its last line feed;
/// "" when it fails.
inline std::string ShellOutputIn(const std::string& dir, const std::string& command) {
  const std::string line = "cd '" + dir + "' && " + command + " 2>/dev/null";
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  if (pclose(pipe) != 0) return "";
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

/// Copies the loose object file of `forged` over the one of `id` in the
/// repository at `repo`, as a candidate that can write the object store
/// could: git then hands out `forged`'s bytes under the name `id`.
inline void CopyObjectOver(const std::string& repo, const std::string& forged,
                           const std::string& id) {
  namespace fs = std::filesystem;
  const std::string objects = repo + "/.git/objects/";
  const std::string target = objects + id.substr(0, 2) + "/" + id.substr(2);
  ASSERT_TRUE(fs::exists(target)) << target;
  fs::permissions(target, fs::perms::owner_write, fs::perm_options::add);
  fs::copy_file(objects + forged.substr(0, 2) + "/" + forged.substr(2), target,
                fs::copy_options::overwrite_existing);
}

/// Line `line` of `file` (a path in the checkout at `view.root`) as
/// AttachSourceLines fills it in.
inline LineDelta AttachedLine(const SourceView& view, const std::string& file, uint64_t line) {
  Explanation e;
  FunctionDelta row{"f", "prog", 1, 2};
  row.lines.push_back(LineDelta{view.root + "/" + file, line, 1, 2});
  e.rows.push_back(row);
  AttachSourceLines(view, &e);
  return e.rows[0].lines[0];
}

}  // namespace workgate::testing
