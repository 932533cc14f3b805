#include "report/report_reader.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "report/json_report.h"
#include "report/sample_report.h"
#include "test_paths.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

// A report with every optional part of the header set.
CompareReport Sharded() {
  CompareReport r = testing_report::CallgrindReport();
  r.notes = {"baseline: stored by main@abc1234"};
  r.stored_baseline = StoredBaselineUse{"base.json", StoredBaselineStatus::kIncompatible, "why"};
  r.settings.suite = "suite.toml";
  r.settings.suite_sha256 = std::string(64, 's');
  r.settings.env = {"A=1"};
  r.shard = ShardInfo{1, 1, {}, std::string(64, 'a'), ""};
  for (const WorkloadResult& w : r.workloads) r.shard->workloads.push_back(w.name);
  return r;
}

// A report whose explanation's profiles were cut by their bounds.
CompareReport Cut() {
  CompareReport r = testing_report::StrippedReport();
  r.workloads[0].explanation->profile_cuts = {{"baseline", "source_lines", 300000, false, 200000},
                                              {"candidate", "call_edges", 500000, true, 0}};
  return r;
}

TEST(ReportReaderTest, ReadsBackWhatTheWriterWrote) {
  CompareReport merged = testing_report::PerfReport();
  merged.merged = MergeInfo{3, {"a.json", "b.json", "c.json"}};
  for (const CompareReport& r :
       {testing_report::CallgrindReport(), testing_report::StrippedReport(),
        testing_report::PerfReport(), testing_report::ScoreChangeReport(),
        testing_report::TimingVsCountReport(), testing_report::ExplainedLinesReport(),
        testing_report::AcceptedReport(),
        testing_report::ThreadedReport(), Sharded(),
        merged, Cut()}) {
    const std::string text = JsonText(ToJson(r));
    std::string err;
    std::optional<CompareReport> read = ParseCompareReport(text, "r.json", &err);
    ASSERT_TRUE(read) << err;
    EXPECT_EQ(ToJson(*read), ToJson(r));
  }
}

// The message the reader refuses `edit` of Sharded()'s JSON with.
std::string Refusal(const std::function<void(json*)>& edit) {
  json doc = ToJson(Sharded());
  edit(&doc);
  std::string err;
  EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err)) << doc.dump(1).substr(0, 400);
  return err;
}

