#include "measure/suite_init.h"

#include <fmt/format.h>
#include <glob.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "machine/system_info.h"
#include "measure/measure.h"
#include "model/backend.h"
#include "report/format.h"
#include "report/summary.h"
#include "store/result_store.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "workload/build_check.h"
#include "workload/score_guess.h"

namespace workgate {

namespace {

namespace fs = std::filesystem;

// Runs of each kind: two show whether a number or a count repeats.
constexpr int kRunsEach = 2;

uint64_t SumOf(const std::map<std::string, uint64_t>& reads,
               std::initializer_list<const char*> kinds) {
  uint64_t n = 0;
  for (const char* kind : kinds) {
    if (const auto it = reads.find(kind); it != reads.end()) n += it->second;
  }
  return n;
}

// One counted run of `w`, its stdout kept; false with `*err` when it failed,
// and `*toggled` set when it failed because the program switched counting
// itself, as region markers do (CountedRun::toggled_collection).
bool RunOnce(Counter& counter, const Workload& w, const InitRequest& request, const WorkDir& dir,
             bool pin, InitRun* run, std::string* err, bool* toggled = nullptr) {
  LaunchOptions options = request.options;
  options.pin_inputs = pin;
  options.passthrough = [run](int fd, std::string_view chunk) {
    if (fd != 1) return;
    const size_t room = kMostInitOutput - std::min(kMostInitOutput, run->stdout_text.size());
    run->stdout_text.append(chunk.substr(0, room));
  };
  const auto start = std::chrono::steady_clock::now();
  CountedWorkload counted =
      CountWorkload(counter, {w, request.suite_dir, dir, request.exe, options},
                    {.score_side = ScoreSide::kCandidate});
  run->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!counted.valid()) {
    *err = counted.error;
    if (toggled != nullptr)
      *toggled = !counted.runs.empty() && counted.runs.back().toggled_collection;
    return false;
  }
  run->count = counted.counts().at(0);
  run->pinned = counted.runs.at(0).pinned;
  return true;
}

bool AllEqual(const std::vector<InitRun>& runs) {
  for (const InitRun& r : runs) {
    if (r.count != runs[0].count) return false;
  }
  return true;
}

std::string Counts(const std::vector<InitRun>& runs) {
  std::vector<std::string> counts;
  for (const InitRun& r : runs) counts.push_back(std::to_string(r.count));
  return fmt::format("{}", fmt::join(counts, " and "));
}

// The clock mode, and why, from the runs.
void ChooseClock(const InitResult& result, SuiteDraft* draft) {
  const InitRun& first = result.pinned[0];
  const uint64_t time = TimeReads(first.pinned), entropy = EntropyReads(first.pinned);
  if (result.inputs_seen && time == 0 && entropy == 0) {
    draft->clock = ClockMode::kNone;
    draft->clock_why = {
        "The program read neither the time nor entropy while it ran (vgcount saw "
        "every read), so its work cannot depend on them."};
    return;
  }
  const std::string read =
      result.inputs_seen
          ? fmt::format("In one run it read the time {} {} and entropy {} {}.", time,
                        time == 1 ? "time" : "times", entropy, entropy == 1 ? "time" : "times")
          : "Under callgrind workgate cannot see what it read.";
  // Unchanged means each count on the real time and entropy equals the
  // pinned one: a timing it only prints moves the count too (formatting
  // other digits), and so does any work they size.
  std::vector<InitRun> all = result.real;
  all.push_back(first);
  if (AllEqual(all)) {
    draft->clock = ClockMode::kNone;
    draft->clock_why = {
        read,
        fmt::format("Counted on the real clock and entropy it did exactly the work it did with "
                    "them pinned ({} instructions), so they change nothing it does.",
                    first.count),
    };
    return;
  }
  draft->clock = ClockMode::kShim;
  draft->clock_why = {
      read,
      fmt::format("On the real clock and entropy it counted {} instructions, pinned {}: they",
                  Counts(result.real), first.count),
      "change what it does (how much work, or only what it prints), so they are pinned.",
      "\"shim\" preloads workgate's clock shim under perf and callgrind (it reaches a",
      "dynamically linked program that asks glibc); vgcount pins every read of any program.",
      "If the program pins itself when WORKGATE_FIXED_CLOCK=1 is set, \"env\" is the",
      "cooperative choice.",
  };
}

std::vector<std::string> Outputs(const std::vector<InitRun>& runs) {
  std::vector<std::string> out;
  for (const InitRun& r : runs) out.push_back(r.stdout_text);
  return out;
}

// "line 3 ("score: 17") printed 17 in run 1 and 18 in run 2".
std::string ChangedText(const ChangedNumber& c) {
  std::vector<std::string> runs;
  for (size_t i = 0; i < c.values.size(); ++i) {
    runs.push_back(fmt::format("{} in run {}", c.values[i], i + 1));
  }
  return fmt::format("line {} (\"{}\") printed {}", c.line_number, c.line,
                     fmt::join(runs, " and "));
}

// Why no suite can be written from the pinned runs' outputs, or "": the
// program's own score changed between them, or a pinned clock needs a score
// and no number repeated.
std::string ScoreProblem(const std::vector<std::string>& pinned, const SuiteDraft& draft) {
  const std::optional<ChangedNumber> changed = FindChangedNumber(pinned);
  if (changed && changed->named_score) {
    return fmt::format(
        "the program's score changed between its runs with the clock and entropy pinned: {}. "
        "A suite asserts a score every run prints the same, the proof that both builds did "
        "the same work; make the program print the same score each run",
        ChangedText(*changed));
  }
  if (draft.score || draft.clock == ClockMode::kNone) return "";
  return fmt::format(
      "no number was printed the same in every run with the clock and entropy pinned ({}), "
      "and a suite with clock = \"{}\" must assert a score, the proof that both builds did "
      "the same work; make the program print one that is the same each run",
      changed ? ChangedText(*changed) : "no number was printed at the same place in each",
      ClockModeName(draft.clock));
}

// The score, and why, from the runs' outputs.
void ChooseScore(const InitResult& result, SuiteDraft* draft) {
  const std::vector<std::string> pinned = Outputs(result.pinned);
  const std::vector<std::string> real = Outputs(result.real);
  std::vector<ScoreGuess> guesses =
      FindRepeatedNumbers(pinned, real, draft->clock != ClockMode::kNone);
  if (guesses.empty()) {
    draft->score_why = {
        "No number was printed the same in every run, so no score is asserted: add a",
        "[workload.score] table with a pattern and the value once the program prints one",
        "(docs/suites.md). Without it, nothing shows that both builds did the same work.",
    };
    return;
  }
  const ScoreGuess& best = guesses[0];
  draft->score_why = {
      fmt::format("Line {} of the output, \"{}\", printed {} in every run{}.", best.line_number,
                  best.line, best.value,
                  best.clock_free ? ", on the real clock too" : " with the clock pinned"),
  };
  if (!best.clock_free && !result.real.empty()) {
    draft->score_why.push_back(
        "On the real clock it moved: it is the figure the clock sizes, so asserting it shows "
        "the pinning held.");
  }
  draft->score_why.insert(
      draft->score_why.end(),
      {"Both builds must print it, or the comparison is invalid: the proof that they did the",
       "same work. A pull request that changes it on purpose changes this value too."});
  draft->score = best;
  draft->alternatives.assign(guesses.begin() + 1, guesses.end());
}

}  // namespace

