#pragma once
// Recorded history of three workloads over eight commits, for the tests of
// the history renderers and the page loaded in a real browser:
//   - "interp/fib" on vgcount drifts: +0.7% a commit under a 1% margin;
//   - "wgmark/sort" on callgrind has a break (Valgrind upgraded, which moves
//     every count by -1.5%) and, later, one step of +2.4%;
//   - "interp/loop" on perf is flat with noise of a few hundredths of a
//     percent, five counts per commit.
// Each commit was made at 08:15 on the day it was recorded at 09:30, but the
// first, which a workgate that kept no commit dates recorded.

#include <cmath>
#include <string>
#include <vector>

#include "model/history.h"

namespace workgate::testing {

inline const std::vector<std::string> kSampleRefs = {"3f9c2a1", "8be0d44", "c21a9f0", "51d7e3b",
                                                     "a0c4b12", "e77f018", "19ad6c3", "d4e2b95"};

inline HistoryRecord SampleRecord(size_t commit, const std::string& workload,
                                  const std::string& backend, std::vector<uint64_t> counts) {
  HistoryRecord r;
  r.ref = kSampleRefs[commit];
  r.recorded_at = "2026-12-0" + std::to_string(commit + 1) + "T09:30:00Z";
  if (commit > 0) r.committed_at = "2026-12-0" + std::to_string(commit + 1) + "T08:15:00Z";
  r.workload = workload;
  r.backend = backend;
  r.event = backend == "perf" ? "instructions:u" : "Ir";
  r.counts = std::move(counts);
  r.conditions = "conditions-1";
  r.condition_parts = {{"valgrind", "valgrind-3.19.0 at /usr/libexec/valgrind"},
                       {"workgate", "0.1.0-240-gabc1234"}};
  return r;
}

/// The sample's records, in the order a store might return them: by commit.
inline std::vector<HistoryRecord> SampleHistoryRecords() {
  // The median of interp/loop's five counts is the middle one.
  const uint64_t loop[] = {45'678'912, 45'692'011, 45'671'230, 45'681'440,
                           45'665'902, 45'689'377, 45'676'004, 45'684'215};
  const uint64_t sort[] = {1'204'331'907, 1'205'536'239, 1'187'453'195, 1'187'500'012,
                           1'187'411'877, 1'215'909'762, 1'216'100'450, 1'215'988'012};
  std::vector<HistoryRecord> out;
  for (size_t c = 0; c < kSampleRefs.size(); ++c) {
    out.push_back(
        SampleRecord(c, "interp/fib", "vgcount",
                     {static_cast<uint64_t>(std::llround(812'345'678 * std::pow(1.007, c)))}));
    HistoryRecord s = SampleRecord(c, "wgmark/sort", "callgrind", {sort[c]});
    if (c >= 2) {
      s.conditions = "conditions-2";
      s.condition_parts["valgrind"] = "valgrind-3.20.0 at /usr/libexec/valgrind";
    }
    out.push_back(s);
    out.push_back(
        SampleRecord(c, "interp/loop", "perf",
                     {loop[c] + 1'200, loop[c] - 950, loop[c], loop[c] + 310, loop[c] - 2'040}));
  }
  return out;
}

/// The ref of a commit that tries to break out of every context it lands in.
inline const std::string kHostileRef = "<script>alert(1)</script>\"'&";

/// How often `needle` occurs in `text` (overlaps included).
inline size_t Occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

/// The <svg> elements of an HTML page, in order, each up to its "</svg>".
inline std::vector<std::string> SvgElements(const std::string& page) {
  std::vector<std::string> out;
  for (size_t at = page.find("<svg"); at != std::string::npos; at = page.find("<svg", at + 1)) {
    out.push_back(page.substr(at, page.find("</svg>", at) - at));
  }
  return out;
}

}  // namespace workgate::testing
