#pragma once
// What a failed run says about a file it could not find: a workload runs in
// an empty private directory (WorkDir), so a relative path its command or
// its program names is looked for there, not beside the suite or where
// workgate started.

#include <string>
#include <string_view>

#include "workload/workload.h"

namespace workgate {

/// Why a workload whose run failed may have missed a file, or "". First a
/// relative path ("input.txt", "bench/x.lua", "./data.csv") that the
/// program's `output` names on a line that says a file was not found ("No
/// such file or directory", "cannot open", "FileNotFoundError", ...) and that
/// does not exist from the directory the run ran in (`run_dir`); lines about
/// shared libraries are the loader's, and left out. Else, where the output
/// says "No such file or directory", the first argument of the command that
/// looks like a relative path (the value of "--in=data.txt" too) and does not
/// exist there. The hint says where such a file goes: beside the suite as
/// {suite_dir}/PATH (a suite: `suite_dir` is its folder), or as an absolute
/// path (an ad hoc command: `suite_dir` is ""). Only a path of at most 200
/// characters of letters, digits and ._+-@~/ is quoted: the output is the
/// program's, and nothing else of it is.
std::string RelativePathHint(const Workload& w, const std::string& suite_dir,
                             const std::string& run_dir, std::string_view output);

}  // namespace workgate