uint64_t TimeReads(const std::map<std::string, uint64_t>& pinned) {
  return SumOf(pinned, {"tsc", "clock", "sysinfo"});
}

uint64_t EntropyReads(const std::map<std::string, uint64_t>& pinned) {
  return SumOf(pinned, {"rdrand", "rdseed", "getrandom", "random-device"});
}

InitResult MeasureForSuite(Counter& counter, const InitRequest& request,
                           const ProgressFn& progress) {
  InitResult result;
  const bool vgcount = IsBackend(counter.name(), Backend::kVgcount);
  result.inputs_seen = vgcount;
  Workload w;
  w.name = request.name;
  w.command = request.command;
  w.timeout_seconds = request.timeout_seconds;
  // vgcount pins every read itself; callgrind needs the shim to.
  w.clock = vgcount ? ClockMode::kNone : ClockMode::kShim;
  WorkDir dir(w, request.suite_dir);
  for (int i = 0; i < kRunsEach; ++i) {
    progress(fmt::format("{}  count {}/{}, pinned", w.name, i + 1, kRunsEach));
    InitRun run;
    bool toggled = false;
    if (!RunOnce(counter, w, request, dir, true, &run, &result.error, &toggled)) {
      // A program with <workgate/region.h>'s markers, counted as a whole:
      // its markers are the only requests it may make, with a region.
      if (!toggled || w.region) return result;
      w.region = true;
      result.error.clear();
      --i;
      continue;
    }
    result.pinned.push_back(std::move(run));
  }
  const InitRun& first = result.pinned[0];
  if (!vgcount || TimeReads(first.pinned) + EntropyReads(first.pinned) > 0) {
    Workload real = w;
    real.clock = ClockMode::kNone;
    for (int i = 0; i < kRunsEach; ++i) {
      progress(fmt::format("{}  count {}/{}, real clock", w.name, i + 1, kRunsEach));
      InitRun run;
      if (!RunOnce(counter, real, request, dir, false, &run, &result.error)) return result;
      result.real.push_back(std::move(run));
    }
  }
  SuiteDraft& draft = result.draft;
  draft.region = w.region;
  draft.name = request.name;
  draft.command = request.command;
  ChooseClock(result, &draft);
  ChooseScore(result, &draft);
  result.score_problem = ScoreProblem(Outputs(result.pinned), draft);
  double slowest = 0;
  for (const auto* runs : {&result.pinned, &result.real}) {
    for (const InitRun& r : *runs) slowest = std::max(slowest, r.seconds);
  }
  draft.timeout_seconds = std::ceil(std::max(60.0, 10 * slowest));
  if (!AllEqual(result.pinned)) {
    draft.clock_why.push_back(fmt::format(
        "Two pinned counts differed ({} instructions): something besides the time and entropy "
        "moves its work (threads, say); the gate will count it several times.",
        Counts(result.pinned)));
  }
  return result;
}

