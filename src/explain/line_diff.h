#pragma once
// Where inside one function a delta went: its source lines' self costs on
// the two sides (Profile::lines), matched by file and line number. The
// first layer of explanations by line; the lines of a function whose
// source changed between the builds are matched by number, which the
// caller must say (or align them through the sources).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "model/model.h"

namespace workgate {

/// The key two builds' names of one source file share: its file name,
/// unless `files` (every file one side names in the function) holds another
/// path with that file name, when the whole path must match.
/// Two builds of one project are usually checked out at different paths
/// (/src/base/vm.c, /src/head/vm.c), so the directory cannot be part of
/// the match.
std::string SourceFileKey(const std::string& file, const std::vector<std::string>& files);

/// Where a baseline line is in the candidate's source (the candidate's file
/// as its profile names it, and the baseline's line number): its line there,
/// 0 when the candidate changed or removed it. From the two builds' sources
/// (measure/source_lines.h); without one, lines are matched by number.
using BaselineLineMap = std::function<uint64_t(const std::string& candidate_file, uint64_t line)>;

/// The `top_n` lines of one function whose self cost changed most, by
/// absolute delta (ties by file, then line), matched by SourceFileKey and
/// line number; lines whose cost did not change, and code without line
/// information (line 0), are left out. `baseline`
/// and `candidate` are the function's Profile::lines on each side, null
/// for a side that did not run it. `top_n` <= 0 gives none. A line's cost
/// above INT64_MAX (no real profile has one) is clamped to it. With `map`,
/// a baseline line of a file the candidate has too is matched to the line
/// `map` gives; one the candidate changed is a row of its own, in the
/// baseline's numbering (LineDelta::baseline_only).
std::vector<LineDelta> DiffLines(const std::map<SourceLine, uint64_t>* baseline,
                                 const std::map<SourceLine, uint64_t>* candidate, int top_n,
                                 const BaselineLineMap* map = nullptr);

}  // namespace workgate
