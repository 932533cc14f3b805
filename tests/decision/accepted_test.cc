// The decision with an accepted entry (decision/decision.h), `accept`'s own
// checks (decision/accept.h), and merge deciding the same from its parts.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decision/accept.h"
#include "decision/decision.h"
#include "decision/make_workload.h"
#include "decision/merge.h"

namespace workgate {
namespace {

using testing::MakeWorkload;

const std::string kDigest(64, 'd');

// A workload of 1,000,000 baseline instructions and `candidate`, counted by
// `backend`, with an entry that accepts `delta` against `baseline`.
WorkloadResult Accepting(uint64_t candidate, int64_t delta, uint64_t baseline = 1000000,
                         const std::string& backend = "vgcount") {
  WorkloadResult w = MakeWorkload({1000000}, {candidate});
  for (SideResult* s : {&w.baseline, &w.candidate}) {
    s->fingerprint.backend = backend;
    s->fingerprint.event = backend == "perf" ? "instructions:u" : "Ir";
    s->fingerprint.suite_sha256 = kDigest;
  }
  AcceptedWork e;
  e.reason = "cmov instead of a branch";
  e.delta = delta;
  e.baseline_count = baseline;
  e.backend = backend;
  e.event = backend == "perf" ? "instructions:u" : "Ir";
  e.workload_digest = kDigest;
  w.accepted = Acceptance{e};
  return w;
}

TEST(AcceptedDecisionTest, WorkAddedWithinTheAcceptedDeltaPassesWithTheReason) {
  WorkloadResult w = Accepting(1050000, 50000);
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kAccepted);
  EXPECT_EQ(w.accepted->status, AcceptedStatus::kApplied);
  EXPECT_EQ(ExitCodeFor(w.verdict), kExitPass);
  EXPECT_EQ(w.reason.rfind("work added, accepted: cmov instead of a branch (", 0), 0u) << w.reason;
  EXPECT_NE(w.reason.find("accepted +5.00% (+50000 instructions), now +5.00%"), std::string::npos)
      << w.reason;
  // The delta is the counts' as ever.
  EXPECT_EQ(w.delta, 50000);
}

TEST(AcceptedDecisionTest, WithinMeansAtMostTheAcceptedDeltaPlusTheMargin) {
  // 0.99% beyond what was accepted, against a 1% margin: still accepted.
  WorkloadResult within = Accepting(1059900, 50000);
  Decide(&within);
  EXPECT_EQ(within.verdict, Verdict::kAccepted) << within.reason;
  // Exactly the margin beyond it: work added again, saying both.
  WorkloadResult beyond = Accepting(1060000, 50000);
  Decide(&beyond);
  EXPECT_EQ(beyond.verdict, Verdict::kWorkAdded);
  EXPECT_EQ(beyond.accepted->status, AcceptedStatus::kExceeded);
  EXPECT_EQ(beyond.reason,
            "accepted +5.00% (+50000 instructions), now +6.00%: +1.00% beyond the accepted "
            "delta >= 1.00% margin");
  EXPECT_EQ(ExitCodeFor(beyond.verdict), kExitWorkAdded);
  // Less work than accepted passes too.
  WorkloadResult less = Accepting(1030000, 50000);
  Decide(&less);
  EXPECT_EQ(less.verdict, Verdict::kAccepted);
}

TEST(AcceptedDecisionTest, AnExcessThatStraddlesTheMarginIsInconclusive) {
  WorkloadResult w = Accepting(1060000, 50000);
  w.candidate.counts = {1055000, 1065000};  // the excess spans +0.5% to +1.5%
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInconclusive);
  EXPECT_EQ(w.accepted->status, AcceptedStatus::kInconclusive);
  EXPECT_NE(w.reason.find("straddles the 1.00% margin"), std::string::npos) << w.reason;
}

TEST(AcceptedDecisionTest, AnEntryOfAnotherBaselineIsStaleAndChangesNothing) {
  // The next pull request's baseline does the accepted work already.
  WorkloadResult w = Accepting(1100000, 50000);
  w.baseline.counts = {1050000};
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kWorkAdded);
  EXPECT_EQ(w.accepted->status, AcceptedStatus::kStale);
  EXPECT_EQ(w.accepted->problem,
            "it was accepted against a baseline of 1000000 instructions, and this baseline "
            "counts 1050000");
  EXPECT_EQ(w.reason.find("accepted"), std::string::npos) << w.reason;

  WorkloadResult ok = Accepting(1050000, 50000);
  ok.baseline.counts = {1050000};
  Decide(&ok);
  EXPECT_EQ(ok.verdict, Verdict::kOk);
  EXPECT_EQ(ok.accepted->status, AcceptedStatus::kStale);
}