TEST(ReportReaderTest, RefusesWhatNoWorkgateWrites) {
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"workloads[0].verdict is not a verdict",
       [](json* j) { (*j)["workloads"][0]["verdict"] = "passed"; }},
      {"surprise is not a field workgate writes", [](json* j) { (*j)["surprise"] = 1; }},
      {"exit_code is missing", [](json* j) { j->erase("exit_code"); }},
      {"workloads[1].baseline.counts must be a list of non-negative integers",
       [](json* j) { (*j)["workloads"][1]["baseline"]["counts"][0] = -5; }},
      {"workloads[0].candidate.counts[0] is 9223372036854775808, above the largest count",
       [](json* j) { (*j)["workloads"][0]["candidate"]["counts"][0] = 9223372036854775808u; }},
      {"workloads[0].baseline has an instructions, min or max that is not its counts' minimum",
       [](json* j) { (*j)["workloads"][0]["baseline"]["min"] = 1; }},
      {"workloads[0].baseline.counts has 1001 items, more than the 1000 workgate writes",
       [](json* j) { (*j)["workloads"][0]["baseline"]["counts"] = std::vector<int>(1001, 5); }},
      {"workloads[0].explanation.rows[0].delta is not candidate - baseline",
       [](json* j) { (*j)["workloads"][0]["explanation"]["rows"][0]["delta"] = 7; }},
      {"workloads[0].explanation.rows[0].baseline must be an integer in [0, 4503599627370496]",
       [](json* j) {
         (*j)["workloads"][0]["explanation"]["rows"][0]["baseline"] = 9223372036854775807;
       }},
      {"workloads[0].explanation.rows[0].lines[0].url is not an http(s) URL of plain characters",
       [](json* j) {
         (*j)["workloads"][0]["explanation"]["rows"][0]["lines"][0]["url"] = "javascript:alert(1)";
       }},
      {"workloads[0].baseline.fingerprint.kernel is missing",
       [](json* j) { (*j)["workloads"][0]["baseline"]["fingerprint"].erase("kernel"); }},
      {"workloads[0].baseline.fingerprint.argv must be a list of strings",
       [](json* j) { (*j)["workloads"][0]["baseline"]["fingerprint"]["argv"] = {1}; }},
      {"shard.index must be an integer in [1, 1]", [](json* j) { (*j)["shard"]["index"] = 2; }},
      {"shard.count must be an integer in [1, 1000]", [](json* j) { (*j)["shard"]["count"] = 0; }},
      {"settings.stability must be auto, always or never",
       [](json* j) { (*j)["settings"]["stability"] = "sometimes"; }},
      {"stored_baseline.problem must be null exactly when the status is used",
       [](json* j) { (*j)["stored_baseline"]["status"] = "used"; }},
      {"timed_seed must be an integer in [0, 4294967295]",
       [](json* j) { (*j)["timed_seed"] = -1; }},
      {"workloads[0].stability.confidence must be a number for an unstable workload, else null",
       [](json* j) { (*j)["workloads"][0]["stability"]["unstable"] = true; }},
      {"workloads[0].name must not be empty", [](json* j) { (*j)["workloads"][0]["name"] = ""; }},
      {"workloads[0].command is missing", [](json* j) { (*j)["workloads"][0].erase("command"); }},
      {"workloads[0].command must be a list of strings",
       [](json* j) {
         (*j)["workloads"][0]["command"] = json::array({"{exe}", 1});
       }},
      {"workloads[0].command has 1001 items, more than the 1000 workgate writes",
       [](json* j) { (*j)["workloads"][0]["command"] = std::vector<std::string>(1001, "x"); }},
      // An ad hoc run's workload runs the command its settings name.
      {"workloads[0].command differs from settings.command",
       [](json* j) {
         (*j)["settings"]["command"] = json::array({"{exe}", "30"});
       }},
      {"workloads[0].previous_score is set without an expected_score",
       [](json* j) { (*j)["workloads"][0]["previous_score"] = "1"; }},
      {"workloads[3].score_changed is true without a previous_score",
       [](json* j) { (*j)["workloads"][3]["score_changed"] = true; }},
      {"workloads[3].score_changed is missing",
       [](json* j) { (*j)["workloads"][3].erase("score_changed"); }},
  };
  for (const auto& [message, edit] : cases) {
    const std::string err = Refusal(edit);
    EXPECT_EQ(err.rfind("the report p.json is corrupt: " + message, 0), 0u) << err;
  }
}

TEST(ReportReaderTest, RefusesLineMarksNoWorkgateWrites) {
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"lines[0].numbering must be baseline or candidate",
       [](json* l) { (*l)[0]["numbering"] = "both"; }},
      {"lines[1].numbering must be baseline for a baseline_only line",
       [](json* l) { (*l)[1]["numbering"] = "candidate"; }},
      {"lines[0].changed must be true, false or null", [](json* l) { (*l)[0]["changed"] = "yes"; }},
      // A folded line folds no other.
      {"lines[2].folded[0].folded has 1 items, more than the 0 workgate writes",
       [](json* l) { (*l)[2]["folded"][0]["folded"] = (*l)[2]["folded"]; }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = ToJson(testing_report::ExplainedLinesReport());
    edit(&doc["workloads"][0]["explanation"]["rows"][0]["lines"]);
    std::string err;
    EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err)) << message;
    const std::string prefix =
        "the report p.json is corrupt: workloads[0].explanation.rows[0]." + message;
    EXPECT_EQ(err.rfind(prefix, 0), 0u) << err;
  }
}

