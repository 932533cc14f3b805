// The real workgate against a candidate that attacks the checkout its
// source lines come from (checkout_writer.c): while it is counted it plants
// a filter and a textconv command in the repository's configuration and
// replaces its tracked source with a hard link to a secret. Afterwards,
// explaining the delta line by line with --source-base, workgate runs
// neither command and quotes nothing of the secret.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_fixture.h"
#include "measure/git_test_repo.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::kGitCommit;
using testing::ShellIn;

constexpr const char* kCheckoutSecret = "SECRET-XYZZY-13 token=ghp_0123456789abcdef";

class HostileCheckoutCliTest : public CountingCliTest {};

TEST_F(HostileCheckoutCliTest, ACandidateThatWritesTheCheckoutRunsNothingAndIsNotQuoted) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string checkout = Path("checkout");
  // An untracked secret in the checkout (a hard link must stay on one
  // file system, and the checkout is a mount of its own to the workload).
  const std::string secret = checkout + "/.env";
  const std::string marker = Path("planted-command-ran");
  fs::create_directories(checkout);
  fs::copy_file(testing::SourcePath("tests/hostile/checkout_writer.c"),
                checkout + "/checkout_writer.c");
  ShellIn(checkout, "git init -q . && git add checkout_writer.c && " + kGitCommit + " -m c");
  // Many lines of it, so that whatever line a cost is on, it has one.
  {
    std::ofstream out(secret);
    for (int i = 0; i < 200; ++i) out << kCheckoutSecret << "\n";
  }
  for (const std::string side : {"base", "cand"}) {
    fs::create_directories(Path(side));
    ShellIn(checkout, "cc -O1 -g " + std::string(side == "cand" ? "-DCANDIDATE " : "") + "-o '" +
                          Path(side) + "/prog' '" + checkout + "/checkout_writer.c'");
  }

  // A contained run sees a /tmp of its own and every directory but its own
  // read-only; a TMPDIR the command sets to a directory that exists is the
  // one it shares, writable: here the checkout, as any directory is to a
  // candidate on a machine without namespaces.
  LaunchResult r = Run({"compare",
                        "--env",
                        "TMPDIR=" + checkout,
                        "--backend",
                        kExactBackend,
                        "--baseline",
                        Path("base/prog"),
                        "--candidate",
                        Path("cand/prog"),
                        "--timed",
                        "0",
                        "--no-store",
                        "--explain",
                        "always",
                        "--source-root",
                        checkout,
                        "--source-base",
                        "HEAD",
                        "--source-link",
                        "https://example.org/{path}#L{line}",
                        "--json",
                        "r.json",
                        "--markdown",
                        "r.md",
                        "--",
                        checkout,
                        secret,
                        marker});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  // The attack happened: the configuration names the command, and the
  // source is the secret.
  const std::string config = ReadFile(checkout + "/.git/config").value_or("");
  ASSERT_NE(config.find("clean = touch"), std::string::npos) << config;
  ASSERT_EQ(ReadFile(checkout + "/checkout_writer.c").value_or("").rfind(kCheckoutSecret, 0), 0u);

  EXPECT_FALSE(fs::exists(marker)) << "a command the candidate planted ran";
  const std::string json = ReadFile(Path("r.json")).value_or("");
  const std::string markdown = ReadFile(Path("r.md")).value_or("");
  for (const std::string& report : {json, markdown, r.out}) {
    EXPECT_EQ(report.find("SECRET-XYZZY"), std::string::npos) << report;
  }
  // The lines are still named, with no text: the work tree is no longer
  // the commit that was built.
  const nlohmann::json rows = nlohmann::json::parse(json)["workloads"][0]["explanation"]["rows"];
  bool named = false;
  for (const nlohmann::json& row : rows) {
    for (const nlohmann::json& line : row["lines"]) {
      if (line["path"] != "checkout_writer.c") continue;
      named = true;
      EXPECT_TRUE(line["text"].is_null()) << line.dump();
      EXPECT_TRUE(line["url"].is_null()) << line.dump();
    }
  }
  EXPECT_TRUE(named) << rows.dump();
}

}  // namespace
}  // namespace workgate
