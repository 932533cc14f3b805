// workgate accept's edit of a suite (workload/suite_edit.h): the entry goes
// where a reviewer expects it, reads back as written, and not one other byte
// of the file changes.

#include "workload/suite_edit.h"

#include <gtest/gtest.h>

#include <string>

#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {
namespace {

// A suite as a person writes one: comments everywhere, a sub-table, an
// inline table, a multi-line array, blank lines, and a comment that leads
// into the next workload.
const std::string kSuite = R"(# Benchmarks of the parser.
description = "parser"

[[workload]]
name = "parse/small"   # the quick one
command = [
  "{exe}",
  "small.json",   # a file beside the suite
]
env = { LANG = "C" }
clock = "env"
[workload.score]
pattern = 'score: ([0-9]+)'
expect = "1000"
# trailing comment of the score

# The large one comes next.
[[workload]]
name = "parse/large"
command = ["{exe}", "large.json"]
clock = "none"
max_work_added = 2.0
)";

AcceptedWork Entry(const std::string& reason, int64_t delta = 25000) {
  AcceptedWork e;
  e.reason = reason;
  e.delta = delta;
  e.baseline_count = 1000000;
  e.backend = "vgcount";
  e.event = "Ir";
  e.workload_digest = std::string(64, 'd');
  e.baseline_sha256 = std::string(64, 'a');
  e.candidate_sha256 = std::string(64, 'b');
  return e;
}

std::string Edited(const std::string& text, const std::string& name, const AcceptedWork& e) {
  std::string out, err;
  EXPECT_TRUE(SetAcceptedEntry(text, "bench.toml", name, e, &out, &err)) << err;
  return out;
}

// The name is a C string: a std::string temporary bound to a reference
// parameter of a function returning a reference makes GCC 14 warn.
const Workload& Named(const Suite& suite, const char* name) {
  for (const Workload& w : suite.workloads) {
    if (w.name == name) return w;
  }
  ADD_FAILURE() << "no workload " << name;
  return suite.workloads.front();
}

TEST(SuiteEditTest, TheEntryGoesAfterTheWorkloadsOwnLinesAndNothingElseChanges) {
  const std::string out = Edited(kSuite, "parse/small", Entry("cmov \"on purpose\""));
  const std::string before_next = "# trailing comment of the score\n";
  const size_t at = kSuite.find(before_next);
  ASSERT_NE(at, std::string::npos);
  // Inserted after `expect = "1000"`: a blank line and the table; the
  // comments that follow stay where they were, before the next workload.
  const std::string expected = kSuite.substr(0, at) + "\n" + AcceptedTable(Entry("cmov \"on purpose\""), "\n") +
                               kSuite.substr(at);
  EXPECT_EQ(out, expected);
  EXPECT_NE(out.find("[workload.accepted]\n# Written by `workgate accept`"), std::string::npos);
  EXPECT_NE(out.find("reason = 'cmov \"on purpose\"'\n"), std::string::npos) << out;
  EXPECT_NE(out.find("delta = 25000\ndelta_percent = 2.5000\nbaseline_count = 1000000\n"),
            std::string::npos)
      << out;
}

TEST(SuiteEditTest, TheEntryReadsBackAsWritten) {
  const AcceptedWork e = Entry("a reason with 'quotes', \\ and \u00e9t\u00e9\tand a tab", -5);
  Suite suite;
  std::string err;
  ASSERT_TRUE(ParseSuite(Edited(kSuite, "parse/large", e), "bench.toml", &suite, &err)) << err;
  const Workload& large = Named(suite, "parse/large");
  ASSERT_TRUE(large.accepted.has_value());
  EXPECT_EQ(large.accepted->reason, e.reason);
  EXPECT_EQ(large.accepted->delta, -5);
  EXPECT_EQ(large.accepted->baseline_count, 1000000u);
  EXPECT_EQ(large.accepted->backend, "vgcount");
  EXPECT_EQ(large.accepted->event, "Ir");
  EXPECT_EQ(large.accepted->workload_digest, std::string(64, 'd'));
  EXPECT_EQ(large.accepted->baseline_sha256, std::string(64, 'a'));
  EXPECT_EQ(large.accepted->candidate_sha256, std::string(64, 'b'));
  EXPECT_FALSE(Named(suite, "parse/small").accepted.has_value());
}

