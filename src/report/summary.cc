#include "report/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "model/backend.h"
#include "model/model.h"
#include "report/timed_text.h"
#include "util/text.h"

namespace workgate {

std::string BlindSpots(const CompareReport& report) {
  const bool simulated =
      std::any_of(report.workloads.begin(), report.workloads.end(),
                  [](const WorkloadResult& w) { return w.events && w.events->shown; });
  if (!simulated) {
    return "Instruction counts measure work, not speed: cache misses and branch mispredictions "
           "are not seen.";
  }
  return "Instruction counts measure work, not speed: the cache misses and mispredicted branches "
         "beside them are simulated on a fixed model, an estimate of what the count does not see.";
}

namespace {

// Where a stored count came from: "at REF on DATE", or without a ref
// "on DATE (as LABEL)".
std::string Provenance(const FromStore& from) {
  if (!from.ref.empty()) return "at " + from.ref + " on " + ReadableUtc(from.counted_at);
  std::string text = "on " + ReadableUtc(from.counted_at);
  if (!from.label.empty()) text += " (as " + from.label + ")";
  return text;
}

}  // namespace

std::string FromStoreText(const FromStore& from) {
  return "from the store, counted " + Provenance(from);
}

std::vector<std::string> StoreSentences(const CompareReport& report) {
  std::vector<std::string> out;
  for (const bool baseline : {true, false}) {
    // Provenance -> workloads, in the order first met.
    std::vector<std::pair<std::string, size_t>> groups;
    size_t hits = 0, sides = 0;
    for (const WorkloadResult& w : report.workloads) {
      const SideResult& side = baseline ? w.baseline : w.candidate;
      if (!side.counts.empty() || side.from_store) ++sides;
      if (!side.from_store) continue;
      ++hits;
      const std::string from = Provenance(*side.from_store);
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&from](const auto& g) { return g.first == from; });
      if (it == groups.end()) {
        groups.emplace_back(from, 1);
      } else {
        ++it->second;
      }
    }
    if (hits == 0) continue;
    std::string text = fmt::format("{} from the store for {} of {} workload{}, counted ",
                                   baseline ? "Baseline" : "Candidate", hits, sides,
                                   sides == 1 ? "" : "s");
    for (size_t i = 0; i < groups.size(); ++i) {
      text += (i == 0 ? "" : "; ") + groups[i].first;
      if (groups.size() > 1) text += fmt::format(" ({})", groups[i].second);
    }
    out.push_back(text + ".");
  }
  if (!report.recorded_as.empty()) {
    out.push_back("The candidate's results are recorded in the store's history as " +
                  report.recorded_as + ".");
  }
  for (const std::string& note : report.store_notes) out.push_back("Store: " + note);
  return out;
}

std::string VerdictLabel(Verdict v) {
  if (v == Verdict::kAccepted) return "work added, accepted";
  // The verdict's JSON name, written as words: "work-added" reads "work added".
  std::string label = VerdictName(v);
  std::replace(label.begin(), label.end(), '-', ' ');
  return label;
}

std::string HeadlineCounts(const CompareReport& report) {
  const auto& ws = report.workloads;
  if (ws.empty()) return "no workloads";
  auto count = [&ws](Verdict v) {
    return std::count_if(ws.begin(), ws.end(),
                         [v](const WorkloadResult& w) { return w.verdict == v; });
  };
  const bool one_margin = std::all_of(ws.begin(), ws.end(), [&report](const WorkloadResult& w) {
    return w.max_work_added == report.max_work_added;
  });
  std::string text = fmt::format(
      "{} of {} workload{} over {}", count(Verdict::kWorkAdded), ws.size(),
      ws.size() == 1 ? "" : "s",
      one_margin ? "the " + FormatMargin(report.max_work_added) + " margin" : "their margins");
  if (auto n = count(Verdict::kAccepted)) text += fmt::format(", {} accepted", n);
  if (auto n = count(Verdict::kInvalid)) text += fmt::format(", {} invalid", n);
  if (auto n = count(Verdict::kInconclusive)) text += fmt::format(", {} inconclusive", n);
  const auto changed =
      std::count_if(ws.begin(), ws.end(), [](const WorkloadResult& w) { return w.score_changed; });
  if (changed > 0) text += fmt::format(", {} with a score changed on purpose", changed);
  // Context, not a verdict, but too large to leave to the folded timed table.
  if (const int n = TimingDisagreements(report)) {
    text += fmt::format(", timing and count disagree on {}", n);
  }
  return text;
}

