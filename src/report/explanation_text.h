#pragma once
// What the terminal and Markdown reports say in an explanation beyond its
// table's figures: a row's clones, the objects that lack symbols, where the
// profiles came from and what their bounds left out. The
// names in it come from the candidate's binary; each renderer passes them
// through its own escaping (the `shown` functions below).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/model.h"
#include "report/format.h"

namespace workgate {

/// How many bytes of clone names a row shows, and of any one of them.
inline constexpr size_t kShownCloneBytes = 60;
inline constexpr size_t kShownCloneNameBytes = 40;

/// A row's clones, compactly: what each name adds to the row's function
/// name (".constprop.0", "[clone .cold]"; a name that does not start with it
/// whole), the function's own name left out, in the row's order:
/// ".constprop.0, .part.0.cold". A name longer than kShownCloneNameBytes is
/// cut (at a character boundary) and ends in "…"; once kShownCloneBytes are
/// shown the rest are counted: ", +3 more". "" for a row without clones.
std::string CloneSummary(const FunctionDelta& row);

/// "OBJECT has no symbol table; its code without a symbol carries +1,000
/// (98.5% of the delta)", `shown_object` being the object as the renderer
/// shows it.
std::string MissingSymbolsSentence(const MissingSymbols& m, int64_t total_delta,
                                   const std::string& shown_object, Minus minus);

/// "PATH (candidate): GNU build ID 3f1a…, no debug file at DEBUG"; with
/// "debug file DEBUG present" when it exists, "no GNU build ID" without one.
/// `shown` escapes each text it is given: the path, the build ID and the
/// debug file's path.
std::string StrippedFileSentence(const StrippedFile& f,
                                 const std::function<std::string(const std::string&)>& shown);

/// A row's function as the tables show it, each name through `shown`:
/// "f", or for a renamed function "old renamed new".
std::string FunctionLabel(const FunctionDelta& row,
                          const std::function<std::string(const std::string&)>& shown);

/// Where a line of an explained function is, as the tables show it: the
/// file's name and the line, "vm.c:123" (the JSON keeps the whole path),
/// the lines folded into it ("lvm.c:1899 + 1854 (same text)", at most
/// kShownFoldedLines numbers, then "+N more"), and its marks:
/// "(baseline)" for a line in the baseline's numbering, "(changed)" for
/// one the source base's diff changed ("(baseline, changed)").
inline constexpr size_t kShownFoldedLines = 3;
std::string LinePlace(const LineDelta& l);

/// The words under a table whose rows list lines: whose numbering and text
/// a line shows, what "(changed)" and a "+" mean where a line has them,
/// and, where no line's diff is known, how to know which lines the pull
/// request changed. "" when no row lists a line. Only fixed words.
std::string LinesLegend(const Explanation& e);

/// A listed line's source text for a table, cut to kLineTextChars code
/// points: untrusted, each medium escapes it; empty when unknown.
inline constexpr size_t kLineTextChars = 60;
std::string LineTextForTable(const LineDelta& l);

/// The words around a move's caller (names are the medium's to escape):
/// "moved out of line from " or "moved inline into ", and after the caller
/// " (inclusive; 0 → 1,234 calls)".
std::string MoveLead(const CallerMove& m);
std::string MoveTail(const CallerMove& m);

/// Where the profiles came from: "Profiles: vgcount, from the runs that
/// counted." or "Profiles: callgrind, from a run of the baseline made for
/// this explanation (the candidate's from the run that counted it)." or, with
/// a stored baseline, "Profiles: vgcount, the baseline profile kept in the
/// stored baseline, the candidate profile from the run that counted it." "" when
/// no profiler was chosen (an explanation that failed early).
std::string ProfileSourceSentence(const Explanation& e);

/// What the profiles' bounds left out, one sentence per cut table: "The
/// candidate's profile named 1,440,000 call edges; the explanation keeps the
/// 100,000 costliest (a row whose function lost one lists no moves)." Only
/// figures and fixed words.
std::vector<std::string> ProfileCutSentences(const Explanation& e);

/// How to get names for such code.
extern const char kSymbolsAdvice[];

}  // namespace workgate
