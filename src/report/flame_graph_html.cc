#include "report/flame_graph_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/explanation_text.h"
#include "report/format.h"
#include "report/html_page.h"
#include "report/markdown_text.h"
#include "report/report_output.h"
#include "util/text.h"

namespace workgate {
namespace {

constexpr Minus kPageMinus = Minus::kUnicode;

// The flame graph's own style, after the pages' base style
// (report/html_page.h).
constexpr const char* kPageStyle = R"css(
section.workload { border-top: 1px solid #d5dbe1; padding: 16px 0 20px; }
p { max-width: 860px; }
p.lead, p.totals { color: #57606a; }
p.note { color: #9a6700; }
svg.flamegraph { display: block; margin: 10px 0; background: #fbfcfd; }
svg .frame rect { stroke: #fff; stroke-width: 0.5; }
svg .frame text { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; fill: #1d232a;
                  pointer-events: none; }
svg .frame:hover rect { stroke: #1d232a; stroke-width: 1; }
)css";

// How many bytes of a name the page keeps, in attributes and tooltips.
constexpr size_t kShownNameBytes = 200;
// The width of one character of the frames' text, to cut a name to fit.
constexpr double kCharWidth = 7.3;

struct Rgb {
  double r, g, b;
};
constexpr Rgb kNeutral = {226, 221, 212};
constexpr Rgb kMore = {206, 38, 38};
constexpr Rgb kLess = {33, 102, 190};

// The relative change of a frame: -1 (gone) to +1 (new), 0 unchanged.
double Change(const FlameFrame& f) {
  if (f.width() == 0) return 0;
  return (static_cast<double>(f.candidate) - static_cast<double>(f.baseline)) /
         static_cast<double>(f.width());
}

const char* ChangeClass(const FlameFrame& f, bool root) {
  if (root) return "root";
  if (f.candidate == f.baseline) return "same";
  return f.candidate > f.baseline ? "more" : "less";
}

// Neutral for no change, deeper red (more work) or blue (less) as the
// relative change grows; the square root makes a change of a few percent
// visible.
std::string Fill(const FlameFrame& f) {
  const double change = Change(f);
  const Rgb& to = change > 0 ? kMore : kLess;
  const double t = std::min(1.0, std::sqrt(std::abs(change)));
  auto mix = [t](double from, double into) {
    return static_cast<int>(std::lround(from + (into - from) * t));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(kNeutral.r, to.r), mix(kNeutral.g, to.g),
                     mix(kNeutral.b, to.b));
}

std::string Label(const FlameFrame& f, bool root) {
  if (root) return "all (the whole program)";
  const std::string name = ShortenBytes(f.function, kShownNameBytes);
  return f.object.empty() ? name : name + " in " + ShortenBytes(f.object, kShownNameBytes);
}

std::string ChangeText(const FlameFrame& f) {
  // A frame's cost is at most its profile's total, which an explanation
  // keeps within int64 (explain.h DiffProfiles).
  const int64_t delta = static_cast<int64_t>(f.candidate) - static_cast<int64_t>(f.baseline);
  std::string percent;
  if (f.baseline == 0 && f.candidate > 0) {
    percent = "new";
  } else if (f.baseline > 0) {
    percent = FormatPercent(static_cast<double>(delta) / static_cast<double>(f.baseline),
                            kPageMinus);
  }
  return fmt::format("baseline {} \u00b7 candidate {} \u00b7 \u0394 {}{}", FormatCount(f.baseline),
                     FormatCount(f.candidate), FormatSignedCount(delta, kPageMinus),
                     percent.empty() ? "" : " (" + percent + ")");
}

// Where each frame is drawn: x and width in pixels.
struct Box {
  double x = 0, width = 0;
};

// Lays the frames out: a frame's callees side by side under it, each as wide
// as its cost at its caller's scale, narrowed together where they would be
// wider than the caller.
std::vector<Box> Layout(const FlameGraph& g) {
  const std::vector<FlameFrame>& frames = g.frames;
  std::vector<Box> boxes(frames.size());
  if (frames.empty()) return boxes;
  std::vector<double> callee_sum(frames.size(), 0);
  for (size_t i = 1; i < frames.size(); ++i) {
    callee_sum[frames[i].parent] += static_cast<double>(frames[i].width());
  }
  std::vector<double> scale(frames.size(), 0);   // pixels per instruction, of a frame's callees
  std::vector<double> cursor(frames.size(), 0);  // where its next callee starts
  const double root = static_cast<double>(frames[0].width());
  boxes[0] = {0, root > 0 ? kFlameGraphWidth : 0};
  scale[0] = root > 0 ? kFlameGraphWidth / root : 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i > 0) {
      const uint32_t p = frames[i].parent;
      boxes[i] = {cursor[p], static_cast<double>(frames[i].width()) * scale[p]};
      cursor[p] += boxes[i].width;
      scale[i] = scale[p];
    }
    cursor[i] = boxes[i].x;
    if (callee_sum[i] * scale[i] > boxes[i].width && callee_sum[i] > 0) {
      scale[i] = boxes[i].width / callee_sum[i];
    }
  }
  return boxes;
}

std::string Svg(const FlameGraph& g) {
  uint32_t deepest = 0;
  for (const FlameFrame& f : g.frames) deepest = std::max(deepest, f.depth);
  const double height = (deepest + 1) * kFlameFrameHeight;
  std::string out = fmt::format(
      "<svg class=\"flamegraph\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">\n",
      kFlameGraphWidth, height);
  const std::vector<Box> boxes = Layout(g);
  for (size_t i = 0; i < g.frames.size(); ++i) {
    const FlameFrame& f = g.frames[i];
    const bool root = i == 0;
    const std::string label = Label(f, root);
    const double y = height - (f.depth + 1) * kFlameFrameHeight;
    out += fmt::format(
        "<g class=\"frame {}\" data-function=\"{}\" data-object=\"{}\" data-baseline=\"{}\" "
        "data-candidate=\"{}\"><title>{}\n{}</title><rect x=\"{:.2f}\" y=\"{:.1f}\" "
        "width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"/>",
        ChangeClass(f, root), HtmlText(ShortenBytes(f.function, kShownNameBytes)),
        HtmlText(ShortenBytes(f.object, kShownNameBytes)), f.baseline, f.candidate,
        HtmlText(label), HtmlText(ChangeText(f)), boxes[i].x, y, boxes[i].width,
        kFlameFrameHeight, Fill(f));
    const double fits = std::floor((boxes[i].width - 6) / kCharWidth);
    if (fits >= 3) {
      out += fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\">{}</text>", boxes[i].x + 3,
                         y + kFlameFrameHeight - 5,
                         HtmlText(CutText(label, static_cast<size_t>(fits) - 1)));
    }
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string Section(const WorkloadResult& w) {
  const Explanation& e = *w.explanation;
  const FlameGraph& g = *e.flame_graph;
  std::string out = fmt::format("<section class=\"workload\" data-workload=\"{0}\">\n<h2>{0}</h2>\n",
                                HtmlText(w.name));
  if (!g.frames.empty()) {
    const std::string source = ProfileSourceSentence(e);
    out += fmt::format("<p class=\"totals\">The whole program: {}.{}</p>\n",
                       HtmlText(ChangeText(g.frames[0])),
                       source.empty() ? "" : " " + HtmlText(source));
  }
  if (!g.call_edges) {
    out += "<p class=\"note\">The profiles carry no call edges: each function is one frame "
           "under the whole program, as wide as its self cost.</p>\n";
  }
  for (const std::string& cut : ProfileCutSentences(e)) {
    out += "<p class=\"note\">" + HtmlText(cut) + "</p>\n";
  }
  if (g.cut) {
    out += fmt::format(
        "<p class=\"note\">The graph was cut by its bounds ({} frames drawn): what it leaves "
        "out is in the frames of their callers.</p>\n",
        g.frames.size());
  }
  return out + Svg(g) + "</section>\n";
}

bool HasFlameGraph(const WorkloadResult& w) {
  return w.explanation && w.explanation->error.empty() && w.explanation->flame_graph;
}

}  // namespace

std::string RenderFlameGraphHtml(const std::vector<WorkloadResult>& workloads) {
  std::string out = HtmlPageStart("workgate flame graph", kPageStyle);
  out +=
      "<h1>workgate differential flame graph</h1>\n<p class=\"lead\">Inclusive cost by call "
      "stack, the whole program at the bottom and each callee above its caller. A frame is as "
      "wide as the larger of its baseline and candidate cost, so frames that vanished and frames "
      "that are new both show; where callees together are wider than their caller they are "
      "narrowed to fit. Red is more work in the candidate, blue less, grey unchanged; the deeper "
      "the colour, the larger the relative change. Each frame tells both costs when pointed at. "
      "Stacks are reconstructed from call edges: where a function is called from several places, "
      "its callees are shared among its stacks in proportion to its cost in each stack, "
      "an approximation. Frames under 0.05% of the whole are left out; their cost stays in their "
      "callers.</p>\n";
  for (const WorkloadResult& w : workloads) {
    if (HasFlameGraph(w)) out += Section(w);
  }
  return out + HtmlPageEnd("workgate flame graph");
}

std::string NoFlameGraphReason(const std::vector<WorkloadResult>& workloads) {
  bool explained = false;
  for (const WorkloadResult& w : workloads) {
    if (HasFlameGraph(w)) return "";
    explained = explained || w.explanation.has_value();
  }
  return explained ? "no explanation could be made (the report says why)"
                   : "no workload was explained";
}

bool WriteFlameGraphHtml(const std::string& path, const std::vector<WorkloadResult>& workloads,
                         std::string* err) {
  return WriteTextFile(path, RenderFlameGraphHtml(workloads), "the flame graph", err);
}

}  // namespace workgate
