// The history page as a person sees it: written by the renderer, loaded from
// a file:// URL in headless Chromium (ci/setup installs the Debian package),
// whose DOM must hold one point per recorded commit in each chart and no
// element a record smuggled in, and whose screenshot must be a real picture.
// Chromium runs through workgate's launcher, which bounds its time and
// leaves none of its processes behind (report/headless_chromium.h).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "decision/history.h"
#include "launch/launch.h"
#include "report/headless_chromium.h"
#include "report/history_html.h"
#include "report/history_sample.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/atomic_file.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::Occurrences;

class HistoryBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = SearchPath("chromium", "/usr/bin:/bin");
    WORKGATE_REQUIRE_TOOL(!chromium_.empty(),
                          "Chromium is not installed (Debian package chromium)");
    std::vector<HistoryRecord> records = testing::SampleHistoryRecords();
    for (HistoryRecord& r : records) {
      if (r.ref == "a0c4b12") r.ref = testing::kHostileRef;
    }
    series_ = AnalyzeHistory(records, 10);
    std::string err;
    ASSERT_TRUE(WriteFileAtomically(Path("history.html"), RenderHistoryHtml(series_), &err)) << err;
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  LaunchResult Chromium(const std::vector<std::string>& args) {
    return testing::HeadlessChromium(chromium_, Path("history.html"), dir_.path(), args);
  }

  std::string chromium_;
  std::vector<WorkloadHistory> series_;
  TempDir dir_;
};

TEST_F(HistoryBrowserTest, TheDomHoldsOnePointPerRecordedCommitInEachChart) {
  const LaunchResult r = Chromium({"--dump-dom"});
  ASSERT_TRUE(r.ok()) << r.Describe(120) << "\n" << r.err;
  ASSERT_EQ(r.out_bytes, r.out.size()) << "the DOM was longer than the launcher keeps";
  const std::string& dom = r.out;
  ASSERT_NE(dom.find("<title>workgate history</title>"), std::string::npos) << dom;
  // The charts, in the order of the series, each with its own points.
  const std::vector<std::string> charts = testing::SvgElements(dom);
  ASSERT_EQ(charts.size(), series_.size());
  for (size_t s = 0; s < charts.size(); ++s) {
    EXPECT_EQ(Occurrences(charts[s], "<circle class=\"point\""), series_[s].points.size())
        << series_[s].workload;
    EXPECT_EQ(Occurrences(charts[s], "<title>"),
              series_[s].points.size() + 1 + Occurrences(charts[s], "<rect class=\"band\"") +
                  Occurrences(charts[s], "<line class=\"break\""));
  }
  EXPECT_EQ(charts[0].find("<svg class=\"chart drift\""), 0u);
  EXPECT_EQ(Occurrences(dom, "<tr"), 3 + 24u);  // a header and a row per point
  // The hostile ref is an attribute value and text, never an element:
  // without the attribute values, no <script> is left. The serialiser
  // writes '<' in an attribute as is or as &lt;, depending on its version.
  const std::string bare = std::regex_replace(dom, std::regex("=\"[^\"]*\""), "=\"\"");
  EXPECT_EQ(bare.find("<script"), std::string::npos);
  std::string parsed = std::regex_replace(dom, std::regex("&lt;"), "<");
  parsed = std::regex_replace(parsed, std::regex("&gt;"), ">");
  EXPECT_EQ(Occurrences(parsed, "data-ref=\"<script>alert(1)</script>&quot;'&amp;\""), 3u);
}

TEST_F(HistoryBrowserTest, TheScreenshotIsAPicture) {
  const std::string python = SearchPath("python3", "/usr/bin:/bin");
  WORKGATE_REQUIRE_TOOL(!python.empty(), "python3 is not installed");
  const LaunchResult r = Chromium({"--screenshot=" + Path("page.png"), "--window-size=900,1400"});
  ASSERT_TRUE(r.ok()) << r.Describe(120) << "\n" << r.err;
  LaunchSpec spec;
  spec.argv = {python, testing::SourcePath("tests/report/png_summary.py"), Path("page.png")};
  spec.env = MinimalEnvironment(dir_.path());
  spec.timeout_seconds = 120;
  const LaunchResult png = Launch(spec);
  ASSERT_TRUE(png.ok()) << png.Describe(120) << "\n" << png.err;
  const nlohmann::json summary = nlohmann::json::parse(png.out);
  EXPECT_EQ(summary["width"], 900) << summary;
  EXPECT_EQ(summary["height"], 1400) << summary;
  // Text, lines, bands and points in several colours, on a white page: not
  // one flat colour, and more than a stray line of it.
  EXPECT_GT(summary["colours"].get<int>(), 50) << summary;
  EXPECT_GT(summary["off_background"].get<double>(), 0.03) << summary;
}

}  // namespace
}  // namespace workgate
