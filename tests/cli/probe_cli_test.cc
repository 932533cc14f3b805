// probe --label, --markdown and --merge end to end: this machine's row, and
// the rows of several runners' probe --json files, one of them hostile.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

class ProbeCliTest : public CountingCliTest {};

TEST_F(ProbeCliTest, ThisMachinesRowAndTheRunnersTable) {
  LaunchResult r =
      Run({"probe", "--label", "runner-1", "--json", "p1.json", "--markdown", "p1.md"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("runner      runner-1\n", 0), 0u) << r.out;
  nlohmann::json p1 = ReadJson("p1.json");
  EXPECT_EQ(p1["label"], "runner-1");
  const std::string md = *ReadFile(Path("p1.md"));
  EXPECT_EQ(md.rfind("| runner | PMU | perf_event_paranoid | backend | resolution | hypervisor |\n"
                     "|---|---|---:|---|---|---|\n| `runner-1` | ",
                     0),
            0u)
      << md;
  EXPECT_EQ(std::count(md.begin(), md.end(), '\n'), 3);
  const std::string backend = p1["auto"]["backend"];
  EXPECT_NE(md.find(" | " + backend + " | "), std::string::npos) << md;

  // A second runner whose file says what it likes.
  nlohmann::json p2 = p1;
  p2["label"] = "<img src=x onerror=alert(1)> |\x1b]0;title\x07";
  p2["perf"] = {{"event", "instructions:u"}, {"ok", true}, {"reason", nullptr}, {"errno", 0}};
  std::ofstream(Path("p2.json")) << p2.dump();
  r = Run({"probe", "--merge", "p1.json", "p2.json", "--markdown", "all.md", "--json", "all.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("runner-1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<img src=x onerror=alert(1)> |  yes"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  const std::string all = *ReadFile(Path("all.md"));
  EXPECT_NE(all.find("\n| `<img src=x onerror=alert(1)> \\|` | yes | "), std::string::npos) << all;
  nlohmann::json merged = ReadJson("all.json");
  ASSERT_EQ(merged["runners"].size(), 2u);
  EXPECT_EQ(merged["runners"][1]["file"], "p2.json");
  EXPECT_EQ(merged["runners"][1]["pmu"]["counts"], true);

  // --markdown - has standard output to itself.
  r = Run({"probe", "--merge", "p1.json", "--markdown", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("| runner |", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("runner-1"), std::string::npos) << r.err;
}

// Where vgcount cannot count, the probe's vgcount line says why, what
// counting with Valgrind falls back to, and what that costs; so does its JSON.
TEST_F(ProbeCliTest, VgcountThatCannotCountNamesWhatTakesItsPlaceAndTheCost) {
  const std::string lib = Path("valgrind-lib");
  std::filesystem::create_directory(lib);
  auto env = MinimalEnvironment(dir_.path());
  env["WORKGATE_VGCOUNT_LIB"] = lib;
  const std::string fallback =
      "counting with Valgrind falls back to callgrind, which counts the same instructions 4.3x "
      "to 4.6x slower";
  LaunchResult r = Run({"probe", "--json", "probe.json"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nvgcount     not built; " + fallback), std::string::npos) << r.out;
  nlohmann::json vgcount = ReadJson("probe.json")["vgcount"];
  EXPECT_EQ(vgcount["usable"], false);
  EXPECT_EQ(vgcount["fallback"].get<std::string>().rfind(fallback, 0), 0u) << vgcount;

  // Built against another Valgrind than the one found.
  std::ofstream(lib + "/vgcount-amd64-linux");
  std::ofstream(lib + "/vgcount.valgrind") << "version: valgrind-2.0.0\nlauncher: /v/valgrind\n";
  r = Run({"probe"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nvgcount     built, but cannot run: vgcount in " + lib +
                       " was built against valgrind-2.0.0 (/v/valgrind), but the Valgrind that "
                       "workgate runs is "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("set WORKGATE_VALGRIND=/v/valgrind, or rebuild vgcount against "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("; " + fallback), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backend     auto chooses "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("resolution  vgcount"), std::string::npos) << r.out;
}

TEST_F(ProbeCliTest, MergeRefusesWhatIsNoProbeNamingIt) {
  std::ofstream(Path("report.json"))
      << R"({"schema_version": 1, "verdict": "ok", "workloads": [], "exit_code": 0})";
  LaunchResult r = Run({"probe", "--merge", "report.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("Error: report.json is not a workgate probe"), std::string::npos) << r.err;
  r = Run({"probe", "--merge", "absent.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Error: the probe absent.json does not exist"), std::string::npos) << r.err;
  r = Run({"probe", "--merge", "report.json", "--label", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--event, --label and --selftest-timed do not go with it"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace workgate
