// libFuzzer entry point for the reader of other runners' probe files
// (workgate probe --merge) and the tables made from them. Built by
// fuzz/CMakeLists.txt with clang only; run by ci/fuzz.
//
// Checks that an error names the file, that an accepted probe names only
// workgate's backends, and that the text, Markdown and JSON tables render
// whatever it says, with no escape character reaching the terminal.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/probe_row.h"
#include "report/probe_table.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

bool IsBackend(const std::string& name) {
  return name == "perf" || name == "callgrind" || name == "vgcount";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string err;
  auto row = workgate::ParseProbeRow(text, "fuzz.json", &err);
  if (!row) {
    Check(err.rfind("fuzz.json ", 0) == 0);
    return 0;
  }
  Check(row->backend.empty() || IsBackend(row->backend));
  for (const workgate::ProbeResolution& r : row->resolutions) Check(IsBackend(r.backend));
  const std::string table = workgate::ProbeTableText({*row, *row});
  Check(table.find('\x1b') == std::string::npos);
  Check(!workgate::ProbeTableMarkdown({*row}).empty());
  Check(workgate::ProbeTableToJson({*row})["runners"].size() == 1);
  return 0;
}
