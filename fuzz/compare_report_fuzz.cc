// libFuzzer entry point for the compare-report reader (the parts workgate
// merge reads) and, through it, the merge's checks and the three renderers.
// Built by fuzz/CMakeLists.txt with clang only; run by ci/fuzz.
//
// Checks what the reader promises (an error names the file; an accepted
// report has bounded counts and lists, and what the writer writes of it reads
// again), and that whatever a part says, the merge either refuses it or gives
// a report every renderer can render without undefined behaviour (UBSan).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decision/decision.h"
#include "decision/merge.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/report_reader.h"
#include "report/terminal_report.h"
#include "util/text.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string err;
  auto report = workgate::ParseCompareReport(text, "fuzz.json", &err);
  if (!report) {
    Check(err.rfind("the report fuzz.json ", 0) == 0);
    return 0;
  }
  for (const workgate::WorkloadResult& w : report->workloads) {
    Check(!w.name.empty());
    for (const workgate::SideResult* s : {&w.baseline, &w.candidate}) {
      Check(s->counts.size() <= workgate::kMaxListItems);
      for (uint64_t c : s->counts) Check(c <= workgate::kMaxCount);
    }
  }
  // What the writer writes of it, the reader reads.
  Check(workgate::ParseCompareReport(workgate::JsonText(workgate::ToJson(*report)), "again.json",
                                     &err)
            .has_value());

  std::vector<workgate::ReportPart> parts = {{"fuzz.json", *report}};
  workgate::CompareReport merged;
  std::vector<std::string> missing;
  if (workgate::MergeShards(parts, &merged, &missing, &err)) {
    Check(merged.workloads.size() == report->shard->workloads.size());
    Check(!workgate::RenderTerminal(merged, true).empty());
    Check(!workgate::RenderMarkdown(merged).empty());
    Check(workgate::ParseCompareReport(workgate::JsonText(workgate::ToJson(merged)), "m.json", &err)
              .has_value());
  }
  return 0;
}
