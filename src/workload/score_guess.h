#pragma once
// `workgate init`'s guess at a workload's score: a number the program prints
// the same in every run, and an RE2 pattern that finds exactly it. The
// outputs are the program's, so any text: numbers are found with RE2 in
// bounded lines, and a pattern is proposed only once ScoreMatcher, the
// matcher the gate uses, finds the same value in every output with it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace workgate {

/// A number printed identically in every run, and how to assert it.
struct ScoreGuess {
  std::string value;       // as printed: "83921", "0.75"
  std::string pattern;     // RE2, one capture group: 'checksum: ([0-9]+)'
  std::string line;        // the line it is on, in the first output (at most 200 bytes)
  size_t line_number = 0;  // 1-based, in the first output
  /// It is also the same in the runs on the real clock (`also_stable`):
  /// a checksum of the work, not a figure the pinned clock made.
  bool clock_free = false;
  int rank = 0;  // higher is the better score; see FindRepeatedNumbers
};

/// Every number (an optional '-', digits, an optional fraction) that each
/// of `pinned` (two or more outputs of the same command, clock pinned)
/// prints at the same place, the same line text around it, with the same
/// value, and for which a pattern was found; best first. `real_clock` (may
/// be empty): outputs of runs on the real clock; a number also the same
/// there is `clock_free`. The rank prefers, in this order: a line that
/// names the number (score and checksum first, then crc, hash, result,
/// total, sum, iterations, ops; a timing's words, time, elapsed, seconds,
/// last); where the program's count depends on the clock
/// (`clock_sizes_work`), a number the real clock moves and the pinned clock
/// fixes (the figure the clock sizes, which shows the pinning held), else a
/// number the real clock does not move (a checksum of the work); more
/// significant digits, a lone digit last; a later line. At most `most`
/// guesses.
std::vector<ScoreGuess> FindRepeatedNumbers(const std::vector<std::string>& pinned,
                                            const std::vector<std::string>& real_clock,
                                            bool clock_sizes_work, size_t most = 5);

/// A number printed at the same place in every output, the same line text
/// around it, whose value is not the same in all of them.
struct ChangedNumber {
  std::string line;                 // the line it is on, in the first output (at most 200 bytes)
  size_t line_number = 0;           // 1-based, in the first output
  std::vector<std::string> values;  // as printed, one per output
  /// The line names it a score or a checksum: the program's own score.
  bool named_score = false;
};

/// Of the numbers of `pinned` (two or more outputs of the same command,
/// clock pinned) that changed between them, the one most like a score, as
/// FindRepeatedNumbers ranks a number by its line's words, its digits and
/// its line; nullopt when none changed.
std::optional<ChangedNumber> FindChangedNumber(const std::vector<std::string>& pinned);

}  // namespace workgate
