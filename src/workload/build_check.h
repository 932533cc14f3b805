#pragma once
// The build a comparison or a count is given, checked before anything runs:
// a path that cannot be a build of the program fails at once, naming the
// path the user gave and what to give instead, rather than later with the
// launcher's or Valgrind's error about workgate's private `exe` link.

#include <string>
#include <vector>

#include "workload/workload.h"

namespace workgate {

/// Whether `build` can be the build (`{exe}`) of every workload of
/// `workloads`. It must exist. Where a workload runs `{exe}` itself as its
/// program (its command's first argument is exactly "{exe}"), it must be a
/// regular file that its owner may execute and that is an ELF executable or
/// a script starting with "#!". Where every workload only names paths under
/// it (`{exe}/bin/prog`) or passes it to another program, a directory or any
/// file will do. False with the reason and the remedy in `*err`.
bool CheckBuild(const std::string& build, const std::vector<Workload>& workloads, std::string* err);

}  // namespace workgate
