#include "report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/model.h"
#include "report/explanation_text.h"
#include "report/format.h"
#include "report/markdown_text.h"
#include "report/report_output.h"
#include "report/simulated_text.h"
#include "report/summary.h"
#include "report/timed_text.h"
#include "util/text.h"

namespace workgate {
namespace {

constexpr Minus kMarkdownMinus = Minus::kUnicode;
constexpr char kDash[] = "\u2014";

const char* Icon(Verdict v) {
  switch (v) {
    case Verdict::kOk:
    case Verdict::kWorkRemoved:
    case Verdict::kAccepted:
      return "\u2705";  // ✅
    case Verdict::kWorkAdded:
      return "\u274c";  // ❌
    case Verdict::kInconclusive:
    case Verdict::kInvalid:
      return "\u26a0\ufe0f";  // ⚠️
  }
  return "\u26a0\ufe0f";
}

std::string Headline(const CompareReport& r) {
  std::string label =
      r.verdict == Verdict::kInvalid ? "invalid comparison" : VerdictLabel(r.verdict);
  return fmt::format("### workgate: {} {} \u2014 {}\n", Icon(r.verdict), label, HeadlineCounts(r));
}

// Every name, score, path and reason below comes from the suite, the
// program's output or the candidate's binary: each goes into a code span (in
// raw HTML, a <code> element), which nothing in it can leave.
std::string Cell(const std::string& text) { return MarkdownCode(text, SpanIn::kTableCell); }

std::string Table(const CompareReport& r) {
  std::string out =
      "| workload | baseline instr. | candidate instr. | \u0394 instructions | \u0394 | verdict "
      "|\n|---|---:|---:|---:|---:|---|\n";
  for (const WorkloadResult& w : r.workloads) {
    std::string name = Cell(w.name);
    if (w.metric == Metric::kEstimatedCycles) name += " (estimated cycles)";
    if (w.score_changed) {
      name += " (score " + Cell(*w.previous_score) + " \u2192 " + Cell(*w.expected_score) +
              ", changed on purpose)";
    } else if (w.expected_score) {
      name += " (score " + Cell(*w.expected_score) + " asserted)";
    }
    auto count = [&w](const SideResult& s) {
      return s.counts.empty() ? std::string(kDash) : FormatCount(ShownCount(w, s));
    };
    const bool figures = HasDelta(w);
    std::string delta = figures ? FormatSignedCount(w.delta, kMarkdownMinus) : kDash;
    std::string relative = figures ? RelativeCell(w, kMarkdownMinus) : kDash;
    if (w.verdict == Verdict::kWorkAdded) relative = "**" + relative + "**";
    std::string verdict = fmt::format("{} {}", Icon(w.verdict), VerdictLabel(w.verdict));
    if (w.verdict == Verdict::kInvalid || w.verdict == Verdict::kInconclusive) {
      verdict += ": " + Cell(w.reason);
    } else if (w.verdict == Verdict::kAccepted) {
      verdict += ": " + Cell(w.accepted->entry.reason);
    } else if (w.stability.unstable) {
      verdict += " (unstable)";
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", name, count(w.baseline),
                       count(w.candidate), delta, relative, verdict);
  }
  return out;
}

// What the runs did that did not make them invalid (a process left running
// and killed), one line each.
std::string Notes(const CompareReport& r) {
  std::string out;
  auto code = [](const std::string& text) { return MarkdownCode(text, SpanIn::kParagraph); };
  for (const WorkloadResult& w : r.workloads) {
    const std::string changed = ScoreChangeSentence(w, code);
    if (!changed.empty()) out += fmt::format("- {}: {}\n", code(w.name), changed);
    // Here, not in the folded timed table: a reader of the verdict sees it.
    const std::string timing = TimingVsCountSentence(w, kMarkdownMinus);
    if (!timing.empty()) {
      out += fmt::format("- \u26a0\ufe0f {}: {}\n", code(w.name), MarkdownText(timing));
    }
    // Beside the table too: the trade-off a count cannot see.
    const std::string metric = MetricSentence(w);
    if (!metric.empty()) out += fmt::format("- {}: {}\n", code(w.name), MarkdownText(metric));
    const std::string events = SimulatedEventsSentence(w, kMarkdownMinus);
    if (!events.empty()) out += fmt::format("- {}: {}\n", code(w.name), MarkdownText(events));
    const std::string hardware = HardwareEventsSentence(w, kMarkdownMinus);
    if (!hardware.empty()) out += fmt::format("- {}: {}\n", code(w.name), MarkdownText(hardware));
    for (const auto& [side, result] : {std::pair{"baseline", &w.baseline},
                                       std::pair{"candidate", &w.candidate}}) {
      for (const std::string& note : result->notes) {
        out += fmt::format("- {} ({}): {}\n", MarkdownCode(w.name, SpanIn::kParagraph), side,
                           MarkdownCode(note, SpanIn::kParagraph));
      }
    }
    const std::string unstable = StabilitySentence(w, kMarkdownMinus);
    if (!unstable.empty()) {
      // An inconclusive row's reason already says how the counts spread.
      out += fmt::format(
          "- {}: {}\n", MarkdownCode(w.name, SpanIn::kParagraph),
          MarkdownText(w.verdict == Verdict::kInconclusive ? ShiftNote(w, kMarkdownMinus)
                                                           : unstable));
    }
    const std::string unpinned = UnpinnedSentence(w);
    if (!unpinned.empty()) {
      out += fmt::format("- {}: {}\n", MarkdownCode(w.name, SpanIn::kParagraph),
                         MarkdownText(unpinned));
    }
    if (!w.stability.functions.empty()) {
      out += fmt::format("- {}: {}", MarkdownCode(w.name, SpanIn::kParagraph),
                         MarkdownText(UnstableFunctionsLead(w)));
      for (const FunctionDelta& f : w.stability.functions) {
        out += fmt::format(
            " {} {}{};", MarkdownCode(f.function, SpanIn::kParagraph),
            f.object.empty() ? "" : "in " + MarkdownCode(f.object, SpanIn::kParagraph) + " ",
            FormatSignedCount(f.delta(), kMarkdownMinus));
      }
      out.back() = '\n';
    }
    const std::string hint = RuntimeSeedHint(w);
    if (!hint.empty()) {
      out +=
          fmt::format("- {}: {}\n", MarkdownCode(w.name, SpanIn::kParagraph), MarkdownText(hint));
    }
    const std::string accepted = AcceptedNote(w, r.settings.suite);
    if (!accepted.empty()) {
      out += fmt::format("- {}: {}\n", MarkdownCode(w.name, SpanIn::kParagraph),
                         MarkdownCode(accepted, SpanIn::kParagraph));
    }
    if (w.thread_hint) {
      out += fmt::format("- {}: {}\n", MarkdownCode(w.name, SpanIn::kParagraph),
                         MarkdownText(ThreadHintSentence(*w.thread_hint)));
    }
  }
  return out;
}

// How a reviewer accepts each work-added workload: one command a line, in a
// fence longer than any run of backticks in them (ShellWord leaves only
// printable ASCII, so no line can close it otherwise).
std::string AcceptCommands(const CompareReport& r) {
  std::string commands;
  for (const WorkloadResult& w : r.workloads) {
    const std::string command = AcceptCommand(r, w);
    if (!command.empty()) commands += command + "\n";
  }
  if (commands.empty()) return "";
  size_t longest = 0, run = 0;
  for (char c : commands) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string where;
  if (!r.json_file.empty()) {
    const std::string file = r.report_link.empty()
                                 ? r.json_file
                                 : r.json_file.substr(r.json_file.rfind('/') + 1);
    where = " with " + MarkdownCode(file, SpanIn::kParagraph) + ", this run's JSON report";
    if (IsPlainHttpUrl(r.report_link)) {
      where += " ([kept with the reports of this run](" + r.report_link + "))";
    }
  }
  return fmt::format(
      "\n**If the work added is intended**, a reviewer accepts it{}, replacing the reason, and "
      "commits the suite's change to the pull request:\n\n{}sh\n{}{}\n\nThe gate then "
      "passes the workload while its delta stays within the accepted one plus the margin.\n",
      where, fence, commands, fence);
}

// The objects whose code without a symbol the table cannot break down: a
// paragraph each, every path and name in a code span.
std::string MarkdownMissingSymbols(const Explanation& e) {
  if (e.missing_symbols.empty()) return "";
  auto code = [](const std::string& text) { return MarkdownCode(text, SpanIn::kParagraph); };
  std::string out;
  for (const MissingSymbols& m : e.missing_symbols) {
    out += "\n" + MissingSymbolsSentence(m, e.total_delta, code(m.object), kMarkdownMinus) + ":\n";
    for (const StrippedFile& f : m.files) out += "\n" + StrippedFileSentence(f, code) + "\n";
  }
  return out + "\n" + MarkdownText(kSymbolsAdvice) + "\n";
}

// The explanation's simulated events per function and line, a table of
// their own under the rows'.
std::string MarkdownSimulatedRows(const Explanation& e) {
  const std::vector<SimulatedRowText> rows = SimulatedRows(e);
  if (rows.empty()) return "";
  std::string out = "\n| simulated events |";
  std::string rule = "|---|";
  for (const std::string& name : SimulatedColumnNames()) {
    out += " " + name + " |";
    rule += "---:|";
  }
  out += "\n" + rule + "\n";
  for (const SimulatedRowText& row : rows) {
    out += "| " + std::string(row.line ? "\u21b3 " : "") + Cell(row.place) + " |";
    for (int64_t d : row.deltas) out += " " + FormatSignedCount(d, kMarkdownMinus) + " |";
    out += "\n";
  }
  return out;
}

std::string MarkdownExplanation(const WorkloadResult& w) {
  const Explanation& e = *w.explanation;
  // The summary line is raw HTML, which GFM passes through unparsed.
  std::string out = "<details><summary>" +
                    ExplanationTitle(w, "<code>" + HtmlText(w.name) + "</code>") + "</summary>\n\n";
  if (!e.error.empty()) {
    return out + MarkdownCode(e.error, SpanIn::kParagraph) + "\n</details>\n";
  }
  auto share = [&e](int64_t d) {
    return e.total_delta == 0 ? std::string(kDash)
                              : FormatShare(static_cast<double>(d) / e.total_delta, kMarkdownMinus);
  };
  out += "| function | baseline | candidate | \u0394 | share of \u0394 |\n";
  out += "|---|---:|---:|---:|---:|\n";
  int64_t listed = 0;
  for (const FunctionDelta& row : e.rows) {
    listed += row.delta();
    const std::string clones = CloneSummary(row);
    out += fmt::format("| {}{}{} | {} | {} | {} | {} |\n", FunctionLabel(row, Cell),
                       row.object.empty() ? "" : " in " + Cell(row.object),
                       clones.empty() ? "" : " (clones: " + Cell(clones) + ")",
                       FormatCount(row.baseline, kMarkdownMinus),
                       FormatCount(row.candidate, kMarkdownMinus),
                       FormatSignedCount(row.delta(), kMarkdownMinus), share(row.delta()));
    // Part of the row above: not added to the listed rows again.
    for (const LineDelta& l : row.lines) {
      // The place links to the line at the candidate's commit where the
      // report knows it; the link is checked again, for a report read back
      // from JSON.
      std::string place = Cell(LinePlace(l));
      if (IsPlainHttpUrl(l.url)) place = "[" + place + "](" + l.url + ")";
      const std::string text = LineTextForTable(l);
      if (!text.empty()) place += " " + Cell(text);
      out += fmt::format("| \u21b3 {} | {} | {} | {} | {} |\n", place,
                         FormatCount(l.baseline, kMarkdownMinus),
                         FormatCount(l.candidate, kMarkdownMinus),
                         FormatSignedCount(l.delta(), kMarkdownMinus), share(l.delta()));
    }
    for (const CallerMove& m : row.moves) {
      out += fmt::format("| \u21b3 {}{}{}{} | {} | {} | {} | {} |\n", MoveLead(m), Cell(m.caller),
                         m.object.empty() ? "" : " in " + Cell(m.object), MoveTail(m),
                         FormatCount(m.baseline_inclusive, kMarkdownMinus),
                         FormatCount(m.candidate_inclusive, kMarkdownMinus),
                         FormatSignedCount(m.inclusive_delta(), kMarkdownMinus),
                         share(m.inclusive_delta()));
    }
  }
  out += fmt::format("| *listed rows* | | | {} | {} |\n", FormatSignedCount(listed, kMarkdownMinus),
                     share(listed));
  if (listed != e.total_delta) {
    out += fmt::format("| *whole program* | | | {} | {} |\n",
                       FormatSignedCount(e.total_delta, kMarkdownMinus), share(e.total_delta));
  }
  const std::string source = ProfileSourceSentence(e);
  if (!source.empty()) out += "\n" + MarkdownText(source) + "\n";
  const std::string legend = LinesLegend(e);
  if (!legend.empty()) out += "\n" + MarkdownText(legend) + "\n";
  out += MarkdownSimulatedRows(e);
  for (const std::string& cut : ProfileCutSentences(e)) out += "\n" + MarkdownText(cut) + "\n";
  return out + MarkdownMissingSymbols(e) + "</details>\n";
}

std::string BackendParagraph(const CompareReport& r) {
  std::string detail = MarkdownText(ValgrindOf(r));
  if (!r.event.empty()) {
    detail += (detail.empty() ? "event " : ", event ") + MarkdownCode(r.event, SpanIn::kParagraph);
  }
  // One line: the full reason is in the JSON report and `workgate probe`.
  const std::string why = BackendWhy(r);
  std::string reach;
  for (const std::string& item : r.candidate_reach) {
    reach += (reach.empty() ? " The candidate could reach " : "; ") + MarkdownText(item);
  }
  if (!reach.empty()) reach += ".";
  return fmt::format(
      "Counted with **{}**{}{}. Counts are user-space instructions of the whole process tree, "
      "both sides launched the same way (ASLR off, fixed environment, pinned clock where the "
      "workload asks for it). {}{}\n",
      r.backend.empty() ? "an unknown backend" : MarkdownText(r.backend),
      detail.empty() ? "" : " (" + detail + ")",
      (why == "as requested" ? ", " : ": ") + MarkdownText(why), RepeatSentence(r), reach);
}

std::string MarkdownTimed(const CompareReport& r) {
  const bool stats = HasTimedStats(r);
  std::string out =
      "<details><summary>Timed scores \u2014 context only, not part of the verdict</summary>\n\n";
  out += stats ? "| workload | baseline | candidate | paired ratio [interval] | timed |\n"
                 "|---|---:|---:|---|---|\n"
               : "| workload | baseline | candidate |\n|---|---:|---:|\n";
  std::string details;
  for (const WorkloadResult& w : r.workloads) {
    if (w.baseline.timed.empty() && w.candidate.timed.empty()) continue;
    out += fmt::format("| {} | {} | {} |", Cell(w.name), TimedCell(w.baseline),
                       TimedCell(w.candidate));
    out += stats ? fmt::format(" {} | {} |\n", StatsCell(w), TimedLabelCell(w)) : "\n";
    const std::vector<std::string> lines = TimedDetails(w, kMarkdownMinus);
    for (size_t i = 0; i < lines.size(); ++i) {
      details += i == 0 ? "- " + MarkdownCode(w.name, SpanIn::kParagraph) + " \u2014 " +
                              MarkdownText(lines[i]) + "\n"
                        : "  - " + MarkdownText(lines[i]) + "\n";
    }
  }
  out += details.empty() ? "" : "\n" + details;
  out += "\n" + TimedNote(r) + "\n";
  if (const std::string trust = TimedTrustSentence(r); !trust.empty()) {
    out += "\n**" + MarkdownText(trust) + "**\n";
  }
  return out + "</details>\n";
}

std::string Footer(const CompareReport& r) {
  std::vector<std::string> parts;
  if (!r.baseline_label.empty()) {
    parts.push_back("Baseline " + MarkdownCode(r.baseline_label, SpanIn::kParagraph));
  }
  if (!r.candidate_label.empty()) {
    parts.push_back("candidate " + MarkdownCode(r.candidate_label, SpanIn::kParagraph));
  }
  parts.push_back("workgate " + r.workgate_version);
  std::string line;
  for (const std::string& p : parts) line += (line.empty() ? "" : " \u00b7 ") + p;
  return line + "\n";
}

// The caller's notes, under the verdict: a workflow's words, read as text,
// which may quote a branch name a pull request's author chose, so nothing in
// them becomes a link or markup (MarkdownPlainText).
std::string CallerNotes(const CompareReport& r) {
  std::string out;
  for (const std::string& note : r.notes) {
    const std::string text = MarkdownPlainText(note);
    if (!text.empty()) out += "- " + text + "\n";
  }
  return out.empty() ? "" : out + "\n";
}

// An ad hoc workload's command, which no suite file records.
std::string AdHocCommand(const CompareReport& r) {
  if (r.settings.command.empty() || r.workloads.empty()) return "";
  return fmt::format("{} runs {} ({} is each side's build).\n\n",
                     MarkdownCode(r.workloads[0].name, SpanIn::kParagraph),
                     MarkdownCode(CommandLineText(r.settings.command), SpanIn::kParagraph),
                     MarkdownCode("{exe}", SpanIn::kParagraph));
}

// How each of a suite's workloads runs, folded: a line each, the name and
// the command (the suite's text, which the pull request can change) in code
// spans.
std::string WorkloadCommands(const CompareReport& r) {
  const std::vector<const WorkloadResult*> workloads = WorkloadsWithCommands(r);
  if (workloads.empty()) return "";
  auto code = [](const std::string& text) { return MarkdownCode(text, SpanIn::kParagraph); };
  std::string out = "<details><summary>How each workload runs</summary>\n\n";
  for (const WorkloadResult* w : workloads) {
    out += fmt::format("- {}: {}\n", code(w->name), code(CommandLineText(w->command)));
  }
  return out + "\n" + PlaceholdersText(workloads, code) + ".\n</details>\n";
}

// The flame graph page, where the CI keeps it (--flamegraph-link).
std::string FlameGraphLink(const CompareReport& r) {
  if (r.flame_graph_file.empty() || !IsPlainHttpUrl(r.flame_graph_link)) return "";
  return fmt::format(
      "\nDifferential flame graph of the explained workloads: {}, [with the reports of this "
      "run]({}).\n",
      MarkdownCode(r.flame_graph_file, SpanIn::kParagraph), r.flame_graph_link);
}

}  // namespace

std::string RenderMarkdown(const CompareReport& r) {
  std::string out = Headline(r) + "\n" + CallerNotes(r) + AdHocCommand(r) + Table(r);
  const std::string notes = Notes(r);
  if (!notes.empty()) out += "\n" + notes;
  out += AcceptCommands(r);
  for (const WorkloadResult& w : r.workloads) {
    if (w.explanation) out += "\n" + MarkdownExplanation(w);
  }
  out += FlameGraphLink(r);
  if (const std::string commands = WorkloadCommands(r); !commands.empty()) out += "\n" + commands;
  out += "\n" + BackendParagraph(r);
  const std::vector<std::string> store = StoreSentences(r);
  if (!store.empty()) {
    out += "\n";
    for (const std::string& sentence : store) out += MarkdownText(sentence) + "\n";
  }
  if (HasTimedSamples(r)) out += "\n" + MarkdownTimed(r);
  if (const std::string shard = ShardSentence(r); !shard.empty()) out += "\n" + shard + "\n";
  out += "\n" + BlindSpots(r) + "\n" + Footer(r);
  return out;
}

bool WriteMarkdownReport(const std::string& path, const CompareReport& report, std::string* err) {
  return WriteTextFile(path, RenderMarkdown(report), "the Markdown report", err);
}

}  // namespace workgate
