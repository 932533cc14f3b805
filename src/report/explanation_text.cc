#include "report/explanation_text.h"

#include <fmt/format.h>

#include "report/format.h"
#include "util/text.h"

namespace workgate {

std::string CloneSummary(const FunctionDelta& row) {
  std::string out;
  size_t shown_bytes = 0;
  size_t more = 0;
  for (const std::string& name : row.clones) {
    if (name == row.function) continue;
    std::string part = name.rfind(row.function, 0) == 0 ? name.substr(row.function.size()) : name;
    // A demangled clone adds " [clone .cold]": the space is the separator's.
    if (!part.empty() && part[0] == ' ') part.erase(0, 1);
    part = ShortenBytes(part, kShownCloneNameBytes);
    if (!out.empty() && shown_bytes + part.size() > kShownCloneBytes) {
      ++more;
      continue;
    }
    shown_bytes += part.size();
    out += (out.empty() ? "" : ", ") + part;
  }
  if (more > 0) out += fmt::format(", +{} more", more);
  return out;
}

std::string MissingSymbolsSentence(const MissingSymbols& m, int64_t total_delta,
                                   const std::string& shown_object, Minus minus) {
  std::string share =
      total_delta == 0
          ? "while the whole program's count did not change"
          : FormatShare(static_cast<double>(m.delta) / static_cast<double>(total_delta), minus) +
                " of the delta";
  return fmt::format("{} has no symbol table; its code without a symbol carries {} ({})",
                     shown_object, FormatSignedCount(m.delta, minus), share);
}

std::string StrippedFileSentence(const StrippedFile& f,
                                 const std::function<std::string(const std::string&)>& shown) {
  std::string out =
      fmt::format("{} ({}): ", shown(f.path), f.side == "both" ? "both sides" : f.side);
  if (f.build_id.empty()) return out + "no GNU build ID, so no debug file can be found for it";
  out += "GNU build ID " + shown(f.build_id) + ", ";
  if (f.debug_file_exists) return out + "debug file " + shown(f.debug_file) + " present";
  return out + "no debug file at " + shown(f.debug_file);
}

// No apostrophes: Markdown text would carry them as entities.
const char kSymbolsAdvice[] =
    "For names, install the matching -dbgsym package from the debian-debug archive (it puts the "
    "debug file under /usr/lib/debug/.build-id/, where Valgrind looks), or build with -g and "
    "without stripping.";

std::string FunctionLabel(const FunctionDelta& row,
                          const std::function<std::string(const std::string&)>& shown) {
  if (row.renamed_from.empty()) return shown(row.function);
  return shown(row.renamed_from) + " renamed " + shown(row.function);
}

std::string LinePlace(const LineDelta& l) {
  const size_t slash = l.file.rfind('/');
  std::string out =
      fmt::format("{}:{}", slash == std::string::npos ? l.file : l.file.substr(slash + 1), l.line);
  for (size_t i = 0; i < l.folded.size() && i < kShownFoldedLines; ++i) {
    out += fmt::format(" + {}", l.folded[i].line);
  }
  if (l.folded.size() > kShownFoldedLines) {
    out += fmt::format(" +{} more", l.folded.size() - kShownFoldedLines);
  }
  if (!l.folded.empty()) out += " (same text)";
  const bool base = l.numbering == kBaselineNumbering;
  const bool changed = l.changed.value_or(false);
  if (base || changed) {
    out += fmt::format(" ({}{}{})", base ? "baseline" : "", base && changed ? ", " : "",
                       changed ? "changed" : "");
  }
  return out;
}

std::string LinesLegend(const Explanation& e) {
  bool lines = false, known = false, folded = false;
  for (const FunctionDelta& row : e.rows) {
    for (const LineDelta& l : row.lines) {
      lines = true;
      known = known || l.changed.has_value();
      folded = folded || !l.folded.empty();
    }
  }
  if (!lines) return "";
  std::string out =
      "Lines are numbered as in the candidate, with its text; a line marked (baseline) as in the "
      "baseline, with the text of the baseline.";
  if (folded) {
    out +=
        " A + joins lines of one text whose costs offset, summed: code the compiler shares "
        "between them and charges to one or the other.";
  }
  out += known ? " (changed): the diff from the source base changed the line."
               : " Which lines the change touched is marked with --source-base.";
  return out;
}

std::string LineTextForTable(const LineDelta& l) { return CutText(l.text, kLineTextChars); }

std::string MoveLead(const CallerMove& m) {
  return m.out_of_line() ? "moved out of line from " : "moved inline into ";
}

std::string MoveTail(const CallerMove& m) {
  return fmt::format(" (inclusive; {} \u2192 {} calls)", FormatCount(m.baseline_calls),
                     FormatCount(m.candidate_calls));
}

std::string ProfileSourceSentence(const Explanation& e) {
  if (e.profiler.empty()) return "";
  const std::string lead = "Profiles: " + e.profiler + ", ";
  if (e.stored_baseline) {
    return fmt::format(
        "{}the baseline profile kept in the stored baseline, the candidate profile from {}.", lead,
        e.rerun.empty() ? "the run that counted it" : "a run made for this explanation");
  }
  if (e.rerun.empty()) return lead + "from the runs that counted.";
  if (e.rerun.size() == 2) return lead + "from a run of each side made for this explanation.";
  const std::string& rerun = e.rerun[0];
  const char* other = rerun == "baseline" ? "candidate" : "baseline";
  return fmt::format("{}from a run of the {} made for this explanation (the {}'s from the run "
                     "that counted it).",
                     lead, rerun, other);
}

std::vector<std::string> ProfileCutSentences(const Explanation& e) {
  std::vector<std::string> out;
  for (const ProfileCut& c : e.profile_cuts) {
    const bool calls = c.table == "call_edges";
    const std::string named =
        fmt::format("The {}'s profile named {}{} {}; the explanation keeps ", c.side,
                    c.more_than_named ? "more than " : "", FormatCount(c.named),
                    calls ? "call edges" : "source lines");
    if (c.more_than_named) {
      out.push_back(named + (calls ? "none of them (no row lists moves in or out of line)."
                                   : "none of them (no row lists its lines)."));
    } else {
      out.push_back(named + fmt::format("the {} costliest (a row whose function lost one lists no "
                                        "{}).",
                                        FormatCount(c.kept), calls ? "moves" : "lines"));
    }
  }
  return out;
}

}  // namespace workgate
