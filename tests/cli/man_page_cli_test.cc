// The man page (docs/workgate.1.scd, turned into roff by the build) names
// every option each command's --help lists, so a new option cannot go
// undocumented there.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "cli/cli_fixture.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::SourcePath;

TEST_F(CliTest, TheManPageNamesEveryOptionOfEveryCommand) {
  const auto page = ReadFile(SourcePath("docs/workgate.1.scd"));
  ASSERT_TRUE(page.has_value());
  // An option's name in --help starts its line: "  --json FILE  ...".
  const std::regex option_line("^  (?:-[a-z],)?(--[a-z][a-z-]*)");
  size_t checked = 0;
  for (const char* command : {"", "probe", "count", "compare", "explain"}) {
    std::vector<std::string> args;
    if (*command) args.push_back(command);
    args.push_back("--help");
    LaunchResult help = Run(args);
    ASSERT_EQ(help.exit_code, 0) << command << ": " << help.err;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, option_line)) continue;
      ++checked;
      // scdoc's bold, as the OPTIONS section writes every option.
      EXPECT_NE(page->find("*" + m[1].str() + "*"), std::string::npos)
          << "workgate " << command << " " << m[1] << " is not in docs/workgate.1.scd";
    }
  }
  EXPECT_GT(checked, 40u) << "--help lists fewer options than expected: its format changed?";
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