TEST(ReportReaderTest, RefusesAThreadHintNoWorkgateWrites) {
  const json threaded = ToJson(testing_report::ThreadedReport());
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"workloads[0].thread_hint.advice disagrees with its fields",
       [](json* h) { (*h)["advice"] = "run it with --evil"; }},
      {"workloads[0].thread_hint.advice disagrees with its fields",
       [](json* h) { (*h)["program"] = "go"; }},
      {"workloads[0].thread_hint.program is not a program",
       [](json* h) { (*h)["program"] = "rust"; }},
      {"workloads[0].thread_hint.threads must be 2 or more", [](json* h) { (*h)["threads"] = 1; }},
      {"workloads[0].thread_hint.more is not a field workgate writes",
       [](json* h) { (*h)["more"] = 1; }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = threaded;
    edit(&doc["workloads"][0]["thread_hint"]);
    std::string err;
    EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err));
    EXPECT_EQ(err.rfind("the report p.json is corrupt: " + message, 0), 0u) << err;
  }
  std::string err;
  std::optional<CompareReport> read = ParseCompareReport(threaded.dump(), "p.json", &err);
  ASSERT_TRUE(read) << err;
  ASSERT_TRUE(read->workloads[0].thread_hint);
  EXPECT_EQ(read->workloads[0].thread_hint->threads, 5u);
  EXPECT_EQ(read->workloads[0].thread_hint->runtime, ThreadRuntime::kZstd);
  EXPECT_FALSE(read->workloads[1].thread_hint);
}

TEST(ReportReaderTest, RefusesHardwareEventsNoWorkgateWrites) {
  const json perf = ToJson(testing_report::PerfReport());
  ASSERT_TRUE(perf["workloads"][1]["hardware_events"].is_object());
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"workloads[1].hardware_events.note must be set exactly when there are no events",
       [](json* h) { (*h)["note"] = "and a note"; }},
      {"workloads[1].hardware_events.note must be set exactly when there are no events",
       [](json* h) { (*h)["events"] = json::array(); }},
      {"workloads[1].hardware_events.events[0].event must not be empty",
       [](json* h) { (*h)["events"][0]["event"] = ""; }},
      {"workloads[1].hardware_events.events[1].scaled is not a field workgate writes",
       [](json* h) { (*h)["events"][1]["scaled"] = 9000; }},
      {"workloads[1].hardware_events.events[0].baseline must be",
       [](json* h) { (*h)["events"][0]["baseline"] = -1; }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = perf;
    edit(&doc["workloads"][1]["hardware_events"]);
    std::string err;
    EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err));
    EXPECT_EQ(err.rfind("the report p.json is corrupt: " + message, 0), 0u) << err;
  }
  std::string err;
  std::optional<CompareReport> read = ParseCompareReport(perf.dump(), "p.json", &err);
  ASSERT_TRUE(read) << err;
  ASSERT_TRUE(read->workloads[1].hardware);
  ASSERT_EQ(read->workloads[1].hardware->events.size(), 2u);
  EXPECT_EQ(read->workloads[1].hardware->events[0].candidate, 31'200u);
  EXPECT_TRUE(read->workloads[1].hardware->events[1].candidate_multiplexed);
  EXPECT_FALSE(read->workloads[0].hardware);
}

TEST(ReportReaderTest, RefusesProfileCutsNoWorkgateWrites) {
  const json cut = ToJson(Cut());
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"profile_cuts[0].kept must be fewer than named, and none when more_than_named",
       [](json* c) { (*c)[0]["kept"] = 300000; }},
      {"profile_cuts[1].kept must be fewer than named, and none when more_than_named",
       [](json* c) { (*c)[1]["kept"] = 5; }},
      {"profile_cuts[0].side must be baseline or candidate",
       [](json* c) { (*c)[0]["side"] = "both"; }},
      {"profile_cuts[1].table must be call_edges or source_lines",
       [](json* c) { (*c)[1]["table"] = "functions"; }},
      {"profile_cuts[1].table is cut twice for its side", [](json* c) { (*c)[1] = (*c)[0]; }},
      {"profile_cuts has 5 items, more than the 4 workgate writes",
       [](json* c) {
         *c = json::array({(*c)[0], (*c)[0], (*c)[0], (*c)[0], (*c)[0]});
       }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = cut;
    edit(&doc["workloads"][0]["explanation"]["profile_cuts"]);
    std::string err;
    EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err));
    EXPECT_EQ(err.rfind("the report p.json is corrupt: workloads[0].explanation." + message, 0), 0u)
        << err;
  }
}

