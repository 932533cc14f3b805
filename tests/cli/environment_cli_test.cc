// End-to-end tests of what workgate says about its environment: which
// Valgrind counted, Valgrind's messages, the files Valgrind makes, a full
// disk, and report paths that cannot be written.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BuildPath;
using testing::KnownLoop;
using testing::WorkgateBin;

class EnvironmentCliTest : public CountingCliTest {
 protected:
  // Runs `script` with /bin/sh in a mount namespace of its own, where it may
  // mount a tmpfs over /tmp; nullopt (and the reason in `skip_`) where this
  // machine does not allow that (not root, no CAP_SYS_ADMIN).
  std::optional<LaunchResult> InOwnMountNamespace(const std::string& script) {
    LaunchSpec probe;
    const std::string unshare = SearchPath("unshare", "/usr/bin:/bin");
    if (unshare.empty()) {
      skip_ = "unshare(1) is not installed";
      return std::nullopt;
    }
    probe.argv = {unshare, "--mount", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"};
    probe.env = MinimalEnvironment(dir_.path());
    probe.timeout_seconds = 30;
    LaunchResult p = Launch(probe);
    if (!p.ok()) {
      skip_ = "cannot mount a tmpfs in a mount namespace of our own: " + p.Describe() + " " + p.err;
      return std::nullopt;
    }
    LaunchSpec spec = probe;
    spec.argv = {unshare, "--mount", "sh", "-c", script};
    spec.timeout_seconds = 240;
    return Launch(spec);
  }

  // An executable shell script at `rel` in the test's directory.
  std::string Script(const std::string& rel, const std::string& body) {
    const std::string path = Path(rel);
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0755);
    return path;
  }

  std::string skip_;
};

TEST_F(EnvironmentCliTest, AFailingWorkloadShowsItsOwnStderrNotValgrindsBanner) {
  LaunchResult r = Run({"compare", "--backend", "callgrind", "--baseline", "/bin/sh", "--candidate",
                        "/bin/sh", "--json", "r.json", "--", "-c", "echo boom >&2; exit 1"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const std::string error = ReadJson("r.json")["workloads"][0]["baseline"]["error"];
  EXPECT_NE(error.find("exited with status 1"), std::string::npos) << error;
  EXPECT_NE(error.find("boom"), std::string::npos) << error;
  for (const char* banner : {"Callgrind, a call-graph", "Copyright", "Using Valgrind",
                             "Command:", "Parent PID", "==2=="}) {
    EXPECT_EQ(error.find(banner), std::string::npos) << banner << " in " << error;
    EXPECT_EQ((r.out + r.err).find(banner), std::string::npos) << banner << " in " << r.out;
  }
}

TEST_F(EnvironmentCliTest, ValgrindLeavesNoFilesInTmpOrTmpdir) {
  // A run killed at its timeout is the hard case: Valgrind cannot clean up.
  // (Look after each run: a later Valgrind of the same pid removes what an
  // earlier one left.)
  const std::string leftovers = "find /tmp -name 'vgdb-*' -o -name 'valgrind_*'; ";
  auto r = InOwnMountNamespace(
      "mount -t tmpfs tmpfs /tmp && mkdir /tmp/own && TMPDIR=/tmp/own " + WorkgateBin() +
      " count --backend callgrind --timeout 3 -- /bin/sleep 60 >/dev/null 2>&1; "
      "echo \"exit $?\"; " +
      leftovers + "TMPDIR=/tmp/own " + WorkgateBin() + " count --backend callgrind -- " +
      KnownLoop() +
      " 1000 >/dev/null 2>&1; "
      "echo \"exit $?\"; " +
      leftovers);
  if (!r) GTEST_SKIP() << skip_;
  EXPECT_EQ(r->out, "exit 3\nexit 0\n") << r->err;  // and nothing found
}

TEST_F(EnvironmentCliTest, AFullDiskIsAnEnvironmentFailureNamingThePath) {
  std::vector<std::string> backends = {"callgrind"};
  if (!FindVgcountLib().empty()) backends.push_back("vgcount");
  for (const std::string& backend : backends) {
    auto r = InOwnMountNamespace(
        "mount -t tmpfs tmpfs /tmp && mkdir /tmp/tiny && "
        "mount -t tmpfs -o size=64k tmpfs /tmp/tiny && "
        "dd if=/dev/zero of=/tmp/tiny/fill bs=4k 2>/dev/null; TMPDIR=/tmp/tiny " +
        WorkgateBin() + " count --backend " + backend + " -- " + KnownLoop() + " 1000");
    if (!r) GTEST_SKIP() << skip_;
    EXPECT_EQ(r->exit_code, 5) << backend << ": " << r->out << r->err;
    EXPECT_NE(r->err.find("the file system holding /tmp/tiny/workgate-" + backend),
              std::string::npos)
        << r->err;
    EXPECT_NE(r->err.find("is full"), std::string::npos) << r->err;
  }
}

TEST_F(EnvironmentCliTest, UnwritableReportPathsStopTheRunBeforeAnyCount) {
  // A Valgrind that leaves a mark when it runs: none of these may run it.
  const std::string mark = Path("valgrind-ran");
  const std::string valgrind =
      Script("bin/valgrind", "touch " + mark + "\nexec " + FindValgrind().path + " \"$@\"\n");
  const std::string missing = Path("no-such-dir/report");
  struct Case {
    std::vector<std::string> args;
    std::string summary;  // $GITHUB_STEP_SUMMARY
    std::string expected;
  };
  const std::vector<std::string> compare = {"compare",   "--backend",   "callgrind", "--baseline",
                                            kKnownWorkA, "--candidate", kKnownWorkA};
  auto with = [&compare](std::vector<std::string> extra) {
    std::vector<std::string> args = compare;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "1000"});
    return args;
  };
  const std::vector<Case> cases = {
      {with({"--json", missing}), "", "cannot write the --json report to " + missing},
      {with({"--markdown", dir_.path()}), "",
       "cannot write the --markdown report to " + dir_.path() + ": it is a directory"},
      {with({"--save-baseline", missing}), "", "cannot write the --save-baseline report to "},
      {with({"--github"}), missing, "cannot write the $GITHUB_STEP_SUMMARY report to " + missing},
      {{"count", "--backend", "callgrind", "--json", missing, "--", KnownLoop(), "1000"},
       "",
       "cannot write the --json report to " + missing},
  };
  for (const Case& c : cases) {
    auto env = MinimalEnvironment(dir_.path());
    env["WORKGATE_VALGRIND"] = valgrind;
    if (!c.summary.empty()) env["GITHUB_STEP_SUMMARY"] = c.summary;
    LaunchResult r = Run(c.args, env);
    EXPECT_EQ(r.exit_code, 5) << c.args[4] << ": " << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(mark)) << "Valgrind ran before the check: " << c.expected;
  }
}

