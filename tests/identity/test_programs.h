#pragma once
// Programs and libraries the shared-library tests build with the system C
// compiler, and what ldd (the loader itself) says about them.

#include <stdio.h>
#include <stdlib.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "test_requirements.h"

namespace workgate::testing {

/// Compiles C `source` into `out` with `flags` (e.g. "-shared -fPIC").
inline bool CompileC(const std::string& source, const std::string& out, const std::string& flags) {
  const std::string src = out + ".c";
  std::ofstream(src) << source;
  return std::system(("cc -O1 -o '" + out + "' '" + src + "' " + flags).c_str()) == 0;
}

/// The standard output of the shell command `cmd`.
inline std::string Output(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

/// What ldd lists for `exe` run with only PATH and `env` (shell
/// assignments, e.g. "LD_LIBRARY_PATH=/x"): the path of each object it maps,
/// or the name of each it cannot find; not the vDSO, which has no file.
inline std::set<std::string> LddObjects(const std::string& exe, const std::string& env = "") {
  std::set<std::string> objects;
  std::istringstream lines(
      Output("env -i PATH=/usr/bin:/bin " + env + " ldd '" + exe + "' 2>/dev/null"));
  for (std::string line; std::getline(lines, line);) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    line = line.substr(b);
    size_t address = line.rfind(" (0x");
    if (address != std::string::npos) line.erase(address);
    size_t arrow = line.find(" => ");
    if (arrow != std::string::npos) {
      std::string target = line.substr(arrow + 4);
      if (target == "not found")
        objects.insert(line.substr(0, arrow));
      else if (!target.empty() && target[0] == '/')
        objects.insert(target);
    } else if (line[0] == '/') {
      objects.insert(line);
    }
  }
  return objects;
}

}  // namespace workgate::testing