std::string ScoreChangeSentence(const WorkloadResult& w,
                                const std::function<std::string(const std::string&)>& quote) {
  if (!w.score_changed || !w.baseline.score || !w.candidate.score) return "";
  return fmt::format(
      "score changed on purpose: the baseline printed {} (the suite's score.previous), the "
      "candidate {} (its score.expect); the two sides did different work by design, so the "
      "delta includes that change",
      quote(*w.baseline.score), quote(*w.candidate.score));
}

std::string RelativeCell(const WorkloadResult& w, Minus minus) {
  if (!HasDelta(w)) return "";
  std::string cell = FormatPercent(w.relative, minus);
  std::string low = FormatPercent(w.relative_low, minus);
  std::string high = FormatPercent(w.relative_high, minus);
  // A spread too small to show at this precision would only repeat the point.
  if (low != high) cell += fmt::format(" ({} to {})", low, high);
  return cell;
}

std::string ValgrindOf(const CompareReport& report) {
  for (const WorkloadResult& w : report.workloads) {
    // The candidate first: against a stored baseline, it is what this run
    // counted with (a difference makes the workload invalid and is named there).
    for (const SideResult* s : {&w.candidate, &w.baseline}) {
      std::string version = s->fingerprint.valgrind_version;
      // `valgrind --version` prints "valgrind-3.19.0"; show "Valgrind 3.19.0".
      if (version.rfind("valgrind-", 0) == 0) version.erase(0, 9);
      if (version.empty()) continue;
      const std::string& path = s->fingerprint.valgrind_path;
      return "Valgrind " + version + (path.empty() ? "" : " at " + path);
    }
  }
  return "";
}

namespace {

// "2 workloads were counted again to check that they repeat: 1 did, 1 is
// unstable." or "".
std::string StabilityTally(const CompareReport& report) {
  int checked = 0, unstable = 0;
  for (const WorkloadResult& w : report.workloads) {
    checked += w.stability.checked ? 1 : 0;
    unstable += w.stability.unstable ? 1 : 0;
  }
  if (checked == 0) return "";
  std::string out = fmt::format(" {} workload{} counted more than once to check that {} repeat{}",
                                checked, checked == 1 ? " was" : "s were",
                                checked == 1 ? "it" : "they", checked == 1 ? "s" : "");
  if (unstable == 0) return out + (checked == 1 ? ": it did." : ": all did.");
  if (unstable == checked)
    return out + (checked == 1 ? ": it is unstable." : ": all are unstable.");
  return out + fmt::format(": {} did, {} {} unstable.", checked - unstable, unstable,
                           unstable == 1 ? "is" : "are");
}

}  // namespace

std::string BackendWhy(const CompareReport& report) {
  // ChooseBackend's reason for an explicit --backend starts with its word.
  if (report.backend_reason.rfind("requested", 0) == 0) return "as requested";
  if (IsBackend(report.backend, Backend::kPerf)) return "this machine's PMU";
  return "no usable hardware counter here; workgate probe says why";
}

std::string CommandLineText(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& arg : argv) {
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-+./:=,@%{}") == std::string::npos;
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? arg : quoted + "'");
  }
  return out;
}

std::vector<const WorkloadResult*> WorkloadsWithCommands(const CompareReport& report) {
  std::vector<const WorkloadResult*> out;
  if (!report.settings.command.empty()) return out;
  for (const WorkloadResult& w : report.workloads) {
    if (!w.command.empty()) out.push_back(&w);
  }
  return out;
}

