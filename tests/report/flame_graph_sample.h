#pragma once
// Workloads with flame graphs for the page's tests (flame_graph_html_test.cc,
// flame_graph_browser_test.cc): one with call edges and a function whose
// name would end the SVG's text and open a script, one without call edges.

#include <string>
#include <vector>

#include "model/model.h"

namespace workgate {
namespace testing {

inline constexpr const char* kHostileFunction = "</text><script>alert(1)</script>\"'&x";

inline FlameFrame SampleFrame(const std::string& function, uint32_t parent, uint32_t depth,
                              uint64_t baseline, uint64_t candidate) {
  return FlameFrame{function, function.empty() ? "" : "{exe}", parent, depth, baseline, candidate};
}

inline std::vector<WorkloadResult> SampleFlameWorkloads() {
  WorkloadResult calls;
  calls.name = "interp/fib";
  calls.explanation = Explanation{};
  calls.explanation->profiler = "callgrind";
  FlameGraph g;
  g.call_edges = true;
  g.frames = {SampleFrame("", 0, 0, 10000, 12000),
              SampleFrame("main", 0, 1, 10000, 12000),
              SampleFrame("vm_run", 1, 2, 9000, 11000),
              SampleFrame(kHostileFunction, 2, 3, 0, 3000),
              SampleFrame("vm_gc", 2, 3, 2000, 1000),
              SampleFrame("vm_print", 2, 3, 500, 500),
              SampleFrame("init", 1, 2, 1000, 1000)};
  calls.explanation->flame_graph = g;
  WorkloadResult flat;
  flat.name = "interp/loop";
  flat.explanation = Explanation{};
  flat.explanation->profiler = "vgcount";
  FlameGraph h;
  h.frames = {SampleFrame("", 0, 0, 5000, 5100), SampleFrame("vm_run", 0, 1, 4000, 4100),
              SampleFrame("main", 0, 1, 1000, 1000)};
  flat.explanation->flame_graph = h;
  WorkloadResult unexplained;
  unexplained.name = "interp/strings";
  return {calls, unexplained, flat};
}

}  // namespace testing
}  // namespace workgate
