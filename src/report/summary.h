#pragma once
// The sentences and cells the terminal and Markdown reports share, so both
// say the same thing in the same words; only layout and markup differ.

#include <functional>
#include <string>
#include <vector>

#include "model/model.h"
#include "report/format.h"

namespace workgate {

/// "ok", "work added", "work removed", "inconclusive", "invalid", and
/// "work added, accepted".
std::string VerdictLabel(Verdict v);

/// The suite's headline after its verdict label: "1 of 4 workloads over the
/// 1.00% margin", with ", 1 invalid" and ", 1 inconclusive" when any are,
/// and ", timing and count disagree on 1" (TimingDisagreements) too.
std::string HeadlineCounts(const CompareReport& report);

/// The Δ % cell: the relative delta, and the interval from the repeats when
/// its ends differ as printed: "+0.52% (+0.48% to +0.55%)". "" without a delta.
std::string RelativeCell(const WorkloadResult& w, Minus minus);

/// "Valgrind 3.19.0 at /usr/bin/valgrind" from the first fingerprint that
/// names a version, candidates first ("Valgrind 3.19.0" where it names no
/// path), or "".
std::string ValgrindOf(const CompareReport& report);

/// Why the report's backend counted, in a few words for the reports: "as
/// requested", "this machine's PMU", or "no usable hardware counter here;
/// `workgate probe` says why" where Valgrind stood in. The full reason stays
/// in the JSON report (backend_reason) and in `workgate probe`. Chosen
/// among these fixed phrases, never quoting the reason.
std::string BackendWhy(const CompareReport& report);

/// How many counts each side had, over the suite, and how they agreed:
/// "One count per side.", "3 counts per side agree exactly.", "3 counts per
/// side; the widest spread was 12.0 ppm of a count.", or where sides had
/// different numbers (the stability check counts again) "1 to 4 counts per
/// side; ..."; "No side gave a count." Then, where workloads were counted
/// again to check that they repeat, how many did.
std::string RepeatSentence(const CompareReport& report);

/// The count a table shows for a side: its minimum, or for an unstable
/// workload its median (the figure its shift is taken against).
uint64_t ShownCount(const WorkloadResult& w, const SideResult& side);

/// "" for a workload whose counts repeat (or were not checked); for an
/// unstable one: how far counts of one build moved, over how many counts,
/// and what the verdict was taken from; then ShiftNote.
std::string StabilitySentence(const WorkloadResult& w, Minus minus);

/// For an unstable workload, what its Δ is: the shift's estimate, not the
/// difference of the medians the table shows, and where the two differ in
/// sign, both figures ("here the medians differ by -40 while the shift is
/// +50: ..."). "" for a workload whose counts repeat.
std::string ShiftNote(const WorkloadResult& w, Minus minus);

/// What the workload's counted runs met that nothing pinned, by side
/// ("not deterministic by construction: its runs met what nothing pins
/// (candidate: 4 threads (...))"), and whether a work
/// verdict was confirmed by counting again; "" when neither side met any.
std::string UnpinnedSentence(const WorkloadResult& w);

/// Where the functions that moved between two runs of one build belong to
/// a runtime whose hash seed an environment variable fixes, what to set:
/// "Perl_hv_* is Perl's hash table, ...: PERL_HASH_SEED=0 and
/// PERL_PERTURB_KEYS=0 pin it ..."; "" otherwise. Names a known prefix,
/// never the program's own text.
std::string RuntimeSeedHint(const WorkloadResult& w);

/// What an unstable workload whose runs met threads should do (ThreadHint):
/// the thread count, why threads move a Valgrind count, and how its program
/// runs on one thread where it is known ("zstd compresses on one thread with
/// --single-thread ...", "GOMAXPROCS=1", "OMP_NUM_THREADS=1"), else what to
/// look for. Fixed phrases and the count only: no text of the program's.
std::string ThreadHintSentence(const ThreadHint& hint);

/// For a workload whose score changed on purpose (WorkloadResult::
/// score_changed): what each side printed against what the suite expected
/// of it, and that the two sides did different work by design, so the delta
/// includes the change; each printed score as `quote` writes it (the
/// renderer's escaping for its medium). "" for any other workload.
std::string ScoreChangeSentence(const WorkloadResult& w,
                                const std::function<std::string(const std::string&)>& quote);

/// "Functions whose self cost differed between two baseline runs:" (the
/// lead-in to Stability::functions), or "" when there are none.
std::string UnstableFunctionsLead(const WorkloadResult& w);

/// "interp/fib: where the 37.4 M instructions went (callgrind, self cost)",
/// with `shown_name` (w.name as the renderer shows it) in front.
std::string ExplanationTitle(const WorkloadResult& w, const std::string& shown_name);

/// An argv as one shell-like line: each argument as it is where it holds
/// only letters, digits and `_-+./:=,@%{}`, else in single quotes ('a b',
/// an empty one as ''). Plain text for the renderers to escape.
std::string CommandLineText(const std::vector<std::string>& argv);

/// The workloads whose command the reports list, in order: a suite's, each
/// whose command is known. None for an ad hoc run, whose one command the
/// reports show before the table instead (RunSettings::command).
std::vector<const WorkloadResult*> WorkloadsWithCommands(const CompareReport& report);

/// What the placeholders of `workloads`' commands stand for: "{exe} is each
/// side's build", and where one names it ", {suite_dir} the suite file's
/// folder"; each placeholder as `quote` writes it.
std::string PlaceholdersText(const std::vector<const WorkloadResult*>& workloads,
                             const std::function<std::string(const std::string&)>& quote);

/// For a shard: "Shard 2 of 3: 2 of the suite's 5 selected workloads; workgate
/// merge joins the shards' JSON reports."; for a merged report: "Merged from
/// 3 shards."; otherwise "".
std::string ShardSentence(const CompareReport& report);

/// "from the store, counted at REF on 2026-12-01 03:04 UTC", or without a
/// ref "from the store, counted on ... (as LABEL)": plain text to escape.
std::string FromStoreText(const FromStore& from);

/// What the result store did in this run, as plain sentences for the
/// renderers to escape: which sides' counts it gave, grouped by when and
/// where they were counted ("Baseline from the store for 5 of 5 workloads,
/// counted at 1a2b3c4 on 2026-12-01 03:04 UTC."), the --record REF, and
/// what went wrong with it. None when the run used no store and had nothing
/// to say of it.
std::vector<std::string> StoreSentences(const CompareReport& report);

/// The command that accepts workload `w`'s work added as intended
/// (`workgate accept`), for a person to copy: the report's suite, the
/// workload, kAcceptReasonPlaceholder (model/model.h), and the pair: `--report FILE` where
/// the report was written as JSON (the file's name alone where a
/// report_link says a CI keeps it, since the reviewer downloads it there;
/// else the path as given), else the builds as given (`--baseline EXE
/// --candidate EXE`). Each argument a ShellWord (util/text.h): one line of
/// printable ASCII, whatever the suite's name or the paths hold. "" for a
/// workload that is not work-added, an ad hoc command, or a run against a
/// stored baseline without a JSON report.
std::string AcceptCommand(const CompareReport& report, const WorkloadResult& w);

/// What a workload's accepted entry says beside its verdict, where it did not
/// pass it: exceeded or inconclusive (the verdict's reason: what was
/// accepted, what is added now), stale (why it matches no baseline, and to
/// delete it from `suite`) or unneeded (to delete it). Plain text to
/// escape; "" otherwise.
std::string AcceptedNote(const WorkloadResult& w, const std::string& suite);

/// The line on what an instruction count does not see: where a workload
/// shows simulated events, that they estimate it.
std::string BlindSpots(const CompareReport& report);

}  // namespace workgate
