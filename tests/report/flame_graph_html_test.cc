// The flame graph page read as text: self-contained, one section and SVG
// per workload with a flame graph, one frame element per frame with both
// costs, coloured by change, nested widths, names inert and bounded, and a
// note where the profiles carry no call edges.
// tests/report/flame_graph_browser_test.cc loads the same page in Chromium.

#include "report/flame_graph_html.h"

#include <gtest/gtest.h>

#include <regex>

#include "report/flame_graph_sample.h"
#include "report/history_sample.h"

namespace workgate {
namespace {

using testing::Occurrences;
using testing::SampleFlameWorkloads;

TEST(FlameGraphHtmlTest, APageNeedsNothingFromElsewhere) {
  const std::string page = RenderFlameGraphHtml(SampleFlameWorkloads());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(page.find("content=\"default-src 'none'; style-src 'unsafe-inline'\""),
            std::string::npos);
  for (const char* outside : {"://", "<script", "<link", "src=", "href=", "url(", "@import"}) {
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  }
  EXPECT_NE(page.find("Stacks are reconstructed from call edges"), std::string::npos);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
}

TEST(FlameGraphHtmlTest, EachExplainedWorkloadHasASectionWithOneElementPerFrame) {
  const std::vector<WorkloadResult> workloads = SampleFlameWorkloads();
  const std::string page = RenderFlameGraphHtml(workloads);
  const std::vector<std::string> svgs = testing::SvgElements(page);
  ASSERT_EQ(svgs.size(), 2u);  // interp/strings was not explained
  EXPECT_EQ(Occurrences(page, "<section class=\"workload\""), 2u);
  EXPECT_LT(page.find("<h2>interp/fib</h2>"), page.find("<h2>interp/loop</h2>"));
  EXPECT_EQ(page.find("interp/strings"), std::string::npos);
  EXPECT_EQ(Occurrences(svgs[0], "<g class=\"frame "), 7u);
  EXPECT_EQ(Occurrences(svgs[1], "<g class=\"frame "), 3u);
  // Seven frames four deep: 4 rows of 18 pixels.
  EXPECT_NE(svgs[0].find("width=\"1200\" height=\"72\" viewBox=\"0 0 1200 72\""),
            std::string::npos);
  EXPECT_EQ(Occurrences(svgs[0], "<g class=\"frame root\""), 1u);
  EXPECT_EQ(Occurrences(svgs[0], "<g class=\"frame more\""), 3u);  // main, vm_run, the new one
  EXPECT_EQ(Occurrences(svgs[0], "<g class=\"frame less\""), 1u);  // vm_gc
  EXPECT_EQ(Occurrences(svgs[0], "<g class=\"frame same\""), 2u);  // vm_print, init
  EXPECT_NE(svgs[0].find("data-function=\"vm_gc\" data-object=\"{exe}\" data-baseline=\"2000\" "
                         "data-candidate=\"1000\"><title>vm_gc in {exe}\nbaseline 2,000 \u00b7 "
                         "candidate 1,000 \u00b7 \u0394 \u22121,000 (\u221250.00%)</title>"),
            std::string::npos)
      << svgs[0];
  // Unchanged is neutral; a frame that is all new is the deepest red.
  EXPECT_NE(svgs[0].find("data-function=\"vm_print\" data-object=\"{exe}\" data-baseline=\"500\" "
                         "data-candidate=\"500\"><title>vm_print in {exe}\nbaseline 500 \u00b7 "
                         "candidate 500 \u00b7 \u0394 0 (0.00%)</title>"),
            std::string::npos);
  EXPECT_NE(svgs[0].find("fill=\"#e2ddd4\""), std::string::npos);
  EXPECT_NE(svgs[0].find("(new)</title>"), std::string::npos);
  EXPECT_NE(svgs[0].find("fill=\"#ce2626\""), std::string::npos);
}

TEST(FlameGraphHtmlTest, CalleesSitInsideTheirCallerAndAreNarrowedWhenWiderTogether) {
  const std::string svg = testing::SvgElements(RenderFlameGraphHtml(SampleFlameWorkloads()))[0];
  // The root is the page's width; main (12,000 of 12,000) too.
  EXPECT_NE(svg.find("<rect x=\"0.00\" y=\"54.0\" width=\"1200.00\""), std::string::npos);
  EXPECT_NE(svg.find("<rect x=\"0.00\" y=\"36.0\" width=\"1200.00\""), std::string::npos);
  // vm_run's callees are 3,000 + 2,000 + 500 wide, vm_run 11,000 (1,100 px): no narrowing.
  EXPECT_NE(svg.find("<rect x=\"0.00\" y=\"18.0\" width=\"1100.00\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<rect x=\"0.00\" y=\"0.0\" width=\"300.00\""), std::string::npos);
  EXPECT_NE(svg.find("<rect x=\"300.00\" y=\"0.0\" width=\"200.00\""), std::string::npos);
  // init follows vm_run under main.
  EXPECT_NE(svg.find("<rect x=\"1100.00\" y=\"18.0\" width=\"100.00\""), std::string::npos);

  // A caller of 1,000 whose callees are 1,000 each (one gone, one new): both
  // narrowed to half its width.
  WorkloadResult w;
  w.name = "w";
  w.explanation = Explanation{};
  FlameGraph g;
  g.call_edges = true;
  g.frames = {testing::SampleFrame("", 0, 0, 1000, 1000),
              testing::SampleFrame("gone", 0, 1, 1000, 0),
              testing::SampleFrame("new", 0, 1, 0, 1000)};
  w.explanation->flame_graph = g;
  const std::string narrowed = testing::SvgElements(RenderFlameGraphHtml({w}))[0];
  EXPECT_NE(narrowed.find("<rect x=\"0.00\" y=\"0.0\" width=\"600.00\""), std::string::npos)
      << narrowed;
  EXPECT_NE(narrowed.find("<rect x=\"600.00\" y=\"0.0\" width=\"600.00\""), std::string::npos);
}

TEST(FlameGraphHtmlTest, AHostileNameIsTextAndAttributeNeverMarkup) {
  const std::string page = RenderFlameGraphHtml(SampleFlameWorkloads());
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("</text><script"), std::string::npos);
  const std::string escaped = "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;x";
  EXPECT_EQ(Occurrences(page, "data-function=\"" + escaped + "\""), 1u);
  EXPECT_EQ(Occurrences(page, "<title>" + escaped + " in {exe}\n"), 1u);
  // Every element of the page is one the renderer writes.
  const std::regex tag("<([a-zA-Z][a-zA-Z0-9]*)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator();
       ++it) {
    EXPECT_TRUE(std::regex_match((*it)[1].str(),
                                 std::regex("html|head|meta|title|style|body|h1|h2|p|section|svg|"
                                            "g|rect|text|footer")))
        << (*it)[1];
  }
}

TEST(FlameGraphHtmlTest, ALongNameIsBoundedAndCutToItsFrame) {
  WorkloadResult w;
  w.name = "w";
  w.explanation = Explanation{};
  FlameGraph g;
  g.call_edges = true;
  const std::string huge(100000, 'n');
  g.frames = {testing::SampleFrame("", 0, 0, 1000, 1000),
              testing::SampleFrame(huge, 0, 1, 100, 100)};
  w.explanation->flame_graph = g;
  const std::string page = RenderFlameGraphHtml({w});
  EXPECT_LT(page.size(), 10000u);
  // 120 px wide: the name is cut to 15 characters and an ellipsis.
  EXPECT_NE(page.find(">" + std::string(14, 'n') + "\u2026</text>"), std::string::npos) << page;
}

TEST(FlameGraphHtmlTest, ProfilesWithoutCallEdgesSaySo) {
  const std::string page = RenderFlameGraphHtml(SampleFlameWorkloads());
  const size_t loop = page.find("<h2>interp/loop</h2>");
  ASSERT_NE(loop, std::string::npos);
  EXPECT_EQ(page.find("The profiles carry no call edges"), page.find("<p class=\"note\">", loop) +
                                                               std::string("<p class=\"note\">").size());
  EXPECT_EQ(Occurrences(page, "The profiles carry no call edges"), 1u);
}

TEST(FlameGraphHtmlTest, NoPageWithoutAFlameGraphAndTheReasonSaysWhy) {
  std::vector<WorkloadResult> workloads = SampleFlameWorkloads();
  EXPECT_EQ(NoFlameGraphReason(workloads), "");
  workloads[0].explanation->error = "baseline profile: cannot open";
  workloads[2].explanation->flame_graph.reset();
  EXPECT_EQ(NoFlameGraphReason(workloads), "no explanation could be made (the report says why)");
  workloads[0].explanation.reset();
  workloads[2].explanation.reset();
  EXPECT_EQ(NoFlameGraphReason(workloads), "no workload was explained");
}

}  // namespace
}  // namespace workgate