TEST(ReportReaderTest, RefusesTimedContextsNoWorkgateWrites) {
  const json perf = ToJson(testing_report::PerfReport());
  ASSERT_TRUE(perf["workloads"][0]["timed"].is_object());
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"workloads[0].timed.label must be faster, slower, within noise or inconclusive",
       [](json* t) { (*t)["label"] = "quicker"; }},
      {"workloads[0].timed.basis must be score or wall time",
       [](json* t) { (*t)["basis"] = "cycles"; }},
      {"workloads[0].timed.comparison.method and draws are not what the sign-flip test takes",
       [](json* t) { (*t)["comparison"]["draws"] = 1000; }},
      {"workloads[0].timed.comparison.method and draws are not what the sign-flip test takes",
       [](json* t) { (*t)["comparison"]["method"] = "sampled"; }},
      {"workloads[0].timed.comparison.p_value and p_adjusted must be in [0, 1]",
       [](json* t) { (*t)["comparison"]["p_adjusted"] = 1.5; }},
      {"workloads[0].timed.aa_control.confidence and nominal_confidence must be in [0, 1]",
       [](json* t) { (*t)["aa_control"]["confidence"] = 95; }},
      {"workloads[0].timed must have hl_shift and noise_floor exactly when it has a comparison",
       [](json* t) { (*t)["comparison"] = nullptr; }},
      {"workloads[0].timed.dropped[0].side must be baseline or candidate",
       [](json* t) { (*t)["dropped"][0]["side"] = "both"; }},
      {"workloads[0].timed.verdict is not a field workgate writes",
       [](json* t) { (*t)["verdict"] = "slower"; }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = perf;
    edit(&doc["workloads"][0]["timed"]);
    std::string err;
    EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err)) << message;
    EXPECT_EQ(err.rfind("the report p.json is corrupt: " + message, 0), 0u) << err;
  }
  json slotless = perf;
  slotless["workloads"][1]["candidate"]["timed"][0].erase("slot");
  std::string err;
  EXPECT_FALSE(ParseCompareReport(slotless.dump(), "p.json", &err));
  EXPECT_EQ(err, "the report p.json is corrupt: workloads[1].candidate.timed[0].slot is missing");
}

TEST(ReportReaderTest, RefusesATimingVsCountNoWorkgateWrites) {
  const json report = ToJson(testing_report::TimingVsCountReport());
  ASSERT_EQ(report["workloads"][0]["timing_vs_count"]["disagreement"], "slower");
  const std::pair<std::string, std::function<void(json*)>> cases[] = {
      {"workloads[0].timing_vs_count.disagreement must be none, slower or faster",
       [](json* w) { (*w)["timing_vs_count"]["disagreement"] = "much"; }},
      // A part that would hide what its timing says, or claim what it does not.
      {"workloads[0].timing_vs_count.disagreement is not what its interval, bound and p_adjusted",
       [](json* w) { (*w)["timing_vs_count"]["disagreement"] = "none"; }},
      {"workloads[0].timing_vs_count.disagreement is not what its interval, bound and p_adjusted",
       [](json* w) { (*w)["timing_vs_count"]["p_adjusted"] = 0.5; }},
      {"workloads[0].timing_vs_count.count_low and count_high are not 1 + the workload's",
       [](json* w) { (*w)["timing_vs_count"]["count_high"] = 1.5; }},
      {"workloads[0].timing_vs_count.bound is not the count's ratio times or over a factor",
       [](json* w) { (*w)["timing_vs_count"]["bound"] = 1.2; }},
      {"workloads[0].timing_vs_count.bound is not the count's ratio times or over a factor",
       [](json* w) {
         (*w)["timing_vs_count"]["factor"] = 1.0;
         (*w)["timing_vs_count"]["bound"] = 1.0;
       }},
      {"workloads[0].timing_vs_count.p_value and p_adjusted must be in [0, 1], the adjusted",
       [](json* w) { (*w)["timing_vs_count"]["p_value"] = 0.9; }},
      {"workloads[0].timing_vs_count.family must be an integer in [1, 100000]",
       [](json* w) { (*w)["timing_vs_count"]["family"] = 0; }},
      {"workloads[0].timing_vs_count.disagreement is not what its interval, bound and p_adjusted",
       [](json* w) { (*w)["timing_vs_count"]["ci_low"] = 1.5; }},
      {"workloads[0].timing_vs_count.pairs are more than the workload's timed pairs",
       [](json* w) { (*w)["timing_vs_count"]["pairs"] = 13; }},
      {"workloads[0].timing_vs_count.pairs are more than the workload's timed pairs",
       [](json* w) { (*w)["timed"] = nullptr; }},
      {"workloads[0].timing_vs_count.pairs must be an integer in [10, 1000]",
       [](json* w) { (*w)["timing_vs_count"]["pairs"] = 9; }},
      {"workloads[0].timing_vs_count.median_ratio must lie in its interval, above 0",
       [](json* w) { (*w)["timing_vs_count"]["median_ratio"] = 9.0; }},
      {"workloads[0].timing_vs_count.verdict is not a field workgate writes",
       [](json* w) { (*w)["timing_vs_count"]["verdict"] = "ok"; }},
      {"workloads[0].timing_vs_count is missing", [](json* w) { w->erase("timing_vs_count"); }},
  };
  for (const auto& [message, edit] : cases) {
    json doc = report;
    edit(&doc["workloads"][0]);
    std::string err;
    EXPECT_FALSE(ParseCompareReport(doc.dump(), "p.json", &err)) << message;
    EXPECT_EQ(err.rfind("the report p.json is corrupt: " + message, 0), 0u) << err;
  }
}

