#include "decision/merge.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "decision/decision.h"

namespace workgate {
namespace {

Fingerprint Print() {
  Fingerprint fp;
  fp.workgate_version = "0.1.0";
  fp.backend = "vgcount";
  fp.event = "Ir";
  fp.cpu_model = "AMD EPYC";
  fp.valgrind_version = "valgrind-3.19.0";
  fp.valgrind_path = "/usr/bin/valgrind";
  fp.ld_so_cache_sha256 = std::string(64, 'c');
  fp.libraries = {{"/lib/x86_64-linux-gnu/libc.so.6", std::string(64, 'l')}};
  return fp;
}

const std::vector<std::string> kAll = {"w0", "w1", "w2", "w3", "w4"};

// Workload p of kAll, decided: the odd ones add 10% work.
WorkloadResult Decided(size_t p) {
  WorkloadResult w;
  w.name = kAll[p];
  w.max_work_added = 0.01;
  w.baseline.counts = {1000 + p};
  w.candidate.counts = {1000 + p + (p % 2 ? 100 : 0)};
  w.baseline.fingerprint = w.candidate.fingerprint = Print();
  w.baseline.fingerprint.argv = w.candidate.fingerprint.argv = {"./exe", w.name};
  Decide(&w);
  return w;
}

// Shard `index` of `count` of kAll, as compare --shard writes it.
ReportPart Part(int index, int count, const std::string& path) {
  CompareReport r;
  r.workgate_version = "0.1.0";
  r.backend = "vgcount";
  r.event = "Ir";
  r.settings.suite = "suite.toml";
  r.settings.suite_sha256 = std::string(64, 's');
  r.shard = ShardInfo{index, count, kAll, std::string(64, 'a'), std::string(64, 'b')};
  for (size_t p = 0; p < kAll.size(); ++p) {
    if (InShard(p, {index, count})) r.workloads.push_back(Decided(p));
  }
  DecideSuite(&r);
  return {path, r};
}

std::vector<std::string> Names(const CompareReport& r) {
  std::vector<std::string> names;
  for (const WorkloadResult& w : r.workloads) names.push_back(w.name);
  return names;
}

// The message MergeShards refuses `parts` with ("" when it merges them).
std::string Refusal(const std::vector<ReportPart>& parts) {
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  return MergeShards(parts, &merged, &missing, &err) ? "" : err;
}

TEST(MergeTest, JoinsTheShardsInSuiteOrderAndDecidesTheWhole) {
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards({Part(3, 3, "c.json"), Part(1, 3, "a.json"), Part(2, 3, "b.json")},
                          &merged, &missing, &err))
      << err;
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(Names(merged), kAll);
  for (size_t p = 0; p < kAll.size(); ++p) {
    EXPECT_EQ(merged.workloads[p].verdict, Decided(p).verdict) << p;
    EXPECT_EQ(merged.workloads[p].delta, Decided(p).delta) << p;
  }
  EXPECT_EQ(merged.verdict, Verdict::kWorkAdded);
  EXPECT_EQ(merged.exit_code, kExitWorkAdded);
  EXPECT_FALSE(merged.shard);
  ASSERT_TRUE(merged.merged);
  EXPECT_EQ(merged.merged->shards, 3);
  EXPECT_EQ(merged.merged->parts, (std::vector<std::string>{"a.json", "b.json", "c.json"}));
  EXPECT_EQ(merged.settings.suite, "suite.toml");
}

TEST(MergeTest, TheTimedContextIsDecidedAgainWithTheWholeSuiteAsOneFamily) {
  // Each part timed its share: twelve pairs, the candidate 10% slower in
  // every one, so each part alone says p = 2/4096. A part's own figures are
  // not kept: the merged report decides them again from the samples, with
  // Holm over all five workloads and intervals at 1 - 0.05/5.
  std::vector<ReportPart> parts = {Part(1, 2, "a.json"), Part(2, 2, "b.json")};
  for (ReportPart& part : parts) {
    for (WorkloadResult& w : part.report.workloads) {
      for (int i = 0; i < 12; ++i) {
        w.baseline.timed.push_back({std::nullopt, 2.0 + 0.01 * (i % 3), 2 * i});
        w.candidate.timed.push_back({std::nullopt, 2.2 + 0.011 * (i % 3), 2 * i + 1});
      }
      w.timed_stats = TimedStats{};  // whatever the part said
      w.timed_stats->family = 99;
    }
  }
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards(parts, &merged, &missing, &err)) << err;
  ASSERT_EQ(merged.workloads.size(), 5u);
  for (const WorkloadResult& w : merged.workloads) {
    ASSERT_TRUE(w.timed_stats && w.timed_stats->comparison) << w.name;
    EXPECT_EQ(w.timed_stats->family, 5);
    EXPECT_DOUBLE_EQ(w.timed_stats->comparison->nominal_confidence, 0.99);
    EXPECT_DOUBLE_EQ(w.timed_stats->comparison->p_value, 2.0 / 4096);
    EXPECT_DOUBLE_EQ(w.timed_stats->comparison->p_adjusted, 5 * 2.0 / 4096);
    EXPECT_EQ(w.timed_stats->label, TimedLabel::kSlower);
  }
}

