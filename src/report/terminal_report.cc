#include "report/terminal_report.h"

#include <fmt/format.h>

#include "model/model.h"
#include "report/explanation_text.h"
#include "report/format.h"
#include "report/simulated_text.h"
#include "report/summary.h"
#include "report/text_table.h"
#include "report/timed_text.h"
#include "util/text.h"

namespace workgate {
namespace {

constexpr Minus kTerminalMinus = Minus::kAscii;
using Align = TextTable::Align;

// ANSI SGR colours: red for work added, green for a pass, yellow for results
// that need a look.
std::string ColourOf(Verdict v) {
  switch (v) {
    case Verdict::kWorkAdded:
      return "1;31";
    case Verdict::kOk:
    case Verdict::kWorkRemoved:
    case Verdict::kAccepted:
      return "32";
    case Verdict::kInconclusive:
    case Verdict::kInvalid:
      return "1;33";
  }
  return "";
}

// Names, reasons and function names come from the suite, the program's
// output and the candidate's binary: none may reach the terminal (or a CI
// log) with an escape sequence or a control character in it.
std::string Line(const std::string& text) { return TerminalSafe(text, LineBreaks::kToSpace); }
std::string Block(const std::string& text) { return TerminalSafe(text, LineBreaks::kKeep); }

std::string MainTable(const CompareReport& r, bool colour) {
  TextTable table(
      {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
  table.AddRow({"workload", "baseline instr.", "candidate instr.", "\u0394 instructions",
                "\u0394 %", "verdict"});
  for (const WorkloadResult& w : r.workloads) {
    auto count = [&w](const SideResult& s) {
      return s.counts.empty() ? std::string("-") : FormatCount(ShownCount(w, s));
    };
    const bool figures = HasDelta(w);
    const std::string name =
        Line(w.name) + (w.metric == Metric::kEstimatedCycles ? " (estimated cycles)" : "");
    const std::string verdict =
        std::string(VerdictName(w.verdict)) + (w.stability.unstable ? " (unstable)" : "");
    table.AddRow({name, count(w.baseline), count(w.candidate),
                  figures ? FormatSignedCount(w.delta, kTerminalMinus) : "-",
                  figures ? RelativeCell(w, kTerminalMinus) : "-", verdict},
                 {"", "", "", "", "", ColourOf(w.verdict)});
  }
  return table.Render(0, colour);
}

std::string Reasons(const CompareReport& r) {
  std::string out;
  for (const WorkloadResult& w : r.workloads) {
    if (w.verdict == Verdict::kInvalid || w.verdict == Verdict::kInconclusive) {
      out += fmt::format("{}: {}: {}\n", Line(w.name), VerdictName(w.verdict), Block(w.reason));
    } else if (w.verdict == Verdict::kAccepted) {
      out += fmt::format("{}: {}\n", Line(w.name), Line(w.reason));
    }
    const std::string accepted = AcceptedNote(w, r.settings.suite);
    if (!accepted.empty()) out += fmt::format("{}: {}\n", Line(w.name), Line(accepted));
    const std::string changed = ScoreChangeSentence(w, Line);
    if (!changed.empty()) out += fmt::format("{}: {}\n", Line(w.name), changed);
    const std::string timing = TimingVsCountSentence(w, kTerminalMinus);
    if (!timing.empty()) out += fmt::format("{}: {}\n", Line(w.name), timing);
    const std::string metric = MetricSentence(w);
    if (!metric.empty()) out += fmt::format("{}: {}\n", Line(w.name), metric);
    const std::string events = SimulatedEventsSentence(w, kTerminalMinus);
    if (!events.empty()) out += fmt::format("{}: {}\n", Line(w.name), Line(events));
    const std::string hardware = HardwareEventsSentence(w, kTerminalMinus);
    if (!hardware.empty()) out += fmt::format("{}: {}\n", Line(w.name), Line(hardware));
    const std::string unstable = StabilitySentence(w, kTerminalMinus);
    if (!unstable.empty() && w.verdict != Verdict::kInconclusive) {
      out += fmt::format("{}: {}\n", Line(w.name), unstable);
    } else if (!unstable.empty()) {
      out += fmt::format("{}: {}\n", Line(w.name), ShiftNote(w, kTerminalMinus));
    }
    if (!w.stability.functions.empty()) {
      out += fmt::format("{}: {}\n", Line(w.name), UnstableFunctionsLead(w));
      for (const FunctionDelta& f : w.stability.functions) {
        out += fmt::format("  {}  {}\n", FormatSignedCount(f.delta(), kTerminalMinus),
                           Line(f.object.empty() ? f.function : f.function + " in " + f.object));
      }
    }
    const std::string hint = RuntimeSeedHint(w);
    if (!hint.empty()) out += fmt::format("{}: hint: {}\n", Line(w.name), Line(hint));
    if (w.thread_hint) {
      out += fmt::format("{}: hint: {}\n", Line(w.name), Line(ThreadHintSentence(*w.thread_hint)));
    }
    for (const auto& [side, result] : {std::pair{"baseline", &w.baseline},
                                       std::pair{"candidate", &w.candidate}}) {
      for (const std::string& note : result->notes) {
        out += fmt::format("{}: {}: {}\n", Line(w.name), side, Line(note));
      }
    }
    const std::string unpinned = UnpinnedSentence(w);
    if (!unpinned.empty()) out += fmt::format("{}: {}\n", Line(w.name), Line(unpinned));
  }
  return out;
}

// The objects whose code without a symbol the table cannot break down.
std::string MissingSymbolsBlock(const Explanation& e) {
  if (e.missing_symbols.empty()) return "";
  std::string out = "\n";
  for (const MissingSymbols& m : e.missing_symbols) {
    out += "  " + MissingSymbolsSentence(m, e.total_delta, Line(m.object), kTerminalMinus) + ":\n";
    for (const StrippedFile& f : m.files) out += "    " + StrippedFileSentence(f, Line) + "\n";
  }
  return out + "  " + kSymbolsAdvice + "\n";
}

// The explanation's simulated events per function and line, as a table of
// their own under the rows'.
std::string SimulatedRowsBlock(const Explanation& e) {
  const std::vector<SimulatedRowText> rows = SimulatedRows(e);
  if (rows.empty()) return "";
  TextTable table({Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight});
  std::vector<std::string> header = {"simulated events"};
  for (const std::string& name : SimulatedColumnNames()) header.push_back(name);
  table.AddRow(header);
  for (const SimulatedRowText& row : rows) {
    std::vector<std::string> cells = {(row.line ? "  \u21b3 " : "") + Line(row.place)};
    for (int64_t d : row.deltas) cells.push_back(FormatSignedCount(d, kTerminalMinus));
    table.AddRow(cells);
  }
  return "\n" + table.Render(2, false);
}

std::string ExplanationBlock(const WorkloadResult& w) {
  const Explanation& e = *w.explanation;
  std::string out = ExplanationTitle(w, Line(w.name)) + "\n";
  if (!e.error.empty()) return out + "  " + Block(e.error) + "\n";
  auto share = [&e](int64_t d) {
    return e.total_delta == 0 ? std::string("-")
                              : FormatShare(static_cast<double>(d) / e.total_delta, kTerminalMinus);
  };
  TextTable table({Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight});
  table.AddRow({"function", "baseline", "candidate", "\u0394", "share"});
  int64_t listed = 0;
  for (const FunctionDelta& row : e.rows) {
    listed += row.delta();
    std::string name =
        FunctionLabel(row, Line) + (row.object.empty() ? "" : " in " + Line(row.object));
    const std::string clones = CloneSummary(row);
    if (!clones.empty()) name += " (clones: " + Line(clones) + ")";
    table.AddRow({name, FormatCount(row.baseline, kTerminalMinus),
                  FormatCount(row.candidate, kTerminalMinus),
                  FormatSignedCount(row.delta(), kTerminalMinus), share(row.delta())});
    // Part of the row above: not added to the listed rows again.
    for (const LineDelta& l : row.lines) {
      const std::string text = LineTextForTable(l);
      table.AddRow({"  \u21b3 " + Line(LinePlace(l)) + (text.empty() ? "" : "  " + Line(text)),
                    FormatCount(l.baseline, kTerminalMinus),
                    FormatCount(l.candidate, kTerminalMinus),
                    FormatSignedCount(l.delta(), kTerminalMinus), share(l.delta())});
    }
    for (const CallerMove& m : row.moves) {
      const std::string caller = m.object.empty() ? m.caller : m.caller + " in " + m.object;
      table.AddRow({"  \u21b3 " + MoveLead(m) + Line(caller) + MoveTail(m),
                    FormatCount(m.baseline_inclusive, kTerminalMinus),
                    FormatCount(m.candidate_inclusive, kTerminalMinus),
                    FormatSignedCount(m.inclusive_delta(), kTerminalMinus),
                    share(m.inclusive_delta())});
    }
  }
  table.AddRow({"(listed rows)", "", "", FormatSignedCount(listed, kTerminalMinus), share(listed)});
  if (listed != e.total_delta) {
    table.AddRow({"(whole program)", "", "", FormatSignedCount(e.total_delta, kTerminalMinus),
                  share(e.total_delta)});
  }
  const std::string source = ProfileSourceSentence(e);
  out += table.Render(2, false) + (source.empty() ? "" : "  " + source + "\n");
  const std::string legend = LinesLegend(e);
  if (!legend.empty()) out += "  " + legend + "\n";
  out += SimulatedRowsBlock(e);
  for (const std::string& cut : ProfileCutSentences(e)) out += "  " + cut + "\n";
  return out + MissingSymbolsBlock(e);
}

std::string TimedBlock(const CompareReport& r) {
  const bool stats = HasTimedStats(r);
  TextTable table({Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft});
  table.AddRow({"workload", "baseline", "candidate", stats ? "paired ratio [interval]" : "",
                stats ? "timed" : ""});
  std::string details;
  for (const WorkloadResult& w : r.workloads) {
    if (w.baseline.timed.empty() && w.candidate.timed.empty()) continue;
    table.AddRow({Line(w.name), TimedCell(w.baseline), TimedCell(w.candidate),
                  stats ? StatsCell(w) : "", stats ? TimedLabelCell(w) : ""});
    const std::vector<std::string> lines = TimedDetails(w, kTerminalMinus);
    for (size_t i = 0; i < lines.size(); ++i) {
      details += i == 0 ? "  " + Line(w.name) + ": " + lines[i] + "\n" : "    " + lines[i] + "\n";
    }
  }
  std::string out = "Timed scores (context only, not part of the verdict):\n" +
                    table.Render(2, false) + details + "  " + TimedNote(r) + "\n";
  if (const std::string trust = TimedTrustSentence(r); !trust.empty()) out += "  " + trust + "\n";
  return out;
}

// How each of a suite's workloads runs: its command as the suite gives it,
// one workload a line.
std::string CommandsBlock(const CompareReport& r) {
  const std::vector<const WorkloadResult*> workloads = WorkloadsWithCommands(r);
  if (workloads.empty()) return "";
  TextTable table({Align::kLeft, Align::kLeft});
  for (const WorkloadResult* w : workloads) {
    table.AddRow({Line(w->name), Line(CommandLineText(w->command))});
  }
  return "How each workload runs (" + PlaceholdersText(workloads, Line) + "):\n" +
         table.Render(2, false);
}

std::string BackendLine(const CompareReport& r) {
  std::string detail = Line(ValgrindOf(r));
  if (!r.event.empty()) detail += (detail.empty() ? "event " : ", event ") + Line(r.event);
  // One line: the full reason is in the JSON report and `workgate probe`.
  const std::string why = BackendWhy(r);
  std::string out = fmt::format("Counted with {}{}{}{}. {}\n",
                                r.backend.empty() ? "an unknown backend" : Line(r.backend),
                                detail.empty() ? "" : " (" + detail + ")",
                                why == "as requested" ? ", " : ": ", why, RepeatSentence(r));
  // What the candidate could have done to this result, one item a line.
  if (!r.candidate_reach.empty()) out += "The candidate could reach:\n";
  for (const std::string& item : r.candidate_reach) out += "  - " + Line(item) + "\n";
  return out;
}

}  // namespace

std::string RenderTerminal(const CompareReport& r, bool colour) {
  std::string out;
  // The caller's notes lead ("baseline: stored by main@abc1234"), as in the comment.
  for (const std::string& note : r.notes) out += "note: " + Line(note) + "\n";
  if (!r.notes.empty()) out += "\n";
  // An ad hoc workload's command, which no suite file records.
  if (!r.settings.command.empty() && !r.workloads.empty()) {
    out += fmt::format("{} runs: {}  ({{exe}} is each side's build)\n\n", Line(r.workloads[0].name),
                       Line(CommandLineText(r.settings.command)));
  }
  out += MainTable(r, colour);
  std::string reasons = Reasons(r);
  if (!reasons.empty()) out += "\n" + reasons;
  std::string commands;
  for (const WorkloadResult& w : r.workloads) {
    const std::string command = AcceptCommand(r, w);
    if (!command.empty()) commands += "  " + command + "\n";
  }
  if (!commands.empty()) {
    out += "\nIf the work added is intended, accept it (replace the reason) and commit the "
           "suite's change:\n" + commands;
    if (!r.json_file.empty() && !r.report_link.empty()) {
      out += "  (" + Line(r.json_file.substr(r.json_file.rfind('/') + 1)) +
             ": this run's JSON report, kept with its reports at " + Line(r.report_link) + ")\n";
    }
  }
  for (const WorkloadResult& w : r.workloads) {
    if (w.explanation) out += "\n" + ExplanationBlock(w);
  }
  if (HasTimedSamples(r)) out += "\n" + TimedBlock(r);
  if (const std::string commands = CommandsBlock(r); !commands.empty()) out += "\n" + commands;
  out += "\n" + BackendLine(r);
  for (const std::string& sentence : StoreSentences(r)) out += Line(sentence) + "\n";
  out += BlindSpots(r) + "\n";
  if (const std::string shard = ShardSentence(r); !shard.empty()) out += shard + "\n";
  out += fmt::format(
      "\n{} ({})\n",
      Paint(fmt::format("workgate: {}", VerdictLabel(r.verdict)), ColourOf(r.verdict), colour),
      HeadlineCounts(r));
  return out;
}

std::string RenderExplanation(const WorkloadResult& w) {
  if (!w.explanation) return "";
  return ExplanationBlock(w);
}

}  // namespace workgate
