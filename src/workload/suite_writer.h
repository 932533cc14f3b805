#pragma once
// A suite file written for the user to read and edit (`workgate init`): one
// workload, each choice with a comment that says what it was measured from.
// Values are written by toml++, so any name, argument or pattern is quoted
// as TOML requires; comments are made one safe line each.

#include <optional>
#include <string>
#include <vector>

#include "workload/score_guess.h"
#include "workload/workload.h"

namespace workgate {

/// What `workgate init` decided, with why.
struct SuiteDraft {
  std::vector<std::string> header;  // comment lines at the top of the file
  std::string name;
  std::vector<std::string> command;
  ClockMode clock = ClockMode::kNone;
  std::vector<std::string> clock_why;  // comment lines above `clock`
  std::optional<double> timeout_seconds;
  /// The program marks its region (<workgate/region.h>): `region = true`.
  bool region = false;
  std::optional<ScoreGuess> score;
  std::vector<std::string> score_why;    // comment lines above the score table
  std::vector<ScoreGuess> alternatives;  // other numbers that repeated
};

/// `s` as a TOML basic string, quoted and escaped as toml++ writes it.
std::string TomlString(const std::string& s);

/// The suite's text, which LoadSuite reads back as the one workload.
std::string SuiteText(const SuiteDraft& draft);

}  // namespace workgate