std::string AsTheSuiteNamesIt(const std::string& arg, const std::string& suite_dir) {
  if (arg.empty()) return arg;
  const size_t eq = arg[0] == '-' ? arg.find('=') : 0;
  if (arg[0] == '-' && eq == std::string::npos) return arg;
  const std::string head = arg[0] == '-' ? arg.substr(0, eq + 1) : "";
  const std::string path = arg.substr(head.size());
  std::error_code ec;
  if (path.empty() || path[0] == '/' || path.find('{') != std::string::npos ||
      !fs::is_regular_file(path, ec)) {
    return arg;
  }
  const fs::path file = fs::canonical(path, ec);
  if (ec) return arg;
  const fs::path relative = file.lexically_relative(suite_dir);
  if (!relative.empty() && *relative.begin() != "..") {
    return head + "{suite_dir}/" + relative.string();
  }
  return head + file.string();
}

InitRequest InitRequestFor(const InitOptions& options) {
  std::error_code ec;
  const fs::path suite_dir = fs::absolute(options.output, ec).parent_path();
  InitRequest request;
  request.exe = options.exe;
  request.name = options.name.empty() ? fs::path(options.exe).filename().string() : options.name;
  request.suite_dir = fs::weakly_canonical(suite_dir, ec).string();
  request.timeout_seconds = options.timeout_seconds;
  request.options = options.launch;
  // {exe} and {suite_dir} are left as they are (AsTheSuiteNamesIt keeps
  // any argument with a placeholder).
  for (const std::string& arg : AdHocCommand(options.command)) {
    request.command.push_back(AsTheSuiteNamesIt(arg, request.suite_dir));
  }
  return request;
}

namespace {

// The regular files `pattern` matches (glob(3), sorted), or a UsageError.
std::vector<std::string> Matches(const std::string& pattern) {
  glob_t found{};
  const int status = glob(pattern.c_str(), GLOB_ERR, nullptr, &found);
  std::vector<std::string> files;
  if (status == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      std::error_code ec;
      if (fs::is_regular_file(found.gl_pathv[i], ec)) files.push_back(found.gl_pathv[i]);
    }
  }
  globfree(&found);
  if (status == GLOB_NOSPACE) throw EnvironmentError("--each: out of memory reading " + pattern);
  if (files.empty()) {
    throw UsageError(fmt::format("--each {}: no file matches it", CommandLineText({pattern})));
  }
  return files;
}