TEST(AcceptedDecisionTest, AnotherBackendEventOrDefinitionMakesItStale) {
  WorkloadResult backend = Accepting(1050000, 50000);
  backend.accepted->entry.backend = "callgrind";
  Decide(&backend);
  EXPECT_EQ(backend.verdict, Verdict::kWorkAdded);
  EXPECT_EQ(backend.accepted->status, AcceptedStatus::kStale);
  EXPECT_NE(backend.accepted->problem.find("counted by callgrind (Ir)"), std::string::npos);

  WorkloadResult event = Accepting(1050000, 50000);
  event.accepted->entry.event = "Dr";
  Decide(&event);
  EXPECT_EQ(event.accepted->status, AcceptedStatus::kStale);

  WorkloadResult definition = Accepting(1050000, 50000);
  definition.accepted->entry.workload_digest = std::string(64, 'e');
  Decide(&definition);
  EXPECT_EQ(definition.verdict, Verdict::kWorkAdded);
  EXPECT_EQ(definition.accepted->status, AcceptedStatus::kStale);
  EXPECT_NE(definition.accepted->problem.find("another definition"), std::string::npos);
}

TEST(AcceptedDecisionTest, OnPerfTheBaselineMayLieWithin100Ppm) {
  WorkloadResult near = Accepting(1050060, 50000, 1000000, "perf");
  near.baseline.counts = {1000060};  // 60 ppm from the accepted baseline
  Decide(&near);
  EXPECT_EQ(near.verdict, Verdict::kAccepted) << near.accepted->problem;

  WorkloadResult far = Accepting(1050200, 50000, 1000000, "perf");
  far.baseline.counts = {1000200};  // 200 ppm
  Decide(&far);
  EXPECT_EQ(far.accepted->status, AcceptedStatus::kStale);

  // On Valgrind one instruction is another baseline.
  WorkloadResult exact = Accepting(1050001, 50000);
  exact.baseline.counts = {1000001};
  Decide(&exact);
  EXPECT_EQ(exact.accepted->status, AcceptedStatus::kStale);
}

TEST(AcceptedDecisionTest, UnneededWithinTheMarginAndUncheckedWhenInvalid) {
  WorkloadResult ok = Accepting(1005000, 50000);
  Decide(&ok);
  EXPECT_EQ(ok.verdict, Verdict::kOk);
  EXPECT_EQ(ok.accepted->status, AcceptedStatus::kUnneeded);

  WorkloadResult invalid = Accepting(1050000, 50000);
  invalid.candidate.error = "exit 1";
  Decide(&invalid);
  EXPECT_EQ(invalid.verdict, Verdict::kInvalid);
  EXPECT_EQ(invalid.accepted->status, AcceptedStatus::kUnchecked);
}

TEST(AcceptedDecisionTest, AcceptedRanksBetweenInconclusiveAndOkAndExitsZero) {
  auto suite = [](std::vector<Verdict> verdicts) {
    std::vector<WorkloadResult> ws;
    for (Verdict v : verdicts) {
      ws.emplace_back();
      ws.back().verdict = v;
    }
    return std::pair{SuiteVerdict(ws), SuiteExitCode(ws)};
  };
  EXPECT_EQ(suite({Verdict::kOk, Verdict::kAccepted}), std::pair(Verdict::kAccepted, 0));
  EXPECT_EQ(suite({Verdict::kWorkRemoved, Verdict::kAccepted}), std::pair(Verdict::kAccepted, 0));
  EXPECT_EQ(suite({Verdict::kAccepted, Verdict::kInconclusive}),
            std::pair(Verdict::kInconclusive, 4));
  EXPECT_EQ(suite({Verdict::kAccepted, Verdict::kWorkAdded}), std::pair(Verdict::kWorkAdded, 1));
  Verdict parsed = Verdict::kInvalid;
  EXPECT_TRUE(ParseVerdict("accepted", &parsed));
  EXPECT_EQ(parsed, Verdict::kAccepted);
}

TEST(AcceptEntryTest, TakesTheDeltaAndWhatTheBaselineIsKnownBy) {
  WorkloadResult w = Accepting(1050000, 0);
  w.accepted.reset();
  w.baseline.fingerprint.binary_sha256 = std::string(64, 'b');
  w.candidate.fingerprint.binary_sha256 = std::string(64, 'c');
  Decide(&w);
  AcceptedWork e;
  std::string err;
  ASSERT_TRUE(AcceptEntryFor(w, kDigest, "why", &e, &err)) << err;
  EXPECT_EQ(e.reason, "why");
  EXPECT_EQ(e.delta, 50000);
  EXPECT_EQ(e.baseline_count, 1000000u);
  EXPECT_EQ(e.backend, "vgcount");
  EXPECT_EQ(e.event, "Ir");
  EXPECT_EQ(e.workload_digest, kDigest);
  EXPECT_EQ(e.baseline_sha256, std::string(64, 'b'));
  EXPECT_EQ(e.candidate_sha256, std::string(64, 'c'));
  // A workload an entry passes already is accepted again from its counts.
  WorkloadResult again = Accepting(1050000, 45000);
  Decide(&again);
  ASSERT_EQ(again.verdict, Verdict::kAccepted);
  ASSERT_TRUE(AcceptEntryFor(again, kDigest, "why", &e, &err)) << err;
  EXPECT_EQ(e.delta, 50000);
}