std::string PlaceholdersText(const std::vector<const WorkloadResult*>& workloads,
                             const std::function<std::string(const std::string&)>& quote) {
  const bool suite_dir = std::any_of(workloads.begin(), workloads.end(), [](const auto* w) {
    return std::any_of(w->command.begin(), w->command.end(), [](const std::string& arg) {
      return arg.find("{suite_dir}") != std::string::npos;
    });
  });
  std::string out = quote("{exe}") + " is each side's build";
  if (suite_dir) out += ", " + quote("{suite_dir}") + " the suite file's folder";
  return out;
}

std::string AcceptCommand(const CompareReport& report, const WorkloadResult& w) {
  if (w.verdict != Verdict::kWorkAdded || report.settings.suite.empty()) return "";
  std::vector<std::string> args = {"workgate",  "accept",   "--suite",
                                   report.settings.suite, "--workload", w.name,
                                   "--reason", kAcceptReasonPlaceholder};
  if (!report.json_file.empty()) {
    std::string file = report.json_file;
    if (!report.report_link.empty()) file = file.substr(file.rfind('/') + 1);
    args.insert(args.end(), {"--report", file});
  } else if (!report.stored_baseline && !report.baseline_label.empty() &&
             !report.candidate_label.empty()) {
    args.insert(args.end(),
                {"--baseline", report.baseline_label, "--candidate", report.candidate_label});
  } else {
    return "";
  }
  std::string line;
  for (const std::string& arg : args) line += (line.empty() ? "" : " ") + ShellWord(arg);
  return line;
}

std::string AcceptedNote(const WorkloadResult& w, const std::string& suite) {
  if (!w.accepted) return "";
  const std::string table =
      "the workload's [workload.accepted] table" + (suite.empty() ? "" : " in " + suite);
  switch (w.accepted->status) {
    case AcceptedStatus::kExceeded:
    case AcceptedStatus::kInconclusive:
      return "more work than was accepted: " + w.reason;
    case AcceptedStatus::kStale:
      return "its accepted entry is stale and changes no verdict: " + w.accepted->problem +
             ". Once the pull request that accepted it is merged, its work is in the baseline: "
             "delete " + table;
    case AcceptedStatus::kUnneeded:
      return "its accepted entry is not needed: the delta is within the margin without it; "
             "delete " + table;
    case AcceptedStatus::kApplied:
    case AcceptedStatus::kUnchecked:
      return "";
  }
  return "";
}

std::string RepeatSentence(const CompareReport& report) {
  const std::string tally = StabilityTally(report);
  // How many counts each side had: --repeat's, and more where the stability
  // check counted again; fewer where a side failed part of the way.
  size_t fewest = 0, most = 0;
  double widest = 0;  // the largest (max - min) / min over all sides
  for (const WorkloadResult& w : report.workloads) {
    for (const SideResult* s : {&w.baseline, &w.candidate}) {
      if (s->counts.empty()) continue;
      fewest = fewest == 0 ? s->counts.size() : std::min(fewest, s->counts.size());
      most = std::max(most, s->counts.size());
      if (s->min() == 0) continue;
      widest = std::max(widest, static_cast<double>(s->max() - s->min()) / s->min());
    }
  }
  if (most == 0) return "No side gave a count." + tally;
  if (most == 1) return "One count per side." + tally;
  const std::string spread =
      widest == 0 ? "" : fmt::format("the widest spread was {:.1f} ppm of a count", widest * 1e6);
  if (fewest == most) {
    return fmt::format("{} counts per side{}.", most,
                       spread.empty() ? " agree exactly" : "; " + spread) +
           tally;
  }
  return fmt::format("{} to {} counts per side; {}.", fewest, most,
                     spread.empty() ? "where a side had several, they agree exactly" : spread) +
         tally;
}

