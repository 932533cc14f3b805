#pragma once
// Where every report goes: the one way workgate writes a JSON document (to a
// file, atomically, or to stdout) and writes text to stdout or appends it to
// a file. Every write is checked: a full disk or a closed stdout is an error
// the caller turns into exit 5, never a silently truncated report.

#include <stdio.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace workgate {

/// A report's path that means standard output: `--json -`, `--markdown -`.
inline constexpr std::string_view kStandardOutputPath = "-";
inline bool IsStandardOutput(std::string_view path) { return path == kStandardOutputPath; }

/// Writes `doc` as JSON (util/text.h JsonText: two-space indent, invalid
/// UTF-8 replaced, a final newline) to `path` atomically (util/atomic_file.h),
/// or to stdout where `path` is "-". `what` names the document in the error:
/// "cannot write the JSON report: ...".
bool WriteJsonFile(const std::string& path, const nlohmann::json& doc, const std::string& what,
                   std::string* err);

/// Writes `text` to `path` atomically, or to stdout where `path` is "-".
bool WriteTextFile(const std::string& path, std::string_view text, const std::string& what,
                   std::string* err);

/// Writes `doc` as JSON, the same text as WriteJsonFile, to `stream`.
bool PrintJson(const nlohmann::json& doc, FILE* stream, const std::string& what, std::string* err);

/// Writes `text` to `stream` and flushes it; false with `*err` when the write
/// or the flush fails (stdio buffers, so a full disk shows only at the
/// flush): "cannot write <what> to standard output: No space left on device".
/// The caller reports `*err`, so StandardOutputLost does not again.
bool PrintText(std::string_view text, FILE* stream, const std::string& what, std::string* err);

/// Writes `text` to `stream` and flushes it, for text printed while a command
/// goes on (a count's lines, the counted command's own output), which a
/// failure should not stop: the first failure on standard output is kept,
/// with `what` and errno, for StandardOutputLost when the command ends. A
/// failure on standard error is not kept: there is nowhere to report it.
void WriteText(std::string_view text, FILE* stream, const std::string& what);

/// When a command ends (main): flushes standard output and says whether any
/// text written there was lost (a full disk, a reader that went away), so
/// that the command exits 5 instead of passing with its output gone. True
/// with `*err` the message for the first loss ("cannot write the count to
/// standard output: No space left on device"), or "" where PrintText already
/// gave it to its caller. `what` names text written without either helper
/// (CLI11's --help), which only the final flush finds lost.
bool StandardOutputLost(const std::string& what, std::string* err);

/// Appends `text` to the file at `path`, creating it (mode 0666 minus the
/// umask) when it does not exist.
bool AppendToFile(const std::string& path, std::string_view text, std::string* err);

}  // namespace workgate
