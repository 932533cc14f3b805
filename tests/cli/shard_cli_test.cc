// compare --shard I/N and workgate merge end to end: the parts of a suite
// counted apart and joined give the report of one run; parts that do not
// belong together, or are missing, never give a pass.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

class ShardCliTest : public KnownWorkSuiteTest {
 protected:
  // The two-workload run the refusal tests split in two.
  void TwoParts(std::vector<std::string> second_extra = {}) {
    const std::vector<std::string> pick = {"--workload", "size-1000", "--workload", "wide-margin"};
    std::vector<std::string> first = pick, second = pick;
    first.insert(first.end(), {"--shard", "1/2", "--json", "p1.json"});
    second.insert(second.end(), {"--shard", "2/2", "--json", "p2.json"});
    second.insert(second.end(), second_extra.begin(), second_extra.end());
    ASSERT_EQ(Compare(first).exit_code, 1);
    ASSERT_EQ(Compare(second).exit_code, 0);
  }
  // merge of `parts`, which must refuse them (exit 3) saying `message`.
  void ExpectRefused(const std::vector<std::string>& parts, const std::string& message) {
    std::ofstream(Path("old.json")) << "{}";  // an earlier run's report
    std::vector<std::string> args = {"merge"};
    args.insert(args.end(), parts.begin(), parts.end());
    args.insert(args.end(), {"--json", "old.json"});
    LaunchResult r = Run(args);
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(Path("old.json"))) << "no report of a refused merge";
  }
};

// Lines of `text` without the one that says how the report was made.
std::string Without(const std::string& text, const std::string& line) {
  std::string out = text;
  const size_t at = out.find(line + "\n");
  if (at != std::string::npos) out.erase(at, line.size() + 1);
  return out;
}

TEST_F(ShardCliTest, FourShardsMergeIntoTheReportOfOneRun) {
  LaunchResult whole = Compare({"--json", "whole.json", "--markdown", "whole.md"});
  ASSERT_EQ(whole.exit_code, 3) << whole.out << whole.err;  // wrong-score is invalid
  std::vector<std::string> merge = {"merge"};
  const int expected_exit[] = {3, 1, 0, 1};  // each shard's own verdict
  const size_t expected_size[] = {2, 2, 1, 1};
  for (int i = 1; i <= 4; ++i) {
    const std::string part = "part" + std::to_string(i) + ".json";
    LaunchResult r = Compare({"--shard", std::to_string(i) + "/4", "--json", part});
    EXPECT_EQ(r.exit_code, expected_exit[i - 1]) << part << ": " << r.out << r.err;
    nlohmann::json j = ReadJson(part);
    EXPECT_EQ(j["workloads"].size(), expected_size[i - 1]) << part;
    EXPECT_EQ(j["shard"]["workloads"].size(), 6u);
    EXPECT_NE(r.out.find("Shard " + std::to_string(i) + " of 4"), std::string::npos) << r.out;
    merge.push_back(part);
  }
  std::reverse(merge.begin() + 1, merge.end());  // any order
  merge.insert(merge.end(), {"--json", "merged.json", "--markdown", "merged.md"});
  LaunchResult merged = Run(merge);
  EXPECT_EQ(merged.exit_code, whole.exit_code) << merged.out << merged.err;

  // The same workloads, counts, fingerprints, verdicts, reasons,
  // explanations and exit code: everything but how it was made.
  nlohmann::json a = ReadJson("whole.json"), b = ReadJson("merged.json");
  EXPECT_EQ(b["merged"]["shards"], 4);
  for (auto* j : {&a, &b}) j->erase("merged");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["workloads"][2]["verdict"], "ok");
  EXPECT_EQ(a["workloads"][4]["verdict"], "invalid");
  EXPECT_EQ(a["workloads"][0]["delta"], 1000000);
  const std::string made = "Merged from 4 shards.";
  // The accept commands name the JSON report each run wrote.
  auto named_whole = [](std::string text) {
    for (size_t at; (at = text.find("--report merged.json")) != std::string::npos;) {
      text.replace(at, 20, "--report whole.json");
    }
    for (size_t at; (at = text.find("`merged.json`")) != std::string::npos;) {
      text.replace(at, 13, "`whole.json`");
    }
    return text;
  };
  EXPECT_EQ(named_whole(Without(*ReadFile(Path("merged.md")), "\n" + made)),
            *ReadFile(Path("whole.md")));
  EXPECT_EQ(named_whole(Without(merged.out, made)), whole.out);
}

