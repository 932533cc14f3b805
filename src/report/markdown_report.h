#pragma once
// The Markdown report (`--markdown FILE`, and $GITHUB_STEP_SUMMARY with
// --github): a pull-request comment. Verdict first, then the table of exact
// counts, per-workload explanations, the backend and why it was chosen, the
// timed scores marked as context, the line on what a count does not see, and a
// footer. ARCHITECTURE.md ("Reports") describes the shape, and
// tests/report/testdata/*.md are reviewed examples of it.

#include <string>

#include "model/model.h"

namespace workgate {

/// The whole comment, ending in a newline.
std::string RenderMarkdown(const CompareReport& report);

/// Writes RenderMarkdown(report) to `path` atomically.
bool WriteMarkdownReport(const std::string& path, const CompareReport& report, std::string* err);

}  // namespace workgate