TEST_F(EnvironmentCliTest, AnEarlierReportIsGoneOnceCountingStarts) {
  // No Valgrind on this PATH: the run stops (exit 5) before writing reports,
  // and the earlier run's reports must not be left looking like this run's.
  auto env = MinimalEnvironment(dir_.path());
  env["PATH"] = "/nonexistent";
  std::ofstream(Path("r.json")) << "{\"verdict\": \"ok\", \"exit_code\": 0}\n";
  std::ofstream(Path("r.md")) << "ok\n";
  std::ofstream(Path("c.json")) << "{\"valid\": true}\n";
  LaunchResult r =
      Run({"compare", "--backend", "callgrind", "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkA, "--json", "r.json", "--markdown", "r.md", "--", "1000"},
          env);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  // What was searched, and how to fix it; never "not installed".
  EXPECT_NE(r.err.find("valgrind is not on PATH (searched /nonexistent)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("WORKGATE_VALGRIND"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Path("r.json")));
  EXPECT_FALSE(fs::exists(Path("r.md")));
  r = Run({"count", "--backend", "callgrind", "--json", "c.json", "--", KnownLoop(), "1"}, env);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_FALSE(fs::exists(Path("c.json")));
}

TEST_F(EnvironmentCliTest, TheValgrindThatCountedIsInTheFingerprintAndTheReport) {
  const std::string real = FindValgrind().path;
  const std::string version = FindValgrind().version.substr(FindValgrind().version.find('-') + 1);
  // Chosen through a symlink: the real file is what counts and what is shown.
  fs::create_symlink(real, Path("vg-link"));
  auto env = MinimalEnvironment(dir_.path());
  env["WORKGATE_VALGRIND"] = Path("vg-link");
  LaunchResult saved = Run({"compare", "--backend", "callgrind", "--baseline", kKnownWorkA,
                            "--timed", "0", "--save-baseline", "base.json", "--", "1000"},
                           env);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_EQ(ReadJson("base.json")["workloads"][0]["fingerprint"]["valgrind_path"], real);

  // A valgrind first on PATH that wraps the real one counts the same: it
  // must not pass against counts the real one made.
  const std::string fake = Script("fake/valgrind", "exec " + real + " \"$@\"\n");
  env = MinimalEnvironment(dir_.path());
  env["PATH"] = Path("fake") + ":" + env["PATH"];
  LaunchResult r =
      Run({"compare", "--backend", "callgrind", "--baseline-results", "base.json", "--candidate",
           kKnownWorkA, "--timed", "0", "--json", "r.json", "--", "1000"},
          env);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("Valgrind " + version + " at " + fake), std::string::npos) << r.out;
  const auto j = ReadJson("r.json");
  EXPECT_EQ(j["workloads"][0]["candidate"]["fingerprint"]["valgrind_path"], fake);
  const std::string reason = j["workloads"][0]["reason"];
  EXPECT_NE(reason.find("Valgrind path differs (baseline " + real + ", candidate " + fake + ")"),
            std::string::npos)
      << reason;
}

}  // namespace
}  // namespace workgate