bool NamesAFile(const std::vector<std::string>& command) {
  for (const std::string& arg : command) {
    if (arg.find("{file}") != std::string::npos) return true;
  }
  return false;
}

// `command` for one file: {file} replaced by it, or the file after the last
// argument where nothing names it; the build alone first where there is no
// command.
std::vector<std::string> CommandFor(const std::vector<std::string>& command,
                                    const std::string& file) {
  std::vector<std::string> out = command.empty() ? std::vector<std::string>{"{exe}"} : command;
  if (!NamesAFile(out)) {
    out.push_back(file);
    return out;
  }
  for (std::string& arg : out) arg = ReplaceAll(arg, "{file}", file);
  return out;
}

}  // namespace

std::vector<InitRequest> InitRequestsFor(const InitOptions& options) {
  if (options.each.empty()) {
    if (NamesAFile(options.command)) {
      throw UsageError("{file} stands for each file of --each GLOB, and no --each was given");
    }
    return {InitRequestFor(options)};
  }
  if (!options.name.empty()) {
    throw UsageError("--name names one workload; with --each each is named after its file");
  }
  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const std::string& pattern : options.each) {
    for (const std::string& file : Matches(pattern)) {
      std::error_code ec;
      if (seen.insert(fs::weakly_canonical(file, ec).string()).second) files.push_back(file);
    }
  }
  std::map<std::string, int> stems;
  for (const std::string& file : files) ++stems[fs::path(file).stem().string()];
  std::vector<InitRequest> requests;
  std::map<std::string, std::string> named;  // name -> file
  for (const std::string& file : files) {
    const fs::path path(file);
    std::string name = path.stem().string();
    if (stems[name] > 1) name = (path.parent_path() / path.stem()).lexically_normal().string();
    if (const auto other = named.find(name); other != named.end()) {
      throw UsageError(fmt::format("--each: {} and {} would both be workload {}",
                                   CommandLineText({other->second}), CommandLineText({file}),
                                   CommandLineText({name})));
    }
    named[name] = file;
    InitOptions one = options;
    one.name = name;
    // Relative, so that a file in the suite's folder is named from it
    // however the glob was written (AsTheSuiteNamesIt keeps absolute paths).
    std::error_code ec;
    const std::string relative = path.is_absolute() ? fs::relative(path, ec).string() : file;
    one.command = CommandFor(options.command, ec || relative.empty() ? file : relative);
    requests.push_back(InitRequestFor(one));
  }
  return requests;
}

BackendChoice InitBackend(const BackendChoice& vgcount, const BackendChoice& callgrind) {
  if (!vgcount.backend.empty()) return vgcount;
  if (callgrind.backend.empty()) {
    throw EnvironmentError("workgate init counts with Valgrind: " + callgrind.reason);
  }
  return callgrind;
}

std::vector<std::string> InitHeader(const InitOptions& options, const std::string& backend,
                                    const std::vector<InitRun>& firsts,
                                    const std::string& written_at) {
  std::string line = "  workgate init";
  if (options.append) line += " --append";
  line += " --exe " + options.exe;
  for (const std::string& pattern : options.each) line += " --each " + CommandLineText({pattern});
  const std::string shown_command = CommandLineText(options.command);
  if (!shown_command.empty()) line += " -- " + shown_command;
  std::string took;
  if (firsts.size() == 1) {
    took = fmt::format("One count of that build with {} took {:.2f} s: {} instructions.", backend,
                       firsts[0].seconds, FormatCount(firsts[0].count, Minus::kAscii));
  } else {
    double total = 0;
    for (const InitRun& run : firsts) total += run.seconds;
    took = fmt::format("One count of each of the {} workloads with {} took {:.2f} s in all.",
                       firsts.size(), backend, total);
  }
  std::vector<std::string> header = {
      fmt::format("{}, written by workgate init on {} from:",
                  options.append ? "Workloads added to this suite" : "A workgate suite",
                  written_at),
      line,
      took,
  };
  if (options.append) return header;
  header.insert(header.end(),
                {"Gate two builds of the program with it:",
                 fmt::format("  workgate compare --baseline OLD --candidate NEW --suite {}",
                             options.output),
                 "Every key: docs/suites.md. {exe} is the build under test; {suite_dir} is this "
                 "file's",
                 "folder: the workload runs in an empty private directory, so name its files "
                 "from there."});
  return header;
}

