// The man page (docs/workgate.1.scd, turned into roff by the build) names
// every command and every option --help lists, so a new one cannot go
// undocumented there.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::SourcePath;

// The names --help lists on lines that start with `pattern`'s match, from
// the line after `section` up to the next blank line ("" for every line).
std::vector<std::string> HelpNames(const std::string& help, const std::string& section,
                                   const std::regex& pattern) {
  std::vector<std::string> names;
  std::istringstream lines(help);
  bool inside = section.empty();
  for (std::string line; std::getline(lines, line);) {
    if (!inside) {
      inside = line == section;
      continue;
    }
    if (!section.empty() && line.empty()) break;
    std::smatch m;
    if (std::regex_search(line, m, pattern)) names.push_back(m[1].str());
  }
  return names;
}

TEST_F(CliTest, TheManPageNamesEveryCommandAndEveryOption) {
  const auto page = ReadFile(SourcePath("docs/workgate.1.scd"));
  ASSERT_TRUE(page.has_value());
  LaunchResult top = Run({"--help"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  // "  probe    Tell what ...", under "Subcommands:".
  const std::vector<std::string> commands =
      HelpNames(top.out, "Subcommands:", std::regex("^  ([a-z]+) "));
  ASSERT_GE(commands.size(), 4u) << top.out;
  // An option starts its line: "  --json FILE  ...", "  -h,--help".
  const std::regex option("^  (?:-[a-z],)?(--[a-z][a-z-]*)");
  // scdoc's bold, as the page writes every command and option.
  auto documented = [&](const std::string& name) {
    return page->find("*" + name + "*") != std::string::npos;
  };
  size_t options = 0;
  for (const std::string& name : HelpNames(top.out, "", option)) {
    EXPECT_TRUE(documented(name)) << "workgate " << name << " is not in docs/workgate.1.scd";
  }
  for (const std::string& command : commands) {
    EXPECT_TRUE(documented(command)) << "workgate " << command << " is not in docs/workgate.1.scd";
    LaunchResult help = Run({command, "--help"});
    ASSERT_EQ(help.exit_code, 0) << command << ": " << help.err;
    for (const std::string& name : HelpNames(help.out, "", option)) {
      ++options;
      EXPECT_TRUE(documented(name))
          << "workgate " << command << " " << name << " is not in docs/workgate.1.scd";
    }
  }
  EXPECT_GT(options, 40u) << "--help lists fewer options than expected: its format changed?";
}

TEST_F(CliTest, TheBuildTurnsTheManPageIntoRoff) {
  const auto roff = ReadFile(BuildPath("docs/workgate.1"));
  ASSERT_TRUE(roff.has_value()) << BuildPath("docs/workgate.1")
                                << " is missing, but the build makes it (docs/CMakeLists.txt)";
  EXPECT_NE(roff->find(".TH \"workgate\" \"1\""), std::string::npos) << roff->substr(0, 200);
  EXPECT_NE(roff->find(".SH EXIT STATUS"), std::string::npos);
}

}  // namespace
}  // namespace workgate
