#include "workload/suite_writer.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <sstream>

#include "util/text.h"

namespace workgate {

namespace {

// One TOML value as toml++ writes it: quoted and escaped as TOML requires.
template <typename T>
std::string Toml(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// A comment line: one line of valid UTF-8 with no control character, which
// TOML requires of a comment (a line of program output may hold anything).
std::string Comment(const std::string& text) {
  const std::string safe = TerminalSafe(text, LineBreaks::kToSpace);
  return safe.empty() ? "#\n" : "# " + safe + "\n";
}

}  // namespace

std::string TomlString(const std::string& s) { return Toml(toml::value<std::string>(s)); }

std::string SuiteText(const SuiteDraft& draft) {
  std::string out;
  for (const std::string& line : draft.header) out += Comment(line);
  out += "\n[[workload]]\n";
  out += "name = " + TomlString(draft.name) + "\n";
  toml::array command;
  for (const std::string& arg : draft.command) command.push_back(arg);
  out += "command = " + Toml(command) + "\n";
  for (const std::string& line : draft.clock_why) out += Comment(line);
  out += fmt::format("clock = {}\n", TomlString(ClockModeName(draft.clock)));
  if (draft.region) {
    out += Comment("It marks the part to count with <workgate/region.h>'s markers (counted");
    out +=
        Comment("without a region, it turned counting on and off itself): only that part counts.");
    out += "region = true\n";
  }
  if (draft.timeout_seconds) {
    out += Comment("The longest a run may take, in seconds: ten times the slowest measured count.");
    out += fmt::format("timeout = {}\n", *draft.timeout_seconds);
  }
  if (draft.score) {
    out += "\n";
    for (const std::string& line : draft.score_why) out += Comment(line);
    out += "[workload.score]\n";
    out += "pattern = " + TomlString(draft.score->pattern) + "\n";
    out += "expect = " + TomlString(draft.score->value) + "\n";
  } else {
    for (const std::string& line : draft.score_why) out += Comment(line);
  }
  if (!draft.alternatives.empty()) {
    out += "\n" + Comment("Other numbers it printed the same in every run; to assert one instead,");
    out += Comment("put its pattern and value in [workload.score]:");
    for (const ScoreGuess& g : draft.alternatives) {
      out += Comment(fmt::format("  line {}: \"{}\": pattern = {}, expect = {}", g.line_number,
                                 g.line, TomlString(g.pattern), TomlString(g.value)));
    }
  }
  return out;
}

}  // namespace workgate
