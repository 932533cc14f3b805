#pragma once
// The result model of a comparison: what the gate decides and every figure
// the three renderers (terminal, Markdown, JSON) show. One model, three views.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/flame_graph.h"
#include "model/schema_versions.h"
#include "model/simulated_events.h"
#include "util/exit_codes.h"

namespace workgate {

/// When a stability check runs (`--stability`).
enum class StabilityMode {
  kAuto,    // where one count per side could mislead (NeedsStabilityCheck)
  kAlways,  // every workload: one more count of one build
  kNever,   // trust single counts (the exact rule alone)
};
/// "auto", "always", "never"; false for anything else.
bool ParseStabilityMode(const std::string& text, StabilityMode* mode);
const char* StabilityModeName(StabilityMode mode);

/// The largest instruction count the gate takes as evidence: INT64_MAX, so
/// that every delta between two counts fits the signed 64-bit `delta`. No
/// real run comes near it (29 years at 10^10 instructions a second): a larger
/// count is a corrupt or forged figure, and makes its workload invalid.
inline constexpr uint64_t kMaxCount = static_cast<uint64_t>(INT64_MAX);

/// kAccepted: work added beyond the margin, within what the suite accepted
/// for this baseline (AcceptedWork): the gate passes it.
enum class Verdict { kOk, kWorkAdded, kWorkRemoved, kInconclusive, kInvalid, kAccepted };

/// work-added, work-removed or accepted: a verdict that says the work changed.
inline bool IsWorkVerdict(Verdict v) {
  return v == Verdict::kWorkAdded || v == Verdict::kWorkRemoved || v == Verdict::kAccepted;
}

/// "ok", "work-added", "work-removed", "inconclusive", "invalid", "accepted".
const char* VerdictName(Verdict v);
/// The inverse of VerdictName; false for any other text.
bool ParseVerdict(const std::string& name, Verdict* v);

/// What a side was measured with; two sides compare only when the parts that
/// decide a count agree (see CompatibilityProblem in identity/fingerprint.h).
struct Fingerprint {
  std::string workgate_version;
  std::string backend;  // "perf", "callgrind", "vgcount"
  std::string event;    // "instructions:u" (perf) or "Ir" (Valgrind)
  std::string cpu_model;
  std::string kernel;
  std::string valgrind_version;  // empty for perf
  std::string valgrind_path;     // the Valgrind that counted, absolute; empty for perf
  std::string binary_sha256;     // of the exe (or the command's first program)
  std::map<std::string, std::string> libraries;  // shared library path -> sha256
  std::string ld_so_cache_sha256;
  std::vector<std::string> argv;  // as run, {exe} substituted
  std::map<std::string, std::string> env;
  std::string suite_sha256;  // digest of the workload's definition
};

/// One timed run on the real clock (context only).
struct TimedSample {
  std::optional<double> score;  // the score the run printed, if it matched
  double wall_seconds = 0;
  /// Its place in the comparison's one sequence of timed runs, from 0,
  /// warm-ups included (measure/timed_runs.h): which side ran first, and how
  /// far apart, is part of the evidence.
  int slot = 0;
};

/// Where a side's counts came from when the result store already held them
/// (store/result_store.h): counted before, under exactly this fingerprint.
struct FromStore {
  std::string counted_at;  // ISO 8601 UTC of the stored first count
  std::string ref;         // the commit or label it was recorded under; "" when none
  std::string label;       // the build as named by the run that counted it
  size_t counts = 0;       // how many of the side's counts came from the store
};

/// One run's per-function profile as a stored baseline keeps it
/// (decision/baseline_file.h), so that a comparison against the stored
/// counts explains its delta as one against the build would: callgrind's
/// format, one file per process, each gzip-compressed
/// (util/compression.h). measure/profile_pack.h packs and unpacks it.
struct PackedProfile {
  std::string profiler;  // the tool that made it: "vgcount" or "callgrind"
  /// The object (file name) the build's own code has in the profile, the
  /// file that ran (the build, or its copy: measure/build_copies.h), and
  /// the build as named: what explain/explain.h renames to "{exe}".
  std::string object, ran, build;
  uint64_t total = 0;  // the instructions its files add up to
  std::vector<std::pair<std::string, std::string>> gzip_files;  // (file name, gzip bytes)
};

/// The evidence gathered for one side of one workload.
struct SideResult {
  std::vector<uint64_t> counts;      // one per counted repeat
  std::optional<std::string> score;  // pinned score as printed
  std::string error;                 // non-empty: this side is invalid, and why
  /// What its runs did that does not make them invalid but is worth saying:
  /// "the workload left 1 process running; it was killed".
  std::vector<std::string> notes;
  /// What its counted runs met that nothing pinned, in words ("4 threads
  /// (...)", "2 signals delivered", "the clock shim cannot reach a static
  /// program; ..."). Empty says nothing on a counter that cannot see them:
  /// see `deterministic`.
  std::vector<std::string> unpinned;
  /// Its counts are deterministic by construction: vgcount pinned time and
  /// entropy and saw every input its runs met, and none was unpinned. Only
  /// then does a work verdict stand on one count (measure/stability_runs.h).
  bool deterministic = false;
  std::vector<TimedSample> timed;
  Fingerprint fingerprint;
  /// Set when the result store gave some or all of `counts`.
  std::optional<FromStore> from_store;
  /// The profile a stored baseline keeps of this side (--save-baseline;
  /// in no report), or why there is none (`no_profile`).
  std::optional<PackedProfile> profile;
  std::string no_profile;
  /// The simulated events of one run of this side (WorkloadEvents says which
  /// tool ran it and whether they stand as evidence); absent where none ran
  /// or it failed.
  std::optional<SimulatedEvents> simulated;
  uint64_t min() const;
  uint64_t max() const;
};

/// One source line of an explained function: its self cost on each side
/// (explain/line_diff.h).
struct LineDelta {
  /// The file as the candidate's profile names it (the baseline's where
  /// only the baseline ran the line): untrusted text.
  std::string file;
  uint64_t line = 0;  // from 1
  int64_t baseline = 0;
  int64_t candidate = 0;
  /// Its file's path in the checkout ("src/vm.c") when git tracks it there,
  /// the line's text as the checkout has it, and a link to the line at the
  /// candidate's commit (measure/source_lines.h); each empty when unknown.
  std::string path = {};
  std::string text = {};
  std::string url = {};
  /// A line of the baseline's source that the candidate changed or removed
  /// (explain/line_diff.h): `line` is in the baseline's numbering, and the
  /// candidate has no cost on it.
  bool baseline_only = false;
  /// Each side's simulated events on the line, where both profiles carry
  /// them (Explanation::simulated); absent otherwise.
  std::optional<SimulatedCosts> baseline_events = {};
  std::optional<SimulatedCosts> candidate_events = {};
  /// Whose numbering `line` is in, and so whose source `text` is:
  /// "candidate", or "baseline" for a baseline_only line and, where lines
  /// are matched by number, for a line only the baseline ran
  /// (LineNumbering).
  std::string numbering = "candidate";
  /// Whether the diff from the source base (--source-base) to the
  /// candidate's commit changed this line: a baseline line it changed or
  /// removed, a candidate line it added or changed. nullopt where that diff
  /// is not known for the line's file (measure/source_lines.h).
  std::optional<bool> changed = std::nullopt;
  /// Other lines of the function with the same source text, in the same
  /// file, whose costs offset this one's and are summed into it
  /// (explain/line_diff.h: FoldIdenticalLines): one place of code the
  /// compiler charges to either of them. Each has no `folded` of its own.
  std::vector<LineDelta> folded = {};
  int64_t delta() const { return candidate - baseline; }
};

/// The side whose numbering a line is in (LineDelta::numbering).
inline constexpr const char* kBaselineNumbering = "baseline";
inline constexpr const char* kCandidateNumbering = "candidate";

/// A call edge into an explanation's row that one build has and the other
/// lacks: the compiler stopped or started inlining the row's function into
/// `caller` (explain/inline_moves.h). The caller's inclusive cost (its own
/// and its callees') says what the move really cost.
struct CallerMove {
  std::string caller;  // as FunctionDelta::function shows it
  std::string object;
  uint64_t baseline_calls = 0;
  uint64_t candidate_calls = 0;
  int64_t baseline_inclusive = 0;
  int64_t candidate_inclusive = 0;
  /// The row's function moved out of line from `caller` (called now,
  /// inlined before); otherwise it moved into it.
  bool out_of_line() const { return baseline_calls == 0; }
  int64_t inclusive_delta() const { return candidate_inclusive - baseline_inclusive; }
};

/// One function's part of an explained delta.
struct FunctionDelta {
  std::string function;  // without clone suffixes (explain/clone_names.h)
  std::string object;
  int64_t baseline = 0;
  int64_t candidate = 0;
  /// Every full name summed into this row on either side, sorted, when any
  /// of them is a clone ("f", "f.constprop.0"); empty when the row saw only
  /// `function` itself.
  std::vector<std::string> clones = {};
  /// The function's source lines whose cost changed most, for the first
  /// rows of an explanation whose profiles have line information; empty
  /// otherwise.
  std::vector<LineDelta> lines = {};
  /// The callers it moved out of line from, or into, for the first rows of
  /// an explanation whose profiles have call edges; empty otherwise.
  std::vector<CallerMove> moves = {};
  /// Each side's simulated events in the function's self cost, where both
  /// profiles carry them (Explanation::simulated); absent otherwise.
  std::optional<SimulatedCosts> baseline_events = {};
  std::optional<SimulatedCosts> candidate_events = {};
  /// The function's name in the baseline when the candidate renamed it
  /// (explain/renames.h): `function` is the candidate's name, `baseline`
  /// the cost of the baseline's function. Empty otherwise.
  std::string renamed_from = {};
  int64_t delta() const { return candidate - baseline; }
};

/// A file of an object that has no symbol table (see MissingSymbols).
struct StrippedFile {
  std::string path;        // as the profile names it
  std::string side;        // "baseline", "candidate" or "both"
  std::string build_id;    // its GNU build ID in lowercase hex; "" when it has none
  std::string debug_file;  // where Valgrind looks for its debug file by build ID; "" without one
  bool debug_file_exists = false;
};

/// An object whose code without a symbol carries a notable share of the
/// delta (explain/symbol_hints.h says which) and whose file, on one side or
/// both, has no symbol table: names for that code need its debug file.
struct MissingSymbols {
  std::string object;  // as the rows name it
  int64_t delta = 0;   // the delta of its (code without a symbol) row
  std::vector<StrippedFile> files;
};

/// A table of one side's profile that an explanation kept only in part:
/// the build writes its profile, and workgate's memory for it is bounded
/// (explain/callgrind_profile.h: ProfileBounds). Self costs, and so the
/// rows, are never cut.
struct ProfileCut {
  std::string side;   // "baseline" or "candidate"
  std::string table;  // "call_edges" or "source_lines"
  /// The distinct entries the profile named; with `more_than_named`, it
  /// named more than this, and none was kept.
  uint64_t named = 0;
  bool more_than_named = false;
  uint64_t kept = 0;  // the costliest
};

/// Which workloads `compare` explains (--explain).
enum class ExplainMode {
  kNever,      // none: no profile is kept
  kWorkAdded,  // those whose verdict is work-added or accepted (the default)
  kAlways,     // every valid workload
};

/// "never", "work-added", "always".
const char* ExplainModeName(ExplainMode mode);
/// The inverse of ExplainModeName; false for any other text.
bool ParseExplainMode(const std::string& name, ExplainMode* mode);

struct Explanation {
  std::vector<FunctionDelta> rows;              // top N by |delta|
  int64_t total_delta = 0;                      // the whole-program delta of the profiles
  std::string error;                            // non-empty when the explanation failed
  std::vector<MissingSymbols> missing_symbols;  // by |delta|, largest first
  /// The tool whose per-function profiles were diffed: "vgcount" or
  /// "callgrind"; empty when the explanation failed before one was chosen.
  std::string profiler;
  /// The sides ("baseline", "candidate") whose profile came from a run of
  /// its own, made for the explanation; empty when both came from the runs
  /// that counted them.
  std::vector<std::string> rerun;
  /// The baseline's profile is the one a stored baseline keeps
  /// (--baseline-results; decision/baseline_file.h), not a run of this one.
  bool stored_baseline = false;
  /// What the profiles' bounds left out, baseline first: a row whose
  /// function lost a line or a call edge on either side lists no lines, or
  /// no moves, rather than a difference the cut made.
  std::vector<ProfileCut> profile_cuts = {};
  /// The two profiles' differential flame graph, made only when asked for
  /// (--flamegraph); in no report but its page.
  std::optional<FlameGraph> flame_graph = {};
  /// Both profiles carry the simulated events (a simulated run's, for
  /// WorkloadEvents): the rows and lines have their events.
  bool simulated = false;
};

/// When `compare` simulates branches and caches beside the count
/// (--events): one run per side under ProfilerFor's Valgrind tool, after the
/// verdict.
enum class EventsMode {
  kNever,  // none (a workload whose metric is estimated-cycles still has its counted runs')
  kWork,   // workloads whose verdict is work-added or work-removed (the default)
  kAlways,  // every valid workload
};
/// "never", "work", "always".
const char* EventsModeName(EventsMode mode);
/// The inverse of EventsModeName; false for any other text.
bool ParseEventsMode(const std::string& name, EventsMode* mode);

/// One perf event counted beside the instructions, in one run of each side
/// (--hardware-events): context, never scaled. A reading whose counter the
/// kernel shared with other events (multiplexed: it ran part of the time)
/// is kept as read and not compared.
struct HardwareEvent {
  std::string event;  // as libpfm4 names it: "branch-misses:u"
  uint64_t baseline = 0;
  uint64_t candidate = 0;
  bool baseline_multiplexed = false;
  bool candidate_multiplexed = false;
  bool multiplexed() const { return baseline_multiplexed || candidate_multiplexed; }
};

/// A workload's hardware events (perf only), or why it has none.
struct HardwareEvents {
  std::vector<HardwareEvent> events;
  /// Why there are none: the events cannot be opened here, a run failed.
  /// Untrusted (a failed run's error may quote the program).
  std::string note;
};

/// What a workload's simulated events are and where they came from
/// (SideResult::simulated holds each side's).
struct WorkloadEvents {
  /// The tool that simulated: "callgrind" or "vgcount".
  std::string profiler;
  /// Both sides' events are there, and each side's simulated run retired
  /// one of its counted instruction counts (where the tool is the counting
  /// backend; on perf, whose count jitters, nothing is held against it).
  /// Otherwise the reports show `note` and not the events.
  bool shown = false;
  /// What to know about them, or why they are not shown: "the candidate's
  /// simulated run retired 1,204 instructions, its count is 1,200".
  std::string note;
};

/// Fewest pairs for which a comparison gets an interval and a test.
inline constexpr int kMinPairsForInterval = 5;

/// Up to this many pairs every one of the 2^n sign flips is enumerated.
inline constexpr int kMaxExactSignFlipPairs = 20;

/// Beyond kMaxExactSignFlipPairs, how many sign flips are drawn.
inline constexpr uint64_t kSignFlipDraws = 100000;

/// The timed context's significance level, for a whole family of workloads.
inline constexpr double kTimedAlpha = 0.05;

/// One paired comparison of timed runs (stats/timed_stats.h): the two builds,
/// or the baseline against itself (the A/A control). Ratios are oriented so
/// that above 1 means the second of the pair is worse.
struct TimedTest {
  int pairs = 0;
  double median_ratio = 0;  // the median of the pairs' ratios
  double ci_low = 0;        // seeded percentile bootstrap interval of it
  double ci_high = 0;
  double nominal_confidence = 0;  // the level asked of the bootstrap: 1 - 0.05 / family
  /// The level the interval can really have: the nominal one, or less with
  /// too few pairs for it (MostCoverageOfMedian). What reports print.
  double confidence = 0;
  bool excludes_one = false;
  double p_value = 1;     // two-sided paired sign-flip permutation test (stats/sign_flip.h)
  double p_adjusted = 1;  // Holm's, over the family of workloads
  bool exact = true;      // all 2^pairs sign flips enumerated; false: `draws` sampled
  uint64_t draws = 0;
};

/// Both tests of `t` find an effect: the interval excludes 1 and the
/// sign-flip test rejects after Holm.
bool ShowsEffect(const TimedTest& t);

/// A timed run left out of the statistics as a stall, with its pair
/// (stats/timed_context.h gives the rule).
struct DroppedSample {
  bool baseline = true;       // whose run it was
  int sample = 0;             // its index among that side's timed samples, and its pair's
  double value = 0;           // its figure on the basis: wall seconds, or its score
  double sibling_median = 0;  // the median of the other samples of its side
};

/// What the timed context says of a workload, when its two tests agree.
enum class TimedLabel { kFaster, kSlower, kWithinNoise, kInconclusive };

/// "faster", "slower", "within noise", "inconclusive".
const char* TimedLabelName(TimedLabel label);
/// The inverse of TimedLabelName; false for any other text.
bool ParseTimedLabel(const std::string& name, TimedLabel* label);

/// The timed context of a workload with kMinPairsForInterval or more pairs
/// (stats/timed_context.h). Context only: it never changes the verdict.
struct TimedStats {
  std::string basis;  // "score" or "wall time"
  int family = 0;     // workloads with a comparison in this report: Holm's family
  /// Absent when too few pairs are left once stalls are dropped.
  std::optional<TimedTest> comparison;
  /// The Hodges-Lehmann shift of the pairs' differences, candidate minus
  /// baseline, in the basis' unit (seconds, or score points). With comparison.
  std::optional<double> hl_shift;
  /// The typical ratio between two runs of the baseline, as a fraction
  /// (0.012: 1.2%); an effect within it is within noise. With comparison.
  std::optional<double> noise_floor;
  /// The baseline against itself; absent with too few baseline runs.
  std::optional<TimedTest> aa_control;
  std::vector<DroppedSample> dropped;
  TimedLabel label = TimedLabel::kInconclusive;
  std::string reason;  // why that label, in words
  /// The A/A control shows an effect: the timed context of this runner
  /// cannot be trusted.
  bool aa_effect() const;
};

/// How a workload's wall-time ratio lies against the time ratio its
/// instruction count allows (stats/timing_vs_count.h): within a factor of it,
/// or beyond.
enum class CountDisagreement {
  kNone,    // the wall-time interval reaches within the factor of the count's ratio
  kSlower,  // the candidate ran slower than its count allows, beyond the factor
  kFaster,  // it ran faster than its count allows, beyond the factor
};

/// "none", "slower", "faster".
const char* CountDisagreementName(CountDisagreement d);
/// The inverse of CountDisagreementName; false for any other text.
bool ParseCountDisagreement(const std::string& name, CountDisagreement* d);

/// The timed runs' wall times held against the count
/// (stats/timing_vs_count.h), for a workload whose count has figures and
/// whose wall times can be trusted: 10 or more pairs kept, and an A/A control
/// of the baseline's own wall times without an effect. Wall times, whatever
/// the timed context's basis: workgate measures them, while a score is the
/// program's word. Context only: it never changes the verdict.
struct TimingVsCount {
  CountDisagreement disagreement = CountDisagreement::kNone;
  /// The paired comparison of the wall times (candidate to baseline): the
  /// pairs kept, the median ratio, its bootstrap interval and the level the
  /// interval can really have, as in TimedTest, over the family below.
  int pairs = 0;
  double median_ratio = 0;
  double ci_low = 0;
  double ci_high = 0;
  double confidence = 0;
  /// The time ratio the count allows: 1 + the relative delta's interval,
  /// relative_low to relative_high.
  double count_low = 1;
  double count_high = 1;
  double factor = 2;  // how far beyond that ratio a timing must lie
  /// The ratio tested, on the side of the count the median ratio lies:
  /// count_high * factor above it, count_low / factor below.
  double bound = 0;
  double p_value = 1;     // the sign-flip test of the pairs' ratios against `bound`
  double p_adjusted = 1;  // Holm's, over the family
  int family = 0;         // the workloads whose wall times were tested against their counts
};

/// What `t`'s figures say, as for a timed label two tests must agree:
/// kSlower where the bound lies above the count's ratio, the interval wholly
/// above the bound and the adjusted p below kTimedAlpha; kFaster the same
/// below; kNone otherwise.
CountDisagreement DisagreementOf(const TimingVsCount& t);

/// What `workgate selftest --timed` (measure/timed_selftest.h) found: whether
/// this machine's timed context tells a workload from itself, and from
/// itself with a delay of known length.
enum class SelftestOutcome {
  kResolves,     // the A/A phase finds no effect, the delayed phase "slower"
  kMisses,       // the delayed phase is not "slower"
  kFalseEffect,  // the A/A phase says faster or slower of identical runs
  kFailed,       // a run failed: nothing to judge
};

/// "resolves", "misses", "false effect", "failed".
const char* SelftestOutcomeName(SelftestOutcome outcome);

struct TimedSelftest {
  std::string workload;               // what ran: "known_loop --spin-ns D N"
  uint64_t iterations = 0;            // N, the known loop's size
  int pairs = 0;                      // per phase
  double delay_fraction = 0;          // of the run time: 0.05
  double run_seconds = 0;             // the baseline's median wall time in the A/A phase
  double delay_seconds = 0;           // the delay injected in the candidate's runs
  double expected_ratio = 0;          // (run + delay) / run
  std::optional<TimedStats> aa;       // the workload against itself
  std::optional<TimedStats> delayed;  // against itself with the delay
  /// The delayed phase's interval holds expected_ratio.
  bool covers_expected = false;
  SelftestOutcome outcome = SelftestOutcome::kFailed;
  std::string reason;  // the outcome in words, or the failed run's error
};

/// How a workload's counts held up between runs of the same build, on an
/// exact backend (decision/stability.h).
struct Stability {
  bool checked = false;   // a build of it was counted more than once
  bool unstable = false;  // and two of its counts differed
  std::string trigger;    // why it was checked, for the report
  uint64_t spread = 0;    // the larger side's max - min
  double spread_ppm = 0;  // that spread per million of that side's min
  /// Unstable only: the coverage of the interval the verdict was taken from.
  double confidence = 0;
  /// Where profiles exist (callgrind): the functions whose self cost differed
  /// between two runs of the same build, most first. Where the
  /// nondeterminism lives: a hash seed, a clock read, thread scheduling.
  std::vector<FunctionDelta> functions;
  std::string functions_side;  // "baseline" or "candidate": whose runs differed
};

/// A workload's delta accepted as intended work: the suite's
/// `[workload.accepted]` table, which `workgate accept` writes
/// (docs/gate.md, "Accepting intended work"). What it is held against is the
/// baseline, not the builds' bytes: CI rebuilds both sides on every push, and
/// few builds are bit for bit the same, while the baseline's count, for one
/// workload definition, backend and event, stays put until the baseline's
/// code changes (decision/decision.h, AcceptedProblem).
struct AcceptedWork {
  std::string reason;             // why the work is intended, in the reviewer's words
  int64_t delta = 0;              // the accepted instructions, candidate minus baseline
  uint64_t baseline_count = 0;    // the baseline's count it was accepted against
  std::string backend;            // that counted it: "vgcount", "callgrind", "perf"
  std::string event;              // "Ir" or perf's event
  std::string workload_digest;    // Fingerprint::suite_sha256 of its sides
  /// The two builds' SHA-256 when it was accepted: for the reader of the
  /// suite, never matched (a rebuild differs).
  std::string baseline_sha256;
  std::string candidate_sha256;
  /// delta / baseline_count; 0 for a baseline of 0.
  double relative() const;
};

/// The reason a suggested accept command carries (report/summary.h), for the
/// reviewer to replace; `workgate accept` refuses it as it stands.
inline constexpr char kAcceptReasonPlaceholder[] = "REPLACE with why this work is intended";

/// How a workload's accepted entry bore on its verdict (Decide).
enum class AcceptedStatus {
  kApplied,       // the work added lies within it: the verdict is accepted
  kExceeded,      // the work added beyond it reaches the margin: work-added
  kInconclusive,  // the work added beyond it straddles the margin
  kUnneeded,      // its baseline, but the delta is within the margin anyway
  kStale,         // it matches no baseline of this run: no effect (delete it)
  kUnchecked,     // the workload is invalid, or too noisy to decide: no effect
};

/// "applied", "exceeded", "inconclusive", "unneeded", "stale", "unchecked".
const char* AcceptedStatusName(AcceptedStatus s);
/// The inverse of AcceptedStatusName; false for any other text.
bool ParseAcceptedStatus(const std::string& name, AcceptedStatus* s);

/// The suite's accepted entry of a workload and what Decide made of it.
struct Acceptance {
  AcceptedWork entry;
  AcceptedStatus status = AcceptedStatus::kUnchecked;
  std::string problem = {};  // kStale: why it matches no baseline of this run
};

/// The programs whose way of running on one thread the reports name
/// (report/summary.h ThreadHintSentence); measure/thread_runtime.h tells
/// them apart by the command and the build.
enum class ThreadRuntime { kUnknown, kZstd, kGo, kOpenMp, kPython, kJava, kNode };

/// "unknown", "zstd", "go", "openmp", "python", "java", "node".
const char* ThreadRuntimeName(ThreadRuntime r);
/// The inverse of ThreadRuntimeName; false for any other text.
bool ParseThreadRuntime(const std::string& name, ThreadRuntime* r);

/// A workload whose counts moved between runs of one build while its runs
/// met threads, which Valgrind runs one at a time in an order that depends
/// on timing: the likely cause, and running the program on one thread the
/// likely fix.
struct ThreadHint {
  uint64_t threads = 0;  // the most threads one counted run of either side met
  /// The program that runs them: the candidate's (the baseline's against a
  /// stored baseline with no candidate).
  ThreadRuntime runtime = ThreadRuntime::kUnknown;
};

struct WorkloadResult {
  std::string name;
  /// Its argv as the suite gives it (an ad hoc command as it runs), with
  /// the placeholders {exe} and {suite_dir} as written; empty where the
  /// report does not know it (a workload of a shard that gave no result).
  std::vector<std::string> command;
  Verdict verdict = Verdict::kInvalid;
  std::string reason;            // why (always set for invalid and inconclusive)
  double max_work_added = 0.01;  // the margin, as a fraction
  /// score.expect: what the candidate must print, and the baseline unless
  /// it prints previous_score.
  std::optional<std::string> expected_score;
  /// score.previous: the score before a change that alters it on purpose,
  /// which the baseline may print instead (docs/suites.md).
  std::optional<std::string> previous_score;
  /// Set by Decide: the baseline printed previous_score and the candidate
  /// expected_score, so the two sides did different work by design and the
  /// delta includes that change. The verdict is still the counts'.
  bool score_changed = false;
  SideResult baseline;
  SideResult candidate;
  Stability stability;
  /// Set where the workload is unstable and its counted runs met threads
  /// (measure/thread_runtime.h).
  std::optional<ThreadHint> thread_hint;
  // Filled when both sides have counts.
  // Stable: candidate.min - baseline.min. Unstable: the Hodges-Lehmann shift.
  int64_t delta = 0;
  double relative = 0;      // delta / baseline.min
  double relative_low = 0;  // interval of the relative delta from the spreads
  double relative_high = 0;
  /// The suite's accepted delta of this workload, where it has one; Decide
  /// sets its status.
  std::optional<Acceptance> accepted;
  std::optional<TimedStats> timed_stats;
  /// Set with timed_stats where the two can be held against each other.
  std::optional<TimingVsCount> timing_vs_count;
  std::optional<Explanation> explanation;
  /// What the counts, delta and margin are of: instructions, or estimated
  /// cycles (a suite's `metric`).
  Metric metric = Metric::kInstructions;
  /// The simulated events beside the count, where they were asked for
  /// (--events) or the metric needs them.
  std::optional<WorkloadEvents> events;
  /// On perf, the hardware events counted beside the instructions in one
  /// run of each side, where simulated events are asked for (--events).
  std::optional<HardwareEvents> hardware;
};

/// True when both sides have counts, none above kMaxCount, and the baseline's
/// is non-zero: then delta and the relative figures of `w` mean something
/// (Decide fills them).
bool HasDelta(const WorkloadResult& w);

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
double Median(std::vector<double> values);
/// The median of `counts` (the mean of the middle two for an even number).
double MedianCount(std::vector<uint64_t> counts);

/// What became of the stored baseline given with --baseline-results, for a
/// workflow that falls back to building the merge base when it was not used.
/// In order of severity: merge keeps the worst of its parts'.
enum class StoredBaselineStatus {
  kUsed,          // every workload was compared with it
  kMissing,       // the file does not exist
  kUnreadable,    // it exists but cannot be read, is not JSON, or is of another schema
  kIncompatible,  // a workload is not in it, or its stored fingerprint does not match
};

/// "used", "missing", "unreadable", "incompatible".
const char* StoredBaselineStatusName(StoredBaselineStatus s);
/// The inverse of StoredBaselineStatusName; false for any other text.
bool ParseStoredBaselineStatus(const std::string& name, StoredBaselineStatus* s);

struct StoredBaselineUse {
  std::string path;
  StoredBaselineStatus status = StoredBaselineStatus::kUsed;
  std::string problem;  // why it was not used; empty when it was
};

/// The options that decide what a suite's comparison measures, beside the
/// report's own figures (backend, event, margin, repeat, timed): what
/// `merge` requires to be the same in every part.
struct RunSettings {
  std::string suite;               // as given; empty for an ad hoc command
  std::string suite_sha256;        // of the suite file as read; empty for an ad hoc command
  /// The ad hoc workload's argv as it runs ({exe} for the build, `compare
  /// -- ARGS`); empty for a suite. Its workload's `command` is the same:
  /// the reports show it once, as the ad hoc run's.
  std::vector<std::string> command;
  std::string stability = "auto";  // --stability
  int max_repeat = 10;
  std::string explain = "work-added";  // --explain, as ExplainModeName names it
  int explain_top = 10;
  std::string events = "work";  // --events, as EventsModeName names it
  bool as_is = false;
  std::vector<std::string> env;  // --env KEY=VALUE, as given
  std::vector<std::string> pass_env;
};

/// The most shards a suite may be split into.
inline constexpr int kMaxShards = 1000;

/// A part of a sharded comparison (`compare --shard I/N`).
struct ShardInfo {
  int index = 1;  // 1-based
  int count = 1;
  /// Every selected workload of the whole suite, in suite order: the share
  /// of shard I is those at positions p with p % count == index - 1
  /// (workload/shard.h), so merge knows what a missing shard held.
  std::vector<std::string> workloads;
  /// SHA-256 of the --baseline build (or of the --baseline-results file) and
  /// of the --candidate build; "" where it is no readable regular file. The
  /// parts of one run measured the same builds.
  std::string baseline_sha256;
  std::string candidate_sha256;
};

/// How a merged report was made (`workgate merge`).
struct MergeInfo {
  int shards = 0;
  std::vector<std::string> parts;  // the part files, in shard order
};

struct CompareReport {
  /// 2: timed slots and the two-test timed context (stats/timed_context.h);
  /// 3: the result store (`store`, each side's `from_store`); 4: what the
  /// counted runs met unpinned (`deterministic`, `unpinned`, per workload
  /// and per side); 5: what the candidate could reach (`candidate_reach`);
  /// 6: the ad hoc workload's command (`settings.command`) and a score
  /// changed on purpose (`previous_score`, `score_changed` per workload);
  /// 7: the explanation's `stored_baseline` and its rows' `lines`; 8: the
  /// timed ratio held against the count (`timing_vs_count` per workload); 9:
  /// the simulated events (each side's `simulated`, each workload's `metric`
  /// and `events`, `settings.events`, the explanation's `simulated` and its
  /// rows' and lines' `events`), an explanation row's `renamed_from`, its
  /// lines' `numbering`, `changed` and `folded`, the verdict `accepted` and
  /// each workload's `accepted` entry, the threads of an unstable
  /// workload and its program's way of running on one (`thread_hint`); 10:
  /// each workload's `command`.
  int schema_version = kCompareSchemaVersion;
  std::string workgate_version;
  Verdict verdict = Verdict::kOk;  // the suite's worst
  int exit_code = kExitPass;
  std::string backend;         // which backend counted
  std::string backend_reason;  // why the probe chose it
  std::string event;
  double max_work_added = 0.01;
  int repeat = 1;
  int timed_samples = 1;
  uint64_t timed_seed = 0;     // of the bootstrap intervals: with the samples, they can be redone
  std::string baseline_label;  // path or stored-results file given
  std::string candidate_label;
  /// --note TEXT: what the caller (a CI workflow) wants said beside the verdict.
  std::vector<std::string> notes;
  std::optional<StoredBaselineUse> stored_baseline;  // with --baseline-results only
  /// The result store this run used ("" with --no-store, or when none could
  /// be opened), and what went wrong with it: workgate then counted without it.
  std::string store;
  std::vector<std::string> store_notes;
  /// What the candidate could reach of its own count and of workgate's
  /// files, each with why (measure/containment.h); empty: nothing.
  std::vector<std::string> candidate_reach;
  /// --record REF: the commit or label the candidate's results were
  /// recorded under; "" when they were not.
  std::string recorded_as;
  /// --flamegraph FILE with --flamegraph-link URL, once the page is written:
  /// its file name and where it is kept (a CI run's artifacts), which the
  /// Markdown comment links; both empty otherwise. In no other report.
  std::string flame_graph_file;
  std::string flame_graph_link;
  /// The --json report's path as given (not "-"), and --report-link URL:
  /// where a CI keeps it. The comment's accept command points at it. In no
  /// other report.
  std::string json_file;
  std::string report_link;
  RunSettings settings;
  std::optional<ShardInfo> shard;   // with --shard only
  std::optional<MergeInfo> merged;  // written by `workgate merge` only
  std::vector<WorkloadResult> workloads;
};

}  // namespace workgate
