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

/// Writes `doc` as JSON (util/text.h JsonText: two-space indent, invalid
/// UTF-8 replaced, a final newline) to `path` atomically (util/atomic_file.h).
/// `what` names the document in the error: "cannot write the JSON report: ...".
bool WriteJsonFile(const std::string& path, const nlohmann::json& doc, const std::string& what,
                   std::string* err);

/// Writes `doc` as JSON, the same text as WriteJsonFile, to `stream`.
bool PrintJson(const nlohmann::json& doc, FILE* stream, const std::string& what, std::string* err);

/// Writes `text` to `stream` and flushes it; false with `*err` when the write
/// or the flush fails (stdio buffers, so a full disk shows only at the
/// flush): "cannot write <what> to standard output: No space left on device".
bool PrintText(std::string_view text, FILE* stream, const std::string& what, std::string* err);

/// Appends `text` to the file at `path`, creating it (mode 0666 minus the
/// umask) when it does not exist.
bool AppendToFile(const std::string& path, std::string_view text, std::string* err);

}  // namespace workgate