TEST(ReportReaderTest, SaysWhatADocumentIsWhenItIsNoReport) {
  std::string err;
  EXPECT_FALSE(ParseCompareReport("{ not json", "x.json", &err));
  EXPECT_EQ(err.rfind("the report x.json is corrupt: not valid JSON: parse error at line 1", 0), 0u)
      << err;
  EXPECT_FALSE(ParseCompareReport("[1e400]", "x.json", &err));
  EXPECT_EQ(err.rfind("the report x.json is corrupt: ", 0), 0u) << err;
  // A probe, a stored baseline: JSON, but no compare report.
  EXPECT_FALSE(ParseCompareReport(R"({"schema_version": 1, "perf": {}})", "probe.json", &err));
  EXPECT_EQ(err.rfind("the report probe.json is not a workgate compare report", 0), 0u) << err;
  json doc = ToJson(Sharded());
  doc["schema_version"] = 1;  // before the timed context's two tests
  EXPECT_FALSE(ParseCompareReport(doc.dump(), "v1.json", &err));
  EXPECT_EQ(err, "the report v1.json has schema_version 1; this workgate reads version 10");
  EXPECT_FALSE(LoadCompareReport("/nonexistent/part.json", &err));
  EXPECT_EQ(err, "the report /nonexistent/part.json does not exist");
}

TEST(ReportReaderTest, ReadsAPartWorkgateWrote) {
  // compare --shard 1/3 of tests/cli/testdata/known_work.toml, known_work_a
  // against known_work_b, counted with vgcount (also a seed of compare_report_fuzz).
  std::string err;
  std::optional<CompareReport> part =
      LoadCompareReport(testing::SourcePath("tests/report/testdata/part_1_of_3.json"), &err);
  ASSERT_TRUE(part) << err;
  ASSERT_TRUE(part->shard);
  EXPECT_EQ(part->shard->index, 1);
  EXPECT_EQ(part->shard->count, 3);
  EXPECT_EQ(part->shard->workloads,
            (std::vector<std::string>{"work", "work-other-size", "wrong-score"}));
  ASSERT_EQ(part->workloads.size(), 1u);
  EXPECT_EQ(part->workloads[0].command, (std::vector<std::string>{"{exe}", "1000"}));
  EXPECT_EQ(part->workloads[0].delta, 1000000);
  EXPECT_EQ(part->workloads[0].verdict, Verdict::kWorkAdded);
  EXPECT_EQ(part->notes, std::vector<std::string>{"baseline: stored by main@abc1234"});
  EXPECT_EQ(part->exit_code, kExitWorkAdded);
}

}  // namespace
}  // namespace workgate
