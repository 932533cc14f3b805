#include "report/terminal_report.h"

#include <gtest/gtest.h>

#include "report/sample_report.h"
#include "report/text_table.h"

namespace workgate {
namespace {

using testing_report::CallgrindReport;
using testing_report::ExpectSnapshot;
using testing_report::PerfReport;

TEST(TerminalReportTest, CallgrindSnapshot) {
  ExpectSnapshot("callgrind_report.txt", RenderTerminal(CallgrindReport(), false));
}

TEST(TerminalReportTest, PerfSnapshot) {
  ExpectSnapshot("perf_report.txt", RenderTerminal(PerfReport(), false));
}

TEST(TerminalReportTest, BackendLineNamesTheValgrindThatCounted) {
  CompareReport r = CallgrindReport();
  r.workloads[0].candidate.fingerprint.valgrind_path = "/usr/bin/valgrind";
  EXPECT_NE(RenderTerminal(r, false).find(
                "Counted with callgrind (Valgrind 3.19.0 at /usr/bin/valgrind, event Ir)"),
            std::string::npos);
}

TEST(TerminalReportTest, ColourOnlyWhenAsked) {
  EXPECT_EQ(RenderTerminal(CallgrindReport(), false).find('\033'), std::string::npos);
  std::string coloured = RenderTerminal(CallgrindReport(), true);
  EXPECT_NE(coloured.find("\033[1;31mwork-added\033[0m"), std::string::npos);
  EXPECT_NE(coloured.find("\033[32mok\033[0m"), std::string::npos);
}

TEST(TerminalReportTest, ColourDoesNotMoveColumns) {
  // Strip the escapes from the coloured text: what remains is the plain text.
  std::string coloured = RenderTerminal(PerfReport(), true), stripped;
  for (size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\033') {
      i = coloured.find('m', i);
      continue;
    }
    stripped += coloured[i];
  }
  EXPECT_EQ(stripped, RenderTerminal(PerfReport(), false));
}

TEST(TerminalReportTest, TextTableAlignsByDisplayWidth) {
  TextTable t({TextTable::Align::kLeft, TextTable::Align::kRight});
  t.AddRow({"\u0394 name", "1"});
  t.AddRow({"ab", "-1,000"});
  EXPECT_EQ(t.Render(1, false), " \u0394 name       1\n ab      -1,000\n");
}

}  // namespace
}  // namespace workgate