TEST_F(ShardCliTest, AShardGivenNoWorkloadPassesAndMerges) {
  const std::vector<std::string> pick = {"--workload", "size-1000", "--workload", "wide-margin"};
  std::vector<std::string> merge = {"merge", "--json", "m.json"};
  for (int i = 1; i <= 3; ++i) {
    std::vector<std::string> args = pick;
    const std::string part = "s" + std::to_string(i) + ".json";
    args.insert(args.end(), {"--shard", std::to_string(i) + "/3", "--json", part});
    LaunchResult r = Compare(args);
    EXPECT_EQ(r.exit_code, i == 1 ? 1 : 0) << r.out << r.err;
    merge.push_back(part);
  }
  nlohmann::json empty = ReadJson("s3.json");
  EXPECT_TRUE(empty["workloads"].empty());
  EXPECT_EQ(empty["verdict"], "ok");
  LaunchResult r = Run(merge);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(ReadJson("m.json")["workloads"].size(), 2u);
}

TEST_F(ShardCliTest, AMissingShardIsInvalidAndNamed) {
  TwoParts();
  LaunchResult r = Run({"merge", "p2.json", "--json", "m.json", "--markdown", "m.md"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("shard 1/2 is missing"), std::string::npos) << r.err;
  nlohmann::json m = ReadJson("m.json");
  ASSERT_EQ(m["workloads"].size(), 2u);
  EXPECT_EQ(m["workloads"][0]["name"], "size-1000");
  EXPECT_EQ(m["workloads"][0]["verdict"], "invalid");
  EXPECT_EQ(m["workloads"][0]["reason"],
            "shard 1/2 is missing: no part gave this workload's result");
  EXPECT_EQ(m["workloads"][1]["verdict"], "ok");
  EXPECT_NE(ReadFile(Path("m.md"))->find("invalid comparison"), std::string::npos);
}

TEST_F(ShardCliTest, MergeRefusesPartsThatDoNotBelongTogether) {
  TwoParts({"--max-work-added", "2"});
  ExpectRefused({"p1.json", "p2.json"},
                "Error: cannot merge: p2.json does not belong with p1.json: its margin is 2%, "
                "where p1.json's is 1%");
  ExpectRefused({"p1.json", "p1.json"}, "Error: cannot merge: shard 1/2 is given twice");
  TwoParts();
  // A verdict that its counts do not give.
  nlohmann::json forged = ReadJson("p1.json");
  forged["workloads"][0]["verdict"] = "ok";
  forged["verdict"] = "ok";
  forged["exit_code"] = 0;
  std::ofstream(Path("forged.json")) << forged.dump();
  ExpectRefused({"forged.json", "p2.json"},
                "forged.json (shard 1/2) contradicts itself: workload size-1000 says ok");
  std::ofstream(Path("garbage.json")) << "not json";
  ExpectRefused({"p1.json", "garbage.json"},
                "Error: the report garbage.json is corrupt: not valid JSON");
  ExpectRefused({"p1.json", "gone.json"}, "Error: the report gone.json does not exist");
  // A whole run's report is no part.
  ASSERT_EQ(Compare({"--workload", "wide-margin", "--json", "whole.json"}).exit_code, 0);
  ExpectRefused({"whole.json"}, "whole.json is not a shard");
  // Nothing to merge is a usage error.
  EXPECT_EQ(Run({"merge"}).exit_code, 2);
}

TEST_F(ShardCliTest, TheShardOptionIsCheckedBeforeAnythingRuns) {
  for (const char* bad : {"0/3", "4/3", "1/1001", "x", "1/3/3", "-1/3"}) {
    LaunchResult r = Compare({"--shard", bad, "--json", "never.json"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find(std::string("--shard: must be I/N with 1 <= I <= N <= 1000, not ") + bad),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(Path("never.json")));
  }
  LaunchResult adhoc = Run({"compare", "--baseline", kKnownWorkA, "--candidate", kKnownWorkB,
                            "--shard", "1/2", "--", "1000"});
  EXPECT_EQ(adhoc.exit_code, 2);
  EXPECT_NE(adhoc.err.find("--shard splits a suite's workloads: it needs --suite FILE"),
            std::string::npos)
      << adhoc.err;
}

}  // namespace
}  // namespace workgate
