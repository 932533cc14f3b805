#pragma once
// Where a work delta went: the per-function self-cost difference between
// two callgrind profiles (see callgrind_profile.h).

#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "explain/line_diff.h"
#include "explain/symbol_hints.h"
#include "model/model.h"

namespace workgate {

/// The row that stands for an object's code without a symbol (PLT stubs and
/// the like), which callgrind names by address.
inline constexpr const char* kUnnamedCode = "(code without a symbol)";

/// The row that stands for code in no object at all (callgrind's and
/// vgcount's object "???"): code in an anonymous executable mapping, which a
/// JIT compiler (LuaJIT's traces, a JavaScript engine's, a regular
/// expression library's) writes at run time. No symbol table can name it.
inline constexpr const char* kGeneratedCode =
    "(code generated at run time: JIT or anonymous mapping)";
inline constexpr const char* kNoObject = "???";

/// The row a function is shown under: the function it was cloned from
/// (SplitCloneName: "f.constprop.0" and "f.cold" are "f"), except code
/// without a symbol, which callgrind names by its address
/// ("0x0000000000001370") and which goes to its object's kUnnamedCode row
/// (kGeneratedCode for code in no object).
/// Both kinds of name move between builds: a PLT stub at 0x1370 in one can be
/// at 0x2370 in the other, and whether GCC clones or splits a function
/// depends on the optimisation flags and the code around it.
FunctionId ShownFunction(const FunctionId& id);

/// How many of an explanation's first rows list their lines, and how many
/// lines each lists (FunctionDelta::lines).
inline constexpr size_t kRowsWithLines = 3;
inline constexpr int kLinesPerRow = 3;
/// How many of a row's lines are looked at for identical texts whose costs
/// offset (FoldIdenticalLines) before kLinesPerRow are kept.
inline constexpr int kLinesLookedAt = 24;
/// How many callers each of those rows names that it moved out of line
/// from, or into (FunctionDelta::moves; explain/inline_moves.h).
inline constexpr size_t kMovesPerRow = 3;

/// The `top_n` functions whose self cost changed most, by absolute delta,
/// matched across the two profiles by (name, object basename) as
/// ShownFunction gives them, a function's clones summed into its row (whose
/// `clones` lists their names); a function present on one side only counts 0
/// on the other. Functions whose cost did not change are left out. Ties are
/// ordered by name, then object, so the table is the same on every run.
/// `total_delta` is candidate.total - baseline.total. `top_n` <= 0 gives no
/// rows. The first kRowsWithLines rows (those of at least 1% of the
/// whole delta) list the kLinesPerRow source lines
/// whose cost changed most (DiffLines over the row's clones), where the
/// profiles have line information, and the callers it moved out of line
/// from or into (FindInlineMoves), where they have call edges: a row whose
/// function (or a clone of it) lost a line to the profiles' bounds on
/// either side (Profile::lines_cut) lists no lines, and FindInlineMoves
/// lists no move it cannot see whole. `profile_cuts` says what the bounds
/// left out of each side. Sets `error` when a count does not fit in int64_t.
/// With `map`, the baseline's lines are matched to the candidate's through
/// it (DiffLines). With `texts`, kLinesLookedAt lines of each such row are
/// given their text and those of one text whose costs offset are folded
/// (FoldIdenticalLines) before kLinesPerRow are kept.
/// A function the candidate renamed (FindRenames) is one row, under the
/// candidate's name, with the baseline's in `renamed_from`; its calls are
/// the same function's on both sides, so a rename is never a move.
Explanation DiffProfiles(const Profile& baseline, const Profile& candidate, int top_n,
                         const BaselineLineMap* map = nullptr, const LineTextOf* texts = nullptr);

/// DiffProfiles, and the objects whose code without a symbol needs symbols
/// to be explained (FindMissingSymbols, with `debug_root`).
Explanation ExplainProfiles(const Profile& baseline, const Profile& candidate, int top_n,
                            const std::string& debug_root = kDebugRoot,
                            const BaselineLineMap* map = nullptr,
                            const LineTextOf* texts = nullptr);

/// The name a side's own program is shown by, so that two builds at
/// different files (wgi-baseline, wgi-candidate) still match.
inline constexpr const char* kOwnProgram = "{exe}";

/// How a side's own program appears in its profile: the object (file name)
/// its code is under, the file that ran as the profile names it, and the
/// build a person fixes. An empty `object` renames nothing.
struct OwnProgram {
  std::string object;
  std::string ran;
  std::string build;
};

/// The OwnProgram of the build `exe` whose runs executed `ran` (its copy,
/// measure/build_copies.h; "" when they executed `exe` itself), links
/// resolved now: both files must exist.
OwnProgram OwnProgramOf(const std::string& exe, const std::string& ran = "");

/// Renames `own`'s object in `*profile` to kOwnProgram, in the costs and in
/// the paths kept per object, where the path of the file that ran becomes
/// the build's: the file whose symbols a person fixes. Every profile a
/// report shows rows of goes through it, so that the build is "{exe}" in
/// each, not the name of its copy ("exe") or its file.
void RenameOwnProgram(const OwnProgram& own, Profile* profile);

/// Loads both sides' callgrind output files (LoadProfiles, within the
/// default ProfileBounds: the candidate's profile is the candidate's to
/// write) and explains them (ExplainProfiles). On each side the object of its OwnProgram is
/// renamed kOwnProgram, so that two builds at different files still match,
/// and the path of the file that ran is given back as the build's.
/// A file that fails to load gives an Explanation whose `error` says which
/// side and why. With `flame_graph`, the explanation carries the two
/// profiles' flame graph too (explain/flame_graph.h).
Explanation ExplainCallgrindOutputs(const std::vector<std::string>& baseline_files,
                                    const std::vector<std::string>& candidate_files, int top_n,
                                    const OwnProgram& baseline_own = {},
                                    const OwnProgram& candidate_own = {},
                                    const BaselineLineMap* map = nullptr, bool flame_graph = false,
                                    const LineTextOf* texts = nullptr);

}  // namespace workgate