TEST(AcceptEntryTest, RefusesWhatIsNotWorkAddedAndAnotherDefinition) {
  AcceptedWork e;
  std::string err;
  WorkloadResult ok = Accepting(1005000, 0);
  ok.accepted.reset();
  EXPECT_FALSE(AcceptEntryFor(ok, kDigest, "why", &e, &err));
  EXPECT_NE(err.find("workload 'w' is ok (+0.50% < 1.00% margin): the gate passes it already"),
            std::string::npos)
      << err;
  WorkloadResult removed = Accepting(900000, 0);
  EXPECT_FALSE(AcceptEntryFor(removed, kDigest, "why", &e, &err));
  EXPECT_NE(err.find("is work-removed"), std::string::npos) << err;
  WorkloadResult invalid = Accepting(1050000, 0);
  invalid.baseline.error = "crashed";
  EXPECT_FALSE(AcceptEntryFor(invalid, kDigest, "why", &e, &err));
  EXPECT_NE(err.find("is invalid"), std::string::npos) << err;
  WorkloadResult added = Accepting(1050000, 0);
  EXPECT_FALSE(AcceptEntryFor(added, std::string(64, 'e'), "why", &e, &err));
  EXPECT_NE(err.find("another definition of the workload"), std::string::npos) << err;
}

TEST(AcceptEntryTest, AReasonMustBeWrittenByAPerson) {
  EXPECT_EQ(AcceptReasonProblem("cmov instead of a branch"), "");
  EXPECT_EQ(AcceptReasonProblem("-O3 vectorises: more instructions, fewer cycles"), "");
  EXPECT_NE(AcceptReasonProblem(""), "");
  EXPECT_NE(AcceptReasonProblem(" \t "), "");
  EXPECT_NE(AcceptReasonProblem(kAcceptReasonPlaceholder), "");
  EXPECT_NE(AcceptReasonProblem(std::string(1001, 'x')), "");
  EXPECT_NE(AcceptReasonProblem("line\nbreak"), "");
  EXPECT_NE(AcceptReasonProblem("bad \xff utf-8"), "");
}

TEST(AcceptEntryTest, AllTakesTheWorkAddedWorkloadsDecidedWithoutTheirEntries) {
  CompareReport r;
  r.workloads = {Accepting(1050000, 50000), Accepting(1005000, 0), Accepting(1100000, 0)};
  r.workloads[0].name = "accepted-now";
  r.workloads[1].name = "ok";
  r.workloads[2].name = "added";
  r.workloads[2].accepted.reset();
  for (WorkloadResult& w : r.workloads) Decide(&w);
  EXPECT_EQ(WorkAddedWorkloads(r), (std::vector<std::string>{"accepted-now", "added"}));
}

TEST(AcceptedMergeTest, MergeDecidesTheAcceptedEntriesOfThePartsAgain) {
  auto part = [](int index, WorkloadResult w) {
    CompareReport r;
    r.workgate_version = "0.1.0";
    r.settings.suite = "suite.toml";
    r.shard = ShardInfo{index, 2, {"a", "b"}, "", ""};
    Decide(&w);
    r.workloads = {w};
    DecideSuite(&r);
    return ReportPart{"part" + std::to_string(index) + ".json", r};
  };
  WorkloadResult a = Accepting(1050000, 50000);
  a.name = "a";
  WorkloadResult b = Accepting(1000000, 0);
  b.name = "b";
  b.accepted.reset();
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards({part(1, a), part(2, b)}, &merged, &missing, &err)) << err;
  EXPECT_EQ(merged.workloads[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(merged.verdict, Verdict::kAccepted);
  EXPECT_EQ(merged.exit_code, kExitPass);
  // A part that says accepted where its entry does not hold is refused.
  ReportPart forged = part(1, a);
  forged.report.workloads[0].accepted->entry.baseline_count = 999999;
  EXPECT_FALSE(MergeShards({forged, part(2, b)}, &merged, &missing, &err));
  EXPECT_NE(err.find("contradicts itself"), std::string::npos) << err;
}

}  // namespace
}  // namespace workgate