uint64_t ShownCount(const WorkloadResult& w, const SideResult& side) {
  if (w.stability.unstable) return static_cast<uint64_t>(std::llround(MedianCount(side.counts)));
  return side.min();
}

std::string ShiftNote(const WorkloadResult& w, Minus minus) {
  if (!w.stability.unstable) return "";
  std::string out =
      "\u0394 is the shift's estimate, the median of every candidate-baseline difference, not "
      "the difference of the two medians";
  // The two can disagree in sign where the counts spread more than they
  // moved: say so, with both figures, rather than leave the row to look wrong.
  if (!w.baseline.counts.empty() && !w.candidate.counts.empty()) {
    const int64_t medians = static_cast<int64_t>(ShownCount(w, w.candidate)) -
                            static_cast<int64_t>(ShownCount(w, w.baseline));
    if ((medians > 0 && w.delta < 0) || (medians < 0 && w.delta > 0)) {
      out += fmt::format(
          " (here the medians differ by {} while the shift is {}: the counts spread more than "
          "they moved)",
          FormatSignedCount(medians, minus), FormatSignedCount(w.delta, minus));
    }
  }
  return out;
}

std::string StabilitySentence(const WorkloadResult& w, Minus minus) {
  const Stability& st = w.stability;
  if (!st.unstable) return "";
  return fmt::format(
      "unstable: counts of one build differ by up to {} instructions ({:.1f} ppm) over {} "
      "baseline and {} candidate counts; the counts shown are medians, and the verdict comes "
      "from the {:.1f}% interval of the shift between them, not from single counts; {}",
      FormatCount(st.spread), st.spread_ppm, w.baseline.counts.size(), w.candidate.counts.size(),
      100 * st.confidence, ShiftNote(w, minus));
}

std::string UnpinnedSentence(const WorkloadResult& w) {
  std::vector<std::string> parts;
  for (const auto& [name, side] :
       {std::pair{"baseline", &w.baseline}, std::pair{"candidate", &w.candidate}}) {
    if (!side->unpinned.empty()) {
      parts.push_back(fmt::format("{}: {}", name, fmt::join(side->unpinned, "; ")));
    }
  }
  if (parts.empty()) return "";
  const bool confirmed = IsWorkVerdict(w.verdict) && w.stability.checked && !w.stability.unstable;
  return fmt::format("not deterministic by construction: its runs met what nothing pins ({}){}",
                     fmt::join(parts, " | "),
                     confirmed ? "; the work verdict was confirmed by counting again" : "");
}

std::string RuntimeSeedHint(const WorkloadResult& w) {
  // Function-name prefixes of runtimes' hash tables, and what pins them.
  struct Runtime {
    const char* prefix;
    const char* what;
    const char* variables;
  };
  static const Runtime kRuntimes[] = {
      {"Perl_hv_", "Perl's hash table", "PERL_HASH_SEED=0 and PERL_PERTURB_KEYS=0"},
      {"S_hsplit", "Perl's hash table", "PERL_HASH_SEED=0 and PERL_PERTURB_KEYS=0"},
      {"Perl_hfree", "Perl's hash table", "PERL_HASH_SEED=0 and PERL_PERTURB_KEYS=0"},
      {"siphash", "Python's string hash", "PYTHONHASHSEED=0"},
      {"_Py_HashBytes", "Python's string hash", "PYTHONHASHSEED=0"},
      {"set_add_entry", "Python's set", "PYTHONHASHSEED=0"},
      {"insertdict", "Python's dict", "PYTHONHASHSEED=0"},
  };
  for (const FunctionDelta& f : w.stability.functions) {
    for (const Runtime& r : kRuntimes) {
      if (f.function.rfind(r.prefix, 0) != 0) continue;
      // The prefix, not the function's own name: the report adds no text of
      // the program's here.
      return fmt::format(
          "{}* is {}, whose work follows a hash seed: {} pin it (workgate sets them in the fixed "
          "environment; --as-is, or a workload's env or --env that sets them otherwise, unpins "
          "it)",
          r.prefix, r.what, r.variables);
    }
  }
  return "";
}

