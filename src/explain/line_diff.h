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
/// A row's LineDelta::numbering is the baseline's for a baseline_only
/// line and for a line only the baseline ran that no `map` matched to the
/// candidate's numbering (lines matched by number, or a file the candidate
/// does not name); the candidate's otherwise.
std::vector<LineDelta> DiffLines(const std::map<SourceLine, uint64_t>* baseline,
                                 const std::map<SourceLine, uint64_t>* candidate, int top_n,
                                 const BaselineLineMap* map = nullptr);

/// A listed line's source text, trimmed, in the numbering the line says
/// (LineDelta::numbering: the baseline's source for a baseline line); ""
/// when unknown. From the checkout (measure/source_lines.h).
using LineTextOf = std::function<std::string(const LineDelta& line)>;

/// Folds lines of one function whose deltas offset and whose source text
/// is the same (a `break;` or `vmbreak;` of a dispatch loop, where GCC
/// merges the code that follows each and charges it to one of them, a
/// different one in each build): every group of `*lines` with one file
/// name and one non-empty `text` that holds a line that gained and one
/// that lost becomes one line, the one of largest |delta|, with the sums of
/// their costs and the others in its `folded` (by line). Then keeps the
/// `top_n` lines of largest |delta| (ties by file, then line). Lines
/// without a text are never folded.
void FoldIdenticalLines(std::vector<LineDelta>* lines, int top_n);

}  // namespace workgate
