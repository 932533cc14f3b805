#pragma once
// Reading a compare report (`compare --json FILE`, report/json_report.h) back
// into the result model, for `workgate merge`. A part comes from another
// runner, through a CI's artifact store, so it is untrusted input: bounded in
// size, and read strictly (report/json_fields.h): every field the writer
// writes must be there with its type and range, nothing else may be, lists
// are no longer than workgate makes them, and the figures the writer repeats
// (a side's instructions, min and max; a row's delta) must agree with what
// they repeat. Whether its verdicts follow from its counts is the merge's
// check (decision/merge.h). Fuzzed by fuzz/compare_report_fuzz.cc.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "model/model.h"

namespace workgate {

/// The largest report LoadCompareReport reads, as for a stored baseline.
inline constexpr size_t kMaxReportBytes = 64 << 20;

/// The most items of one list of a workload that workgate writes: counts
/// per side (--max-repeat), timed samples per side (--timed), rows
/// (--explain-top), all at most 1000.
inline constexpr size_t kMaxListItems = 1000;

/// Reads the report in `text`, read from `path` (named in messages). nullopt
/// with `*err`: "the report P is not a workgate compare report (...)", "...
/// has schema_version 2; this workgate reads version 1", "... is corrupt:
/// workloads[0].baseline.counts must be a list", and so on.
std::optional<CompareReport> ParseCompareReport(std::string_view text, const std::string& path,
                                                std::string* err);

/// Reads the file at `path` (a regular file of at most kMaxReportBytes) and
/// parses it; the messages name the file as ParseCompareReport's do ("the
/// report P does not exist").
std::optional<CompareReport> LoadCompareReport(const std::string& path, std::string* err);

}  // namespace workgate