std::string ThreadHintSentence(const ThreadHint& hint) {
  const char* advice = "";
  switch (hint.runtime) {
    case ThreadRuntime::kZstd:
      advice =
          "zstd compresses on one thread with --single-thread (-T1 still runs a worker thread "
          "beside the main one), and reads and writes without threads of its own with "
          "--no-asyncio where it has that option: add them to the workload's command";
      break;
    case ThreadRuntime::kGo:
      advice =
          "a Go program runs its goroutines on one thread at a time with GOMAXPROCS=1: set it in "
          "the workload's env (env = { GOMAXPROCS = \"1\" } in the suite, or --env "
          "GOMAXPROCS=1); the runtime's own threads (sysmon) remain, so some spread may stay";
      break;
    case ThreadRuntime::kOpenMp:
      advice =
          "the program uses OpenMP, whose parallel regions run on one thread with "
          "OMP_NUM_THREADS=1: set it in the workload's env (env = { OMP_NUM_THREADS = \"1\" } in "
          "the suite, or --env OMP_NUM_THREADS=1)";
      break;
    case ThreadRuntime::kPython:
      advice =
          "Python has no switch that runs it on one thread: the threads a script starts "
          "(threading, concurrent.futures) are the script's to limit to one, and native "
          "libraries' pools have their own (OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1 and "
          "MKL_NUM_THREADS=1 for NumPy's BLAS)";
      break;
    case ThreadRuntime::kJava:
      advice =
          "a JVM always runs threads of its own (garbage collection, JIT compilation) beside the "
          "program's; -XX:+UseSerialGC leaves the garbage collector's out, and the verdict "
          "comes from the interval over several counts a side";
      break;
    case ThreadRuntime::kNode:
      advice =
          "Node.js always runs threads beside the program's (V8's platform workers, libuv's "
          "pool): --v8-pool-size=1 and UV_THREADPOOL_SIZE=1 leave the fewest, and the verdict "
          "comes from the interval over several counts a side";
      break;
    case ThreadRuntime::kUnknown:
      advice =
          "where the program has a way to run on one thread (a threads option, an environment "
          "variable), count with it for counts that repeat; otherwise the verdict comes from "
          "the interval over several counts a side";
      break;
  }
  return fmt::format(
      "its counted runs met {} threads, which Valgrind runs one at a time, switching at points "
      "that depend on timing, so the work each does (spinning on a lock, stealing work) moves "
      "from run to run: {}",
      hint.threads, advice);
}

std::string UnstableFunctionsLead(const WorkloadResult& w) {
  if (w.stability.functions.empty()) return "";
  return fmt::format("functions whose self cost differed between two {} runs (their profiles):",
                     w.stability.functions_side);
}

std::string ExplanationTitle(const WorkloadResult& w, const std::string& shown_name) {
  const int64_t total = w.explanation ? w.explanation->total_delta : 0;
  if (w.explanation && !w.explanation->error.empty()) {
    return shown_name + ": no per-function explanation";
  }
  const std::string profiler =
      w.explanation && !w.explanation->profiler.empty() ? w.explanation->profiler : "profiled";
  return fmt::format("{}: where the {} instructions {} ({}, self cost)", shown_name,
                     FormatShortCount(total), total >= 0 ? "went" : "were saved", profiler);
}

std::string ShardSentence(const CompareReport& report) {
  if (report.shard) {
    const ShardInfo& s = *report.shard;
    return fmt::format(
        "Shard {} of {}: {} of the suite's {} selected workload{}; workgate merge joins the "
        "shards' JSON reports.",
        s.index, s.count, report.workloads.size(), s.workloads.size(),
        s.workloads.size() == 1 ? "" : "s");
  }
  if (report.merged) {
    return fmt::format("Merged from {} shard{}.", report.merged->shards,
                       report.merged->shards == 1 ? "" : "s");
  }
  return "";
}

}  // namespace workgate