namespace {

// With --append: the suite's text, checked to read as a suite in which no
// workload has a new one's name.
std::string SuiteToAppendTo(const InitOptions& options,
                            const std::vector<InitRequest>& requests) {
  const std::optional<std::string> text = ReadFile(options.output, kMaxSuiteBytes);
  if (!text) {
    throw UsageError(fmt::format("--append: {} cannot be read as a suite file (a regular file of "
                                 "at most {} bytes)",
                                 options.output, kMaxSuiteBytes));
  }
  Suite before;
  if (std::string err; !ParseSuite(*text, options.output, &before, &err)) {
    throw UsageError("--append: " + err);
  }
  for (const InitRequest& request : requests) {
    for (const Workload& w : before.workloads) {
      if (w.name == request.name) {
        throw UsageError(fmt::format("--append: {} has a workload {} already",
                                     options.output, CommandLineText({w.name})));
      }
    }
  }
  return text->empty() || text->back() == '\n' ? *text : *text + "\n";
}

}  // namespace

InitSuite MakeInitSuite(const InitOptions& options, const ProgressFn& progress) {
  const std::vector<InitRequest> requests = InitRequestsFor(options);
  std::vector<Workload> probe_workloads;
  for (const InitRequest& request : requests) {
    Workload w;
    w.name = request.name;
    w.command = request.command;
    probe_workloads.push_back(std::move(w));
  }
  if (std::string err; !CheckBuild(options.exe, probe_workloads, &err)) {
    throw Error(kExitInvalid, err);
  }
  const std::string before = options.append ? SuiteToAppendTo(options, requests) : "";
  // Exact counts, and what the program read: vgcount where it is built.
  const SystemInfo info = GatherSystemInfo(LibpfmPmus::kNotListed);
  const BackendChoice choice =
      InitBackend(ChooseBackend(BackendRequest::kVgcount, kDefaultPerfEvent, info),
                  ChooseBackend(BackendRequest::kCallgrind, "", info));
  auto counter = MakeCounter(choice, kDefaultPerfEvent);
  InitSuite suite;
  suite.backend = counter->name();
  // Which workload a message is of, where there are several.
  auto of = [&](const InitRequest& request) {
    return requests.size() == 1 ? "" : "workload " + CommandLineText({request.name}) + ": ";
  };
  std::vector<InitRun> firsts;
  for (const InitRequest& request : requests) {
    suite.measured.push_back(MeasureForSuite(*counter, request, progress));
    const InitResult& result = suite.measured.back();
    if (!result.error.empty()) {
      suite.exit_code = kExitInvalid;
      suite.error = "the command failed, so no suite was written: " + of(request) + result.error;
      return suite;
    }
    if (!result.score_problem.empty()) {
      suite.exit_code = kExitInvalid;
      suite.error = "no suite was written: " + of(request) + result.score_problem;
      return suite;
    }
    firsts.push_back(result.pinned[0]);
  }
  suite.measured[0].draft.header = InitHeader(options, suite.backend, firsts, UtcNow());
  std::string text = before;
  for (const InitResult& result : suite.measured) {
    // A blank line before the comments of workloads appended.
    if (!text.empty() && !result.draft.header.empty()) text += "\n";
    text += SuiteText(result.draft);
  }
  // What is written must read back as the workloads measured, after those
  // it had.
  Suite check;
  std::string err;
  if (!ParseSuite(text, options.output, &check, &err)) {
    err = "workgate init wrote a suite it cannot read: " + err;
  } else if (check.workloads.size() < requests.size() ||
             check.workloads[check.workloads.size() - requests.size()].name !=
                 requests[0].name) {
    err = "workgate init wrote a suite that does not read back as the workloads it measured";
  }
  if (!err.empty()) {
    suite.exit_code = kExitEnvironment;
    suite.error = err;
    return suite;
  }
  suite.text = std::move(text);
  return suite;
}

}  // namespace workgate