TEST(MergeTest, TheTimingIsHeldAgainstTheCountsOfThePartsCountsAgain) {
  // Each part timed its share: twelve pairs, the candidate 2.9 times as
  // slow as the baseline in every one, with at most 10% work added. The
  // merged report holds the wall times against the counts again, over the
  // whole suite, and takes the count's interval from the counts, not from
  // what a part says of them: w0's part claims +0% to +60%, under which a
  // 2.9 ratio would be within the factor (2 x 1.6).
  std::vector<ReportPart> parts = {Part(1, 2, "a.json"), Part(2, 2, "b.json")};
  for (ReportPart& part : parts) {
    for (WorkloadResult& w : part.report.workloads) {
      for (int i = 0; i < 12; ++i) {
        w.baseline.timed.push_back({std::nullopt, 2.0 + 0.01 * (i % 3), 2 * i});
        w.candidate.timed.push_back({std::nullopt, 5.8 + 0.011 * (i % 3), 2 * i + 1});
      }
      w.timing_vs_count.reset();  // whatever the part said
      if (w.name == "w0") w.relative_high = 0.6;
    }
  }
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards(parts, &merged, &missing, &err)) << err;
  ASSERT_EQ(merged.workloads.size(), 5u);
  for (size_t p = 0; p < merged.workloads.size(); ++p) {
    const WorkloadResult& w = merged.workloads[p];
    ASSERT_TRUE(w.timing_vs_count) << w.name;
    EXPECT_EQ(w.timing_vs_count->family, 5);
    EXPECT_DOUBLE_EQ(w.timing_vs_count->count_high, 1 + Decided(p).relative_high) << w.name;
    EXPECT_EQ(w.timing_vs_count->disagreement, CountDisagreement::kSlower) << w.name;
  }
  EXPECT_EQ(merged.workloads[0].relative_high, 0);
  EXPECT_EQ(merged.exit_code, kExitWorkAdded);  // the counts' verdict, as before
}

TEST(MergeTest, AMissingShardIsNamedAndItsWorkloadsAreInvalid) {
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards({Part(1, 3, "a.json"), Part(3, 3, "c.json")}, &merged, &missing, &err))
      << err;
  EXPECT_EQ(missing, std::vector<std::string>{"shard 2/3 is missing"});
  ASSERT_EQ(Names(merged), kAll);
  for (size_t p : {1u, 4u}) {
    EXPECT_EQ(merged.workloads[p].verdict, Verdict::kInvalid);
    EXPECT_EQ(merged.workloads[p].reason,
              "shard 2/3 is missing: no part gave this workload's result");
  }
  EXPECT_EQ(merged.exit_code, kExitInvalid);
}

