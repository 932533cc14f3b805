// The simulated events of a callgrind profile: their totals for the count
// (ParseCallgrindSimulatedTotals), and their self cost per function and line
// for the explanation (LoadSimulatedProfiles, AttachSimulatedEvents).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "explain/callgrind_profile.h"
#include "explain/explain.h"
#include "explain/simulated_rows.h"
#include "util/paths.h"

namespace workgate {
namespace {

const char kEvents[] = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n";

// Two functions of one part; `bcm` is f's mispredictions on line 3.
std::string ProfileText(uint64_t bcm) {
  return std::string("version: 1\n") + kEvents + "fl=a.c\nfn=f\n3 10 2 1 0 0 0 0 0 0 4 " +
         std::to_string(bcm) + "\n4 5 1\nfn=g\n7 20 0 0 1\ntotals: 35 3 1 1 0 0 0 0 0 4 " +
         std::to_string(bcm) + " 0 0\n";
}

bool Totals(const std::string& text, uint64_t* ir, SimulatedCosts* costs, std::string* err) {
  std::istringstream in(text);
  return ParseCallgrindSimulatedTotals(in, "in", ir, costs, err);
}

TEST(CallgrindSimulated, TotalsAreEachEventsSumOverTheParts) {
  uint64_t ir = 0;
  SimulatedCosts costs = {};
  std::string err;
  ASSERT_TRUE(Totals(ProfileText(3) + ProfileText(1), &ir, &costs, &err)) << err;
  EXPECT_EQ(ir, 70u);
  EXPECT_EQ(costs, (SimulatedCosts{6, 2, 2, 0, 0, 0, 0, 0, 8, 4, 0, 0}));
}

TEST(CallgrindSimulated, ATotalsLineThatDisagreesInAnyEventIsAnError) {
  std::string text = ProfileText(3);
  text.replace(text.find("totals: 35 3"), 12, "totals: 35 4");
  uint64_t ir = 0;
  SimulatedCosts costs = {};
  std::string err;
  EXPECT_FALSE(Totals(text, &ir, &costs, &err));
  EXPECT_NE(err.find("Dr disagrees"), std::string::npos) << err;
}

TEST(CallgrindSimulated, AProfileWithoutTheEventsHasNoTotals) {
  uint64_t ir = 0;
  SimulatedCosts costs = {};
  std::string err;
  EXPECT_FALSE(Totals("events: Ir\nfn=f\n1 5\ntotals: 5\n", &ir, &costs, &err));
  EXPECT_NE(err.find("simulated events"), std::string::npos) << err;
}

TEST(CallgrindSimulated, RowsAndLinesCarryTheirEvents) {
  TempDir dir("workgate-simulated-test");
  std::ofstream(dir.path() + "/b") << ProfileText(3);
  std::ofstream(dir.path() + "/c") << ProfileText(0);
  // The candidate's f runs one instruction more on line 3, g the same.
  std::string cand = ProfileText(0);
  cand.replace(cand.find("3 10 2"), 6, "3 11 2");
  cand.replace(cand.find("totals: 35"), 10, "totals: 36");
  std::ofstream(dir.path() + "/c") << cand;
  Profile baseline, candidate;
  std::string err;
  ASSERT_TRUE(LoadSimulatedProfiles({dir.path() + "/b"}, &baseline, &err)) << err;
  ASSERT_TRUE(LoadSimulatedProfiles({dir.path() + "/c"}, &candidate, &err)) << err;
  EXPECT_TRUE(baseline.simulated);
  Explanation e = DiffProfiles(baseline, candidate, 10);
  AttachSimulatedEvents(baseline, candidate, &e);
  ASSERT_TRUE(e.simulated);
  ASSERT_EQ(e.rows.size(), 1u);
  const FunctionDelta& f = e.rows[0];
  ASSERT_TRUE(f.baseline_events && f.candidate_events);
  EXPECT_EQ((*f.baseline_events)[9], 3u);  // Bcm
  EXPECT_EQ((*f.candidate_events)[9], 0u);
  ASSERT_EQ(f.lines.size(), 1u);
  ASSERT_TRUE(f.lines[0].baseline_events.has_value());
  EXPECT_EQ((*f.lines[0].baseline_events)[9], 3u);
  // Without the events on one side, no row has them.
  Profile plain;
  std::ofstream(dir.path() + "/p") << "events: Ir\nfl=a.c\nfn=f\n3 10\n4 5\nfn=g\n7 20\n";
  ASSERT_TRUE(LoadSimulatedProfiles({dir.path() + "/p"}, &plain, &err)) << err;
  EXPECT_FALSE(plain.simulated);
  Explanation mixed = DiffProfiles(plain, candidate, 10);
  AttachSimulatedEvents(plain, candidate, &mixed);
  EXPECT_FALSE(mixed.simulated);
  EXPECT_FALSE(mixed.rows[0].baseline_events.has_value());
}

}  // namespace
}  // namespace workgate
