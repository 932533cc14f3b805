#pragma once
// The schema version of every JSON document workgate writes, in one place:
// each document's header says what its versions added, and schemas/ holds
// the JSON Schema of the current one. A reader accepts the versions it
// names and refuses the others (a newer workgate's document is not guessed
// at).

namespace workgate {

/// `compare --json`: the compare report (report/json_report.h)
inline constexpr int kCompareSchemaVersion = 10;
/// `count --json` (report/count_json.h)
inline constexpr int kCountSchemaVersion = 4;
/// `probe --json` (probe/probe_json.h)
inline constexpr int kProbeSchemaVersion = 1;
/// `probe --merge` (report/probe_table.h)
inline constexpr int kProbeTableSchemaVersion = 1;
/// `history --json` (report/history_json.h)
inline constexpr int kHistorySchemaVersion = 3;
/// `explain --json` (report/explain_json.h)
inline constexpr int kExplainSchemaVersion = 4;
/// `--save-baseline` files (decision/baseline_file.h)
inline constexpr int kBaselineSchemaVersion = 2;

}  // namespace workgate