TEST(MergeTest, RefusesPartsThatAreNoShardsTwiceTheSameOrSplitOtherwise) {
  ReportPart whole = Part(1, 1, "whole.json");
  whole.report.shard.reset();
  EXPECT_EQ(Refusal({whole}),
            "whole.json is not a shard: it was written without --shard I/N (or by merge)");
  EXPECT_EQ(Refusal({Part(2, 3, "a.json"), Part(1, 3, "b.json"), Part(2, 3, "c.json")}),
            "shard 2/3 is given twice: a.json and c.json");
  EXPECT_EQ(Refusal({Part(1, 3, "a.json"), Part(2, 4, "b.json")}),
            "a.json is shard 1/3 but b.json is shard 2/4: the parts split the suite differently");
  EXPECT_EQ(Refusal({}), "no parts to merge");
}

TEST(MergeTest, RefusesPartsOfAnotherRun) {
  const std::pair<const char*, std::function<void(CompareReport*)>> edits[] = {
      {"its margin is 2%, where a.json's is 1%",
       [](CompareReport* r) { r->max_work_added = 0.02; }},
      {"its backend is callgrind", [](CompareReport* r) { r->backend = "callgrind"; }},
      {"its suite digest is", [](CompareReport* r) { r->settings.suite_sha256 = "other"; }},
      {"its stability is never", [](CompareReport* r) { r->settings.stability = "never"; }},
      {"its repeat is 3", [](CompareReport* r) { r->repeat = 3; }},
      {"its candidate build digest is", [](CompareReport* r) { r->shard->candidate_sha256 = ""; }},
      {"its list of selected workloads is",
       [](CompareReport* r) { r->shard->workloads.push_back("w5"); }},
      {"its stored baseline is base.json",
       [](CompareReport* r) {
         r->stored_baseline = StoredBaselineUse{"base.json", StoredBaselineStatus::kUsed, ""};
       }},
      {"its env is", [](CompareReport* r) { r->settings.env = {"A=1"}; }},
  };
  for (const auto& [message, edit] : edits) {
    ReportPart b = Part(2, 2, "b.json");
    edit(&b.report);
    const std::string err = Refusal({Part(1, 2, "a.json"), b});
    EXPECT_EQ(err.rfind("b.json does not belong with a.json: " + std::string(message), 0), 0u)
        << err;
  }
}

TEST(MergeTest, RefusesAPartThatContradictsItself) {
  ReportPart tampered = Part(2, 2, "b.json");
  tampered.report.workloads[0].verdict = Verdict::kOk;  // w1 adds 10%
  EXPECT_EQ(Refusal({Part(1, 2, "a.json"), tampered}),
            "b.json (shard 2/2) contradicts itself: workload w1 says ok (delta 100), its counts "
            "say work-added (delta 100)");
  tampered = Part(2, 2, "b.json");
  tampered.report.workloads[0].delta = 0;
  EXPECT_NE(Refusal({Part(1, 2, "a.json"), tampered}).find("contradicts itself"),
            std::string::npos);
  tampered = Part(2, 2, "b.json");
  tampered.report.exit_code = kExitPass;
  tampered.report.verdict = Verdict::kOk;
  EXPECT_EQ(Refusal({Part(1, 2, "a.json"), tampered}),
            "b.json (shard 2/2) contradicts itself: it says ok (exit 0), its workloads say "
            "work-added (exit 1)");
  // Shard 1's workloads under shard 2's name.
  ReportPart swapped = Part(1, 2, "b.json");
  swapped.report.shard->index = 2;
  EXPECT_EQ(Refusal({Part(1, 2, "a.json"), swapped}),
            "b.json (shard 2/2) does not hold that shard's share of its suite's workloads");
}

