// The flame graph page as a person sees it: written by the renderer, loaded
// from a file:// URL in headless Chromium, whose DOM must hold every frame
// with its name and costs, and no element a hostile function name smuggled
// in (Chromium through workgate's launcher: report/headless_chromium.h).

#include <gtest/gtest.h>

#include <regex>

#include "report/flame_graph_html.h"
#include "report/flame_graph_sample.h"
#include "report/headless_chromium.h"
#include "report/history_sample.h"
#include "test_requirements.h"
#include "util/atomic_file.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::Occurrences;

class FlameGraphBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = SearchPath("chromium", "/usr/bin:/bin");
    WORKGATE_REQUIRE_TOOL(!chromium_.empty(),
                          "Chromium is not installed (Debian package chromium)");
    workloads_ = testing::SampleFlameWorkloads();
    std::string err;
    ASSERT_TRUE(WriteFileAtomically(dir_.path() + "/flame.html", RenderFlameGraphHtml(workloads_),
                                    &err))
        << err;
  }

  // The DOM Chromium builds from the page.
  LaunchResult DumpDom() {
    return testing::HeadlessChromium(chromium_, dir_.path() + "/flame.html", dir_.path(),
                                     {"--dump-dom"});
  }

  std::string chromium_;
  std::vector<WorkloadResult> workloads_;
  TempDir dir_;
};

TEST_F(FlameGraphBrowserTest, TheDomHoldsEveryFrameAndNothingANameSmuggledIn) {
  const LaunchResult r = DumpDom();
  ASSERT_TRUE(r.ok()) << r.Describe(120) << "\n" << r.err;
  ASSERT_EQ(r.out_bytes, r.out.size()) << "the DOM was longer than the launcher keeps";
  const std::string& dom = r.out;
  ASSERT_NE(dom.find("<title>workgate flame graph</title>"), std::string::npos) << dom;
  // One SVG per workload with a flame graph, each with its frames, each
  // frame with its tooltip and box.
  const std::vector<std::string> svgs = testing::SvgElements(dom);
  ASSERT_EQ(svgs.size(), 2u) << dom;
  const size_t frames[] = {workloads_[0].explanation->flame_graph->frames.size(),
                           workloads_[2].explanation->flame_graph->frames.size()};
  for (size_t s = 0; s < 2; ++s) {
    EXPECT_EQ(Occurrences(svgs[s], "<g class=\"frame "), frames[s]) << svgs[s];
    EXPECT_EQ(Occurrences(svgs[s], "<title>"), frames[s]);
    EXPECT_EQ(Occurrences(svgs[s], "<rect "), frames[s]);
  }
  for (const char* name : {"main", "vm_run", "vm_gc", "vm_print", "init"}) {
    EXPECT_EQ(Occurrences(svgs[0], std::string("data-function=\"") + name + "\""), 1u) << name;
  }
  EXPECT_NE(svgs[0].find("data-function=\"vm_gc\" data-object=\"{exe}\" data-baseline=\"2000\" "
                         "data-candidate=\"1000\""),
            std::string::npos);
  // The hostile name is an attribute value and text, never an element:
  // without the attribute values no <script> is left, and the text closes
  // no <text> early (the serialiser writes '<' in an attribute as is or as
  // &lt;, depending on its version).
  const std::string bare = std::regex_replace(dom, std::regex("=\"[^\"]*\""), "=\"\"");
  EXPECT_EQ(bare.find("<script"), std::string::npos);
  EXPECT_EQ(Occurrences(bare, "<text"), Occurrences(bare, "</text>"));
  std::string parsed = std::regex_replace(dom, std::regex("&lt;"), "<");
  parsed = std::regex_replace(parsed, std::regex("&gt;"), ">");
  EXPECT_EQ(Occurrences(parsed, std::string("data-function=\"") +
                                    "</text><script>alert(1)</script>&quot;'&amp;x\""),
            1u)
      << dom;
}

}  // namespace
}  // namespace workgate
