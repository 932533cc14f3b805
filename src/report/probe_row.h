#pragma once
// One runner's capability, as `workgate probe --markdown` and `probe --merge`
// show it (report/probe_table.h): read from the JSON of `probe --json`
// (probe/probe_json.h), this machine's or another runner's. Another
// runner's file is untrusted input: bounded in size, every field used is
// checked for its type, backend names must be workgate's, and a document
// that is no probe is refused with a message naming the file. Fuzzed by
// fuzz/probe_row_fuzz.cc.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workgate {

/// The largest probe file LoadProbeRow reads; a real one is a few KiB.
inline constexpr size_t kMaxProbeBytes = 1 << 20;

/// A backend's resolution on the known loop (probe/resolution.h).
struct ProbeResolution {
  std::string backend;  // "perf", "callgrind" or "vgcount"
  bool ok = false;      // false: `error` says why nothing was measured
  std::string error;
  bool exact = false;
  uint64_t spread = 0;  // max - min over repeats, in instructions
  double per_iteration = 0;
};

struct ProbeRow {
  std::string label;            // the runner: probe --label, by default its hostname
  std::string source;           // the file it was read from; "" for this machine
  std::string event;            // the perf event checked
  bool pmu_counts = false;      // perf counts `event` here
  std::string pmu_reason;       // why not, as the probe says it
  std::optional<int> paranoid;  // perf_event_paranoid
  std::string backend;          // what auto chooses; "" when none can count
  std::vector<ProbeResolution> resolutions;
  std::optional<bool> hypervisor_present;
  std::string hypervisor;  // its name, or its cpuid vendor; "" when unknown
};

/// The row of the probe document `doc`, read from `source` (named in
/// messages; "" for this machine). False with `*err`.
bool ProbeRowFromJson(const nlohmann::json& doc, const std::string& source, ProbeRow* row,
                      std::string* err);

/// Parses `text`, read from `path`, as a probe: "PATH is not a workgate probe
/// (probe --json FILE writes one): ..." or "PATH is corrupt: ...".
std::optional<ProbeRow> ParseProbeRow(std::string_view text, const std::string& path,
                                      std::string* err);

/// Reads the file at `path` (a regular file of at most kMaxProbeBytes) and
/// parses it.
std::optional<ProbeRow> LoadProbeRow(const std::string& path, std::string* err);

}  // namespace workgate