TEST(SuiteEditTest, TwoWorkloadsEachGetTheirOwnEntry) {
  const std::string once = Edited(kSuite, "parse/small", Entry("small"));
  const std::string twice = Edited(once, "parse/large", Entry("large", 7));
  // The last workload's table ends the file, after its last key.
  EXPECT_EQ(twice, once + "\n" + AcceptedTable(Entry("large", 7), "\n"));
  Suite suite;
  std::string err;
  ASSERT_TRUE(ParseSuite(twice, "bench.toml", &suite, &err)) << err;
  EXPECT_EQ(Named(suite, "parse/small").accepted->reason, "small");
  EXPECT_EQ(Named(suite, "parse/large").accepted->reason, "large");
}

TEST(SuiteEditTest, AcceptingAgainReplacesTheEntryWhereItStood) {
  const std::string first = Edited(kSuite, "parse/small", Entry("first", 1));
  const std::string both = Edited(first, "parse/large", Entry("large"));
  const std::string again = Edited(both, "parse/small", Entry("second", 2));
  EXPECT_EQ(again, Edited(Edited(kSuite, "parse/small", Entry("second", 2)), "parse/large",
                          Entry("large")));
  EXPECT_EQ(again.find("first"), std::string::npos);
}

TEST(SuiteEditTest, LineEndingsAndAMissingLastLineFeedAreKept) {
  std::string crlf;
  for (char c : kSuite) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const std::string out = Edited(crlf, "parse/large", Entry("r"));
  EXPECT_EQ(out, crlf + "\r\n" + AcceptedTable(Entry("r"), "\r\n"));

  const std::string unterminated = kSuite.substr(0, kSuite.size() - 1);
  EXPECT_EQ(Edited(unterminated, "parse/large", Entry("r")),
            kSuite + "\n" + AcceptedTable(Entry("r"), "\n"));
}

TEST(SuiteEditTest, RefusesAnEntryInAnotherFormAndAnUnknownWorkload) {
  std::string out, err;
  const std::string inline_entry =
      kSuite + "accepted = { reason = \"r\", delta = 1, delta_percent = 0.0001, "
               "baseline_count = 1000000, backend = \"vgcount\", event = \"Ir\", "
               "workload_digest = \"d\", baseline_sha256 = \"a\", candidate_sha256 = \"b\" }\n";
  EXPECT_FALSE(SetAcceptedEntry(inline_entry, "bench.toml", "parse/large", Entry("r"), &out, &err));
  EXPECT_NE(err.find("not a [workload.accepted] table of its own"), std::string::npos) << err;
  EXPECT_FALSE(SetAcceptedEntry(kSuite, "bench.toml", "parse/none", Entry("r"), &out, &err));
  EXPECT_EQ(err, "bench.toml: no workload named 'parse/none'");
}

TEST(SuiteEditTest, AcceptingKeepsTheDigestAndDirectoryOfEveryWorkload) {
  Suite before, after;
  std::string err;
  ASSERT_TRUE(ParseSuite(kSuite, "bench.toml", &before, &err)) << err;
  ASSERT_TRUE(ParseSuite(Edited(kSuite, "parse/small", Entry("r")), "bench.toml", &after, &err))
      << err;
  ASSERT_TRUE(after.workloads[0].accepted.has_value());
  for (size_t i = 0; i < before.workloads.size(); ++i) {
    std::string digest_before, digest_after;
    ASSERT_TRUE(WorkloadDigest(before.workloads[i], "", &digest_before, &err)) << err;
    ASSERT_TRUE(WorkloadDigest(after.workloads[i], "", &digest_after, &err)) << err;
    EXPECT_EQ(digest_before, digest_after) << before.workloads[i].name;
    EXPECT_EQ(WorkDirKey(before.workloads[i], "/suite"), WorkDirKey(after.workloads[i], "/suite"));
  }
}

TEST(SuiteEditTest, TheSuiteReaderChecksAnEntry) {
  std::string err;
  Suite suite;
  const std::string good = Edited(kSuite, "parse/large", Entry("r"));
  auto refused = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    EXPECT_FALSE(ParseSuite(text, "bench.toml", &suite, &err)) << to;
    return err;
  };
  EXPECT_NE(refused("delta_percent = 2.5000", "delta_percent = 3.0").find("100 * delta"),
            std::string::npos);
  EXPECT_NE(refused("reason = 'r'", "reason = \"  \"").find("must say why"), std::string::npos);
  EXPECT_NE(refused("event = 'Ir'\n", "").find("missing key 'accepted.event'"),
            std::string::npos);
  EXPECT_NE(refused("baseline_count = 1000000", "baseline_count = 0").find("at least 1"),
            std::string::npos);
  EXPECT_NE(refused("event = 'Ir'", "event = 'Ir'\nextra = 1").find("'accepted.extra'"),
            std::string::npos);
}

}  // namespace
}  // namespace workgate
