// workgate selftest --timed end to end. It reads the real clock, so this
// checks only that it runs and says what it found; whether a timing resolves
// is this machine's business, never a test's (tests/measure has the
// judgement on fixed phases).

#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

TEST_F(CliTest, SelftestTimedRunsBothPhasesAndSaysWhatItFound) {
  LaunchResult r = Run({"selftest", "--timed", "--pairs", "6", "--iterations", "20000000"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 4) << r.exit_code << r.out << r.err;
  EXPECT_EQ(r.out.rfind("timed self-test: known_loop --spin-ns D 20000000, 6 pairs per phase, "
                        "delay 5% of the run\n",
                        0),
            0u)
      << r.out;
  for (const char* part : {"  A/A, the workload against itself: ",
                           "  delayed, against itself with the delay: ", "the delay is "}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << " in\n" << r.out;
  }
  // Each phase has its test, or says that stalls on this machine left too
  // few pairs for one.
  size_t tests = 0;
  for (const char* line : {"sign-flip test: p = ", "pairs are left once stalls are dropped"}) {
    for (size_t at = r.out.find(line); at != std::string::npos; at = r.out.find(line, at + 1)) {
      ++tests;
    }
  }
  EXPECT_EQ(tests, 2u) << r.out;
  const std::string outcome = r.exit_code == 0 ? "\nresolves: " : "\nmisses: ";
  const bool said = r.out.find(outcome) != std::string::npos ||
                    (r.exit_code == 4 && r.out.find("\nfalse effect: ") != std::string::npos);
  EXPECT_TRUE(said) << r.out;
}

TEST_F(CliTest, SelftestNeedsToBeToldWhichAndRefusesTooFewPairs) {
  LaunchResult r = Run({"selftest"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name the self-test to run: --timed"), std::string::npos) << r.err;
  // Five pairs could never reject: the exact test's smallest p is 0.0625.
  r = Run({"selftest", "--timed", "--pairs", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--pairs: must be an integer in [6, 1000]"), std::string::npos) << r.err;
  r = Run({"selftest", "--timed", "--delay", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--delay: must be a number in (0, 100]"), std::string::npos) << r.err;
  r = Run({"probe", "--merge", "p.json", "--selftest-timed"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--selftest-timed do not go with it"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace workgate
