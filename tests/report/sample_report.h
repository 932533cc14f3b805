#pragma once
// Fixed comparisons the renderer tests share: every figure is set by hand (or
// by the gate's own functions from hand-set counts), so the rendered text is
// stable and can be compared with the files in testdata/.

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <numeric>
#include <string>

#include "decision/decision.h"
#include "decision/stability.h"
#include "measure/timed_runs.h"
#include "model/model.h"
#include "report/snapshot.h"
#include "stats/timed_context.h"

namespace workgate::testing_report {

inline Fingerprint CallgrindPrint(const std::string& name) {
  Fingerprint fp;
  fp.workgate_version = "0.1.0";
  fp.backend = "callgrind";
  fp.event = "Ir";
  fp.cpu_model = "Intel Xeon Processor (Icelake)";
  fp.kernel = "6.1.0-13-amd64";
  fp.valgrind_version = "3.19.0";
  fp.ld_so_cache_sha256 = std::string(64, 'c');
  fp.argv = {"./exe", "--workload", name};
  fp.env = {{"WORKGATE_FIXED_CLOCK", "1"}};
  fp.suite_sha256 = std::string(64, 'd');
  return fp;
}

inline WorkloadResult Counted(const std::string& name, std::vector<uint64_t> base,
                              std::vector<uint64_t> cand) {
  WorkloadResult w;
  w.name = name;
  w.baseline.counts = std::move(base);
  w.candidate.counts = std::move(cand);
  w.baseline.fingerprint = w.candidate.fingerprint = CallgrindPrint(name);
  w.baseline.fingerprint.binary_sha256 = std::string(64, 'a');
  w.candidate.fingerprint.binary_sha256 = std::string(64, 'b');
  return w;
}

/// A suite counted under callgrind, shaped like a real pull request's comment:
/// one workload over the margin (with an explanation), three within it (one
/// with an asserted score), one invalid; one timed run per side.
inline CompareReport CallgrindReport() {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "callgrind";
  r.backend_reason = "this runner's hypervisor does not expose a PMU (perf_event_open -> ENOENT)";
  r.event = "Ir";
  r.baseline_label = "build/main";
  r.candidate_label = "build/pr";

  WorkloadResult fib = Counted("interp/fib", {1'204'331'907}, {1'241'690'215});
  fib.baseline.timed = {{std::nullopt, 1.84}};
  fib.candidate.timed = {{std::nullopt, 1.91}};
  Explanation e;
  e.rows = {
      {"vm_dispatch",
       "",
       610'004'112,
       641'204'330,
       {},
       // The first line's text and link as a checkout gives them (a hostile
       // text: a backtick, a pipe and markup, shown literally); the second
       // line is in a file git does not track, so it has neither.
       {{"/src/wgi/vm.c", 212, 300'000'000, 331'200'218, "wgi/vm.c",
         "op = `code[pc] | <b>mask</b>`;", "https://github.com/o/wgi/blob/f00d/wgi/vm.c#L212"},
        {"/src/wgi/gen.c", 240, 12'000, 2'000}}},
      // value_add's cold part is no longer inlined into vm_dispatch.
      {"value_add",
       "wgi",
       88'000'020,
       94'158'110,
       {"value_add", "value_add.constprop.0", "value_add.part.0.cold"},
       {},
       {{"vm_dispatch", "", 0, 412'000, 610'004'112, 641'204'330}}}};
  e.total_delta = 37'358'308;
  e.profiler = "vgcount";  // from the counting runs
  fib.explanation = e;

  WorkloadResult strings = Counted("interp/strings", {388'120'554}, {388'120'554});
  strings.baseline.timed = {{std::nullopt, 0.5234}};
  strings.candidate.timed = {{std::nullopt, 0.5301}};

  WorkloadResult sort = Counted("interp/sort", {902'550'118}, {901'113'020});

  WorkloadResult kernels = Counted("kernels", {4'100'224'861}, {4'100'224'861});
  kernels.expected_score = "10.000";
  kernels.baseline.score = kernels.candidate.score = "10.000";
  kernels.baseline.timed = {{1843.25, 3.2}};
  kernels.candidate.timed = {{1790.5, 3.31}};

  WorkloadResult gc = Counted("interp/gc", {500'000'000}, {});
  gc.candidate.error = "exited with status 1 | stderr: out of memory";

  r.workloads = {fib, strings, sort, kernels, gc};
  // Each with its command as the suite gives it; two read a script beside it.
  const std::vector<std::vector<std::string>> commands = {
      {"{exe}", "{suite_dir}/scripts/fib.wg", "30"},
      {"{exe}", "{suite_dir}/scripts/strings.wg"},
      {"{exe}", "--sort", "quick sort"},
      {"{exe}", "--kernels", "all"},
      {"{exe}", "--gc", "--heap=64M"}};
  for (size_t i = 0; i < r.workloads.size(); ++i) r.workloads[i].command = commands[i];
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideSuite(&r);
  return r;
}

/// CallgrindReport's first workload alone, its command `{exe} 30`; with
/// `ad_hoc`, the one workload of `compare -- 30`, whose command the run's
/// settings hold too.
inline CompareReport OneCommandReport(bool ad_hoc) {
  CompareReport r = CallgrindReport();
  r.workloads.resize(1);
  r.workloads[0].command = {"{exe}", "30"};
  if (ad_hoc) r.settings.command = r.workloads[0].command;
  DecideSuite(&r);
  return r;
}

/// One workload of a stripped interpreter (Debian's lua5.4): nearly all of
/// the delta is in its code without a symbol, and the explanation says which
/// file that is and how to get names for it.
inline CompareReport StrippedReport() {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "vgcount";
  r.backend_reason = "requested";
  r.event = "Ir";
  WorkloadResult fib = Counted("lua/fib", {1'000'000'000}, {1'040'000'000});
  Explanation e;
  e.rows = {{"(code without a symbol)", "lua5.4", 900'000'000, 948'360'000},
            {"__memmove_avx_unaligned_erms", "libc.so.6", 20'000'000, 11'640'000}};
  e.total_delta = 40'000'000;
  e.profiler = "callgrind";
  e.rerun = {"baseline", "candidate"};  // the perf backend keeps no profile
  const std::string id = "1061f95d5cf9242924aac24fb75ecdcab7eac0e6";
  e.missing_symbols = {{"lua5.4",
                        48'360'000,
                        {{"/usr/bin/lua5.4", "both", id,
                          "/usr/lib/debug/.build-id/10/" + id.substr(2) + ".debug", false}}}};
  fib.explanation = e;
  r.workloads = {fib};
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideSuite(&r);
  return r;
}

/// A Lua-like pull request explained against its source base: a function
/// renamed (one row, said as a rename), a dispatch loop whose `vmbreak;`
/// lines trade the merged dispatch code (folded into one line), lines the
/// diff changed (marked), a baseline line the candidate removed (in the
/// baseline's numbering, with the baseline's text), and code a JIT wrote.
inline CompareReport ExplainedLinesReport() {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "vgcount";
  r.backend_reason = "requested";
  r.event = "Ir";
  WorkloadResult fib = Counted("lua/fib", {433'000'000}, {443'000'000});
  Explanation e;
  FunctionDelta vm{"luaV_execute", "{exe}", 300'000'000, 310'000'000};
  // 1899 gained +10,000,012 and 1854 lost -10,000,007: summed, +5.
  LineDelta other{"/src/lua/lvm.c",
                  1854,
                  10'000'007,
                  0,
                  "lvm.c",
                  "vmbreak;",
                  "https://github.com/o/lua/blob/f00d/lvm.c#L1854"};
  other.changed = false;
  LineDelta vmbreak{"/src/lua/lvm.c",
                    1899,
                    10'000'007,
                    10'000'012,
                    "lvm.c",
                    "vmbreak;",
                    "https://github.com/o/lua/blob/f00d/lvm.c#L1899"};
  vmbreak.changed = false;
  vmbreak.folded = {other};
  LineDelta added{"/src/lua/lvm.c",
                  1210,
                  0,
                  9'000'000,
                  "lvm.c",
                  "if (l_unlikely(trap)) {",
                  "https://github.com/o/lua/blob/f00d/lvm.c#L1210"};
  added.changed = true;
  LineDelta removed{"/src/lua/lvm.c", 1207, 1'000'000, 0, "lvm.c", "updatetrap(ci);"};
  removed.baseline_only = true;
  removed.numbering = kBaselineNumbering;
  removed.changed = true;
  vm.lines = {added, removed, vmbreak};
  FunctionDelta alloc{"luaL_alloc", "{exe}", 5'000'000, 5'000'400};
  alloc.renamed_from = "l_alloc";
  e.rows = {
      vm,
      alloc,
      {"(code generated at run time: JIT or anonymous mapping)", "???", 2'000'000, 1'999'600}};
  e.total_delta = 10'000'000;
  e.profiler = "vgcount";
  fib.explanation = e;
  r.workloads = {fib};
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideSuite(&r);
  return r;
}

/// A pull request that changes a score on purpose (the suite's
/// score.previous): `wgmark` prints 12.500 where its base printed 10.000 and
/// adds work within the margin, `interp/fib` prints 55 for 34 and adds work
/// over it; `kernels` has a previous score too, but both sides print the new
/// one (the change is in the base already): an ordinary row.
inline CompareReport ScoreChangeReport() {
  CompareReport r = CallgrindReport();  // its header, other workloads
  auto scored = [](WorkloadResult w, const std::string& expect, const std::string& previous,
                   const std::string& base, const std::string& cand) {
    w.expected_score = expect;
    w.previous_score = previous;
    w.baseline.score = base;
    w.candidate.score = cand;
    return w;
  };
  r.workloads = {
      scored(Counted("wgmark", {75'224'175}, {75'374'623}), "12.500", "10.000", "10.000", "12.500"),
      scored(Counted("interp/fib", {57'636'471}, {61'885'671}), "55", "34", "34", "55"),
      scored(Counted("kernels", {4'100'224'861}, {4'100'224'861}), "10.000", "8.000", "10.000",
             "10.000")};
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideSuite(&r);
  return r;
}

/// Gives the workloads `ws` `pairs` timed samples per side in the order
/// compare runs them (measure/timed_runs.h): sample i of a side is
/// `sample(its workload's index in ws, baseline, i, its slot)`.
inline void TimeInRunOrder(const std::vector<WorkloadResult*>& ws, int pairs,
                           const std::function<TimedSample(size_t, bool, int, int)>& sample) {
  std::vector<size_t> order(ws.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::array<int, 2>> next(ws.size());  // each side's sample that runs next
  const std::vector<TimedSlot> schedule = TimedSchedule(order, pairs, true);
  for (size_t slot = 0; slot < schedule.size(); ++slot) {
    const TimedSlot& t = schedule[slot];
    if (t.warm_up) continue;
    const int i = next[t.workload][t.baseline ? 0 : 1]++;
    SideResult& side = t.baseline ? ws[t.workload]->baseline : ws[t.workload]->candidate;
    side.timed.push_back(sample(t.workload, t.baseline, i, static_cast<int>(slot)));
  }
}

/// A suite counted with perf: three repeats with a spread, one workload
/// inconclusive and one with work removed, twelve timed runs per side in the
/// order compare runs them, with the timed context: parse/json 10% slower by
/// the wall clock, one of its candidate's runs a stall; parse/xml scoring 1%
/// more, which its baseline's own runs spread wider than.
inline CompareReport PerfReport() {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "perf";
  r.backend_reason = "perf_event_open counts instructions:u on this machine.";
  r.event = "instructions:u";
  r.repeat = 3;
  r.timed_samples = 12;
  r.timed_seed = 1;
  r.max_work_added = 0.01;

  auto perf = [](WorkloadResult* w) {
    for (SideResult* s : {&w->baseline, &w->candidate}) {
      s->fingerprint.backend = "perf";
      s->fingerprint.event = "instructions:u";
      s->fingerprint.valgrind_version = "";
    }
  };
  WorkloadResult json =
      Counted("parse/json", {1'000'000, 1'000'050, 1'000'020}, {1'009'000, 1'010'500, 1'009'900});
  WorkloadResult xml =
      Counted("parse/xml", {2'000'000, 2'000'010, 2'000'004}, {1'900'000, 1'900'020, 1'900'003});
  perf(&json);
  perf(&xml);
  const double base[] = {2.00, 2.10, 1.95, 2.05, 2.02, 1.98, 2.07, 2.01, 1.99, 2.04, 2.03, 1.97};
  const double cand[] = {2.20, 2.28, 2.16, 2.27, 2.21, 2.19, 2.30, 5.90, 2.18, 2.25, 2.24, 2.17};
  TimeInRunOrder({&json, &xml}, 12, [&](size_t w, bool baseline, int i, int at) -> TimedSample {
    if (w == 0) return {std::nullopt, baseline ? base[i] : cand[i], at};
    return {(baseline ? 100.0 : 101.0) + i % 4 * (i % 2 ? 1 : -1), base[i], at};
  });
  r.workloads = {json, xml};
  DecideTimedContext(&r.workloads, r.timed_seed);
  for (WorkloadResult& w : r.workloads) Decide(&w);
  // The work removed brings the machine's own branch and cache misses; the
  // candidate's cache-misses counter was shared (multiplexed).
  r.workloads[1].hardware = HardwareEvents{
      {{"branch-misses:u", 52'000, 31'200, false, false},
       {"cache-misses:u", 8'000, 8'400, false, true}},
      ""};
  DecideSuite(&r);
  return r;
}

/// A suite counted with vgcount whose candidate does its work only when it
/// is not counted: `interp/fib` counts the same on both sides but runs 2.9
/// times as long natively, beyond the factor of 2 the count allows, while
/// `wgmark`'s timing, 2% slower at the same count, agrees with its count.
/// Twelve timed runs per side in the order compare runs them, decided after
/// the counts, as compare does.
inline CompareReport TimingVsCountReport() {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "vgcount";
  r.backend_reason = "requested";
  r.event = "Ir";
  r.timed_samples = 12;
  r.timed_seed = 1;
  WorkloadResult fib = Counted("interp/fib", {1'204'331'907}, {1'204'331'907});
  WorkloadResult mark = Counted("wgmark", {75'224'175}, {75'224'175});
  for (WorkloadResult* w : {&fib, &mark}) {
    for (SideResult* s : {&w->baseline, &w->candidate}) s->fingerprint.backend = "vgcount";
  }
  const double base[] = {0.101, 0.104, 0.099, 0.102, 0.100, 0.103,
                         0.098, 0.101, 0.102, 0.100, 0.099, 0.103};
  const double spread[] = {1.00, 1.01, 0.99, 1.02, 1.00, 0.98, 1.01, 1.00, 0.99, 1.01, 1.02, 1.00};
  const double effect[] = {2.9, 1.02};
  TimeInRunOrder({&fib, &mark}, 12, [&](size_t w, bool baseline, int i, int at) -> TimedSample {
    return {std::nullopt, baseline ? base[i] : base[i] * effect[w] * spread[i], at};
  });
  r.workloads = {fib, mark};
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideTimedContext(&r.workloads, r.timed_seed);
  DecideSuite(&r);
  return r;
}

/// A suite counted with vgcount where zstd's default threads made one
/// workload unstable: `zstd/l1` met 5 threads and was counted four times a
/// side, with the hint that names zstd's --single-thread; `zstd/l19`, one
/// thread, once a side.
inline CompareReport ThreadedReport() {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "vgcount";
  r.backend_reason = "requested";
  r.event = "Ir";
  WorkloadResult l1 = Counted("zstd/l1", {412'000'100, 412'003'900, 412'001'700, 412'000'900},
                              {422'600'300, 422'604'100, 422'601'200, 422'602'800});
  WorkloadResult l19 = Counted("zstd/l19", {3'100'000'000}, {3'100'000'000});
  for (WorkloadResult* w : {&l1, &l19}) {
    for (SideResult* s : {&w->baseline, &w->candidate}) s->fingerprint.backend = "vgcount";
  }
  for (SideResult* s : {&l1.baseline, &l1.candidate}) {
    s->unpinned = {"5 threads (the schedule decides which thread reads what)"};
  }
  l1.stability.checked = l1.stability.unstable = true;
  l1.stability.trigger = "its runs met what nothing pins";
  MeasureSpread(l1, &l1.stability.spread, &l1.stability.spread_ppm);
  l1.thread_hint = ThreadHint{5, ThreadRuntime::kZstd};
  l19.baseline.deterministic = l19.candidate.deterministic = true;
  r.workloads = {l1, l19};
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideSuite(&r);
  return r;
}

/// A comparison with `h` everywhere text from a suite, a program's output or
/// a candidate's binary can go: four workloads (one named `h`, explained and
/// timed, with `h` as its asserted score, function, object, clone names, and
/// object and path of a file without symbols; one with `h` as its reason; one
/// whose printed score is `h`; one whose explanation failed with `h`), and `h`
/// as both labels, as the caller's note, and as arguments of the first
/// workload's command.
inline CompareReport HostileReport(const std::string& h) {
  CompareReport r = testing_report::CallgrindReport();
  r.baseline_label = h;
  r.candidate_label = h;
  r.notes = {h};
  // Work added, explained, timed: its name shows in the table, the
  // explanation's summary and the timed table.
  WorkloadResult named = Counted(h, {1000}, {2000});
  named.baseline.timed = {{std::nullopt, 1.0}};
  named.candidate.timed = {{std::nullopt, 1.1}};
  Decide(&named);
  named.expected_score = h;
  named.command = {"{exe}", h, "--in={suite_dir}/" + h};
  Explanation e;
  e.rows = {{h, h, 10, 1010, {h, h + ".cold", "x" + h}, {{"/src/" + h, 7, 10, 1010}}}};
  e.total_delta = 1000;
  e.missing_symbols = {
      {h, 1000, {{h, "candidate", "00ff", "/usr/lib/debug/.build-id/00/ff.debug", false}}}};
  named.explanation = e;
  // An invalid workload whose reason is the hostile text itself.
  WorkloadResult reason = Counted("reason", {1000}, {});
  Decide(&reason);
  reason.reason = h;
  // A printed score the gate quotes in its own reason.
  WorkloadResult score = Counted("score", {1000}, {1000});
  score.expected_score = "10";
  score.baseline.score = "10";
  score.candidate.score = h;
  Decide(&score);
  // An explanation that failed, with the hostile text as its error.
  WorkloadResult failed = Counted("failed", {1000}, {2000});
  Decide(&failed);
  failed.explanation = Explanation{};
  failed.explanation->error = h;
  r.workloads = {named, reason, score, failed};
  DecideSuite(&r);
  return r;
}

/// A suite whose pull request accepted work (decision/decision.h): one
/// workload within its accepted delta, one beyond it, one whose entry is
/// stale (its baseline does the accepted work already), and one adding work
/// with no entry, whose accept command the reports give; the JSON report is
/// kept where --report-link says.
inline CompareReport AcceptedReport() {
  CompareReport r = CallgrindReport();
  r.settings.suite = "bench/suite.toml";
  r.json_file = "out/report.json";
  r.report_link = "https://github.com/o/wgi/actions/runs/42";
  auto accepting = [](WorkloadResult w, uint64_t baseline, int64_t delta) {
    AcceptedWork e;
    e.reason = "cmov instead of an unpredictable branch";
    e.delta = delta;
    e.baseline_count = baseline;
    e.backend = "callgrind";
    e.event = "Ir";
    e.workload_digest = std::string(64, 'd');
    e.baseline_sha256 = std::string(64, 'a');
    e.candidate_sha256 = std::string(64, 'b');
    w.accepted = Acceptance{e};
    return w;
  };
  r.workloads = {
      accepting(Counted("parse/cmov", {1'000'000}, {1'025'800}), 1'000'000, 25'800),
      accepting(Counted("parse/grown", {2'000'000}, {2'100'000}), 2'000'000, 40'000),
      accepting(Counted("parse/merged", {1'025'800}, {1'025'800}), 1'000'000, 25'800),
      Counted("parse/new", {500'000}, {550'000})};
  for (WorkloadResult& w : r.workloads) Decide(&w);
  DecideSuite(&r);
  return r;
}

}  // namespace workgate::testing_report