TEST(MergeTest, RefusesSidesMeasuredDifferently) {
  ReportPart b = Part(2, 2, "b.json");
  b.report.workloads[0].candidate.fingerprint.valgrind_version = "valgrind-3.20.0";
  Decide(&b.report.workloads[0]);  // invalid within its part: still one run's evidence
  DecideSuite(&b.report);
  EXPECT_EQ(CheckFingerprints({Part(1, 2, "a.json"), b}),
            "the candidate sides of a.json (workload w0) and b.json (workload w1) were measured "
            "differently: Valgrind version valgrind-3.19.0 against valgrind-3.20.0");
  b = Part(2, 2, "b.json");
  for (auto& w : b.report.workloads) {
    w.baseline.fingerprint.libraries["/lib/x86_64-linux-gnu/libc.so.6"] = std::string(64, 'm');
  }
  EXPECT_NE(CheckFingerprints({Part(1, 2, "a.json"), b})
                .find("the baseline sides of a.json (workload w0) and b.json (workload w1) were "
                      "measured differently: library /lib/x86_64-linux-gnu/libc.so.6"),
            std::string::npos);
  // Valgrind counts do not depend on the CPU model: runners of a pool may differ.
  b = Part(2, 2, "b.json");
  for (auto& w : b.report.workloads) {
    w.baseline.fingerprint.cpu_model = w.candidate.fingerprint.cpu_model = "Intel Xeon";
  }
  EXPECT_EQ(CheckFingerprints({Part(1, 2, "a.json"), b}), "");
  EXPECT_EQ(Refusal({Part(1, 2, "a.json"), b}), "");
  // perf counts do.
  ReportPart a = Part(1, 2, "a.json");
  for (ReportPart* p : {&a, &b}) {
    for (auto& w : p->report.workloads) w.candidate.fingerprint.backend = "perf";
  }
  EXPECT_NE(CheckFingerprints({a, b}).find("CPU model AMD EPYC against Intel Xeon"),
            std::string::npos);
}

TEST(MergeTest, KeepsEachNoteOnceAndTheWorstStoredBaseline) {
  ReportPart a = Part(1, 2, "a.json"), b = Part(2, 2, "b.json");
  a.report.notes = {"baseline: stored by main@abc1234", "one"};
  b.report.notes = {"baseline: stored by main@abc1234", "two"};
  a.report.stored_baseline = StoredBaselineUse{"base.json", StoredBaselineStatus::kUsed, ""};
  b.report.stored_baseline =
      StoredBaselineUse{"base.json", StoredBaselineStatus::kIncompatible, "w1: not comparable"};
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards({b, a}, &merged, &missing, &err)) << err;
  EXPECT_EQ(merged.notes,
            (std::vector<std::string>{"baseline: stored by main@abc1234", "one", "two"}));
  ASSERT_TRUE(merged.stored_baseline);
  EXPECT_EQ(merged.stored_baseline->status, StoredBaselineStatus::kIncompatible);
  EXPECT_EQ(merged.stored_baseline->problem, "w1: not comparable");
}

TEST(MergeTest, AShardWithNoWorkloadIsOkAndMergesAsAnyOther) {
  ReportPart empty = Part(6, 6, "f.json");
  EXPECT_TRUE(empty.report.workloads.empty());
  EXPECT_EQ(empty.report.verdict, Verdict::kOk);
  EXPECT_EQ(empty.report.exit_code, kExitPass);
  std::vector<ReportPart> parts;
  for (int i = 1; i <= 6; ++i) parts.push_back(Part(i, 6, std::to_string(i) + ".json"));
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  ASSERT_TRUE(MergeShards(parts, &merged, &missing, &err)) << err;
  EXPECT_EQ(Names(merged), kAll);
  EXPECT_EQ(merged.exit_code, kExitWorkAdded);
}

TEST(MergeTest, MakeShardInfoDigestsRegularFilesOnly) {
  const ShardInfo s = MakeShardInfo({2, 3}, kAll, "/nonexistent", "/");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.workloads, kAll);
  EXPECT_EQ(s.baseline_sha256, "");
  EXPECT_EQ(s.candidate_sha256, "");  // a directory
  const ShardInfo t = MakeShardInfo({1, 1}, {}, "/bin/sh", "");
  EXPECT_EQ(t.baseline_sha256.size(), 64u);
}

}  // namespace
}  // namespace workgate
