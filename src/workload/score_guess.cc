#include "workload/score_guess.h"

#include <ctype.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "workload/score.h"

namespace workgate {

namespace {

// A line longer than this is no score line: it is neither searched nor
// proposed (the bound also keeps the search linear in the output).
constexpr size_t kMostLineBytes = 1000;
// Lines read of each output: a score is printed at the end of a run or near
// it, and a program that prints more is judged by what it prints first.
constexpr size_t kMostLines = 100000;
// What a proposed pattern keeps of the text before the number.
constexpr size_t kMostLabelBytes = 40;

struct Number {
  size_t begin = 0, end = 0;  // in the line
};

bool IsWordByte(char c) { return isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The numbers of `line`: digits with an optional fraction and an optional
// '-' before them, not part of a word ("x86_64", "sha256") or of a dotted
// version ("1.2.3").
std::vector<Number> NumbersOf(std::string_view line) {
  std::vector<Number> out;
  size_t i = 0;
  while (i < line.size()) {
    if (!isdigit(static_cast<unsigned char>(line[i])) ||
        (i > 0 && (IsWordByte(line[i - 1]) || line[i - 1] == '.'))) {
      ++i;
      continue;
    }
    // A date, a time of day or a ratio ("2022-12-28", "12:34:56", "3/4"):
    // digits joined by '-', ':' or '/' are one token, and no number.
    auto joined = [&](size_t at) {
      return at + 1 < line.size() && (line[at] == '-' || line[at] == ':' || line[at] == '/') &&
             isdigit(static_cast<unsigned char>(line[at + 1]));
    };
    Number n{i, i};
    if (i > 0 && line[i - 1] == '-' && (i == 1 || !IsWordByte(line[i - 2]))) n.begin = i - 1;
    size_t j = i;
    while (j < line.size() && isdigit(static_cast<unsigned char>(line[j]))) ++j;
    if (j + 1 < line.size() && line[j] == '.' && isdigit(static_cast<unsigned char>(line[j + 1]))) {
      ++j;
      while (j < line.size() && isdigit(static_cast<unsigned char>(line[j]))) ++j;
    }
    const bool dotted =
        j + 1 < line.size() && line[j] == '.' && isdigit(static_cast<unsigned char>(line[j + 1]));
    const bool after_join =
        i >= 2 && (line[i - 1] == ':' || line[i - 1] == '/' ||
                   (line[i - 1] == '-' && isdigit(static_cast<unsigned char>(line[i - 2]))));
    if (!dotted && !joined(j) && !after_join && (j == line.size() || !IsWordByte(line[j]))) {
      n.end = j;
      out.push_back(n);
    }
    // Past the whole run of digits, dots, joiners and word bytes: "1.2.3",
    // "12ab" and "2022-12-28" give nothing.
    while (j < line.size() && (IsWordByte(line[j]) || line[j] == '.' || joined(j))) ++j;
    i = j;
  }
  return out;
}

// The output's lines, as ScoreMatcher is fed them (no '\n').
std::vector<std::string_view> LinesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty() && lines.size() < kMostLines) {
    const size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// Where a number is, independent of its value: the line's text with every
// number masked, which of the lines with that text it is, and which number
// of the line.
using Place = std::tuple<std::string, size_t, size_t>;

std::string Masked(std::string_view line, const std::vector<Number>& numbers) {
  std::string out;
  size_t at = 0;
  for (const Number& n : numbers) {
    out.append(line.substr(at, n.begin - at));
    out += '\x01';
    at = n.end;
  }
  out.append(line.substr(at));
  return out;
}

struct Found {
  std::string value;
  size_t line = 0;  // 0-based
};

// Every number of `text` by its place.
std::map<Place, Found> NumbersByPlace(std::string_view text) {
  std::map<Place, Found> out;
  std::map<std::string, size_t> seen;  // masked line -> how many so far
  const std::vector<std::string_view> lines = LinesOf(text);
  for (size_t l = 0; l < lines.size(); ++l) {
    if (lines[l].size() > kMostLineBytes) continue;
    const std::vector<Number> numbers = NumbersOf(lines[l]);
    if (numbers.empty()) continue;
    const std::string masked = Masked(lines[l], numbers);
    const size_t ordinal = seen[masked]++;
    for (size_t k = 0; k < numbers.size(); ++k) {
      out[{masked, ordinal, k}] = {
          std::string(lines[l].substr(numbers[k].begin, numbers[k].end - numbers[k].begin)), l};
    }
  }
  return out;
}

// `text` as an RE2 pattern that matches it literally: only RE2's operators
// are escaped (RE2::QuoteMeta escapes every byte that is not a letter or a
// digit, which turns "score: " into "score\:\ "), and control bytes as
// \x{..}, so that the pattern stays one readable line of the suite.
std::string Literal(std::string_view text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{{{:02x}}}", u);
    } else {
      if (std::string_view("\\.^$|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return out;
}

// Whether every output of `outputs` has `value` at `place`.
bool SameInAll(const std::vector<std::map<Place, Found>>& outputs, const Place& place,
               const std::string& value) {
  return std::all_of(outputs.begin(), outputs.end(), [&](const std::map<Place, Found>& o) {
    const auto it = o.find(place);
    return it != o.end() && it->second.value == value;
  });
}

std::string CaptureFor(const std::string& value) {
  const bool negative = !value.empty() && value[0] == '-';
  const bool fraction = value.find('.') != std::string::npos;
  return std::string("(") + (negative ? "-" : "") + (fraction ? "[0-9]+\\.[0-9]+" : "[0-9]+") + ")";
}

// Whether ScoreMatcher, the gate's own matcher, finds `value` with `pattern`
// in every output.
bool FindsInAll(const std::string& pattern, const std::string& value,
                const std::vector<std::string>& outputs) {
  std::string err;
  if (!CheckScorePattern(pattern, &err)) return false;
  for (const std::string& text : outputs) {
    ScoreMatcher matcher(pattern);
    for (std::string_view line : LinesOf(text)) matcher.Feed(line);
    if (matcher.last() != value) return false;
  }
  return true;
}

// The patterns to try for the number `n` of `line`, shortest first: the
// words just before it; then the whole line up to it from its start, other
// numbers generalised.
std::vector<std::string> PatternsFor(std::string_view line, const std::vector<Number>& numbers,
                                     size_t k, const std::string& value) {
  std::vector<std::string> out;
  const std::string capture = CaptureFor(value);
  // The text since the previous number, cut to a word's start.
  const size_t from = k == 0 ? 0 : numbers[k - 1].end;
  std::string_view label = line.substr(from, numbers[k].begin - from);
  if (label.size() > kMostLabelBytes) {
    label.remove_prefix(label.size() - kMostLabelBytes);
    const size_t space = label.find(' ');
    label.remove_prefix(space == std::string_view::npos ? 0 : space + 1);
  }
  if (std::any_of(label.begin(), label.end(),
                  [](char c) { return isalpha(static_cast<unsigned char>(c)); })) {
    out.push_back(Literal(label) + capture);
  }
  std::string whole = "^";
  size_t at = 0;
  for (size_t i = 0; i < k; ++i) {
    whole += Literal(line.substr(at, numbers[i].begin - at)) + "-?[0-9]+(?:\\.[0-9]+)?";
    at = numbers[i].end;
  }
  whole += Literal(line.substr(at, numbers[k].begin - at)) + capture;
  out.push_back(whole);
  return out;
}

int SignificantDigits(const std::string& value) {
  int digits = 0;
  bool leading = true;
  for (char c : value) {
    if (!isdigit(static_cast<unsigned char>(c))) continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits;
}

// How plainly the text before a number names it: 1500 for "score" or
// "checksum", 1000 for another word a result goes by, -500 for a word a
// timing goes by (the pinned clock fixes a timing, but it says nothing of
// the work), else 0.
int ScoreWordRank(std::string_view label) {
  // The label's words, lower case: "Total Iterations:" -> total, iterations.
  std::vector<std::string> words(1);
  for (char c : label) {
    if (isalpha(static_cast<unsigned char>(c))) {
      words.back() += static_cast<char>(tolower(static_cast<unsigned char>(c)));
    } else if (!words.back().empty()) {
      words.emplace_back();
    }
  }
  // A word is one of `stems`, or one of the longer stems with an ending
  // ("iterations", "seconds"): "items" is not "ms".
  auto names = [&](std::initializer_list<std::string_view> stems) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
      return std::any_of(stems.begin(), stems.end(), [&](std::string_view stem) {
        return w == stem || (stem.size() >= 4 && w.rfind(stem, 0) == 0);
      });
    });
  };
  if (names({"score", "checksum"})) return 1500;
  if (names({"crc", "hash", "result", "total", "sum", "iteration", "ops"})) return 1000;
  if (names({"time", "elapsed", "second", "sec", "duration", "ms", "us", "ns"})) return -500;
  return 0;
}

// A number's rank before the clock's part (FindRepeatedNumbers): its line's
// words, its significant digits (a lone digit last), and a later line.
int NumberRank(std::string_view line, size_t index, const std::string& value, size_t line_index,
               size_t lines) {
  const int digits = SignificantDigits(value);
  const std::string_view label = line.substr(0, NumbersOf(line)[index].begin);
  return ScoreWordRank(label) + std::min(digits, 20) * 5 - (digits <= 1 ? 50 : 0) +
         static_cast<int>(10 * (line_index + 1) / std::max<size_t>(1, lines));
}

}  // namespace

std::optional<ChangedNumber> FindChangedNumber(const std::vector<std::string>& pinned) {
  if (pinned.size() < 2) return std::nullopt;
  std::vector<std::map<Place, Found>> outputs;
  for (const std::string& text : pinned) outputs.push_back(NumbersByPlace(text));
  const std::vector<std::string_view> lines = LinesOf(pinned[0]);
  std::optional<ChangedNumber> best;
  int best_rank = 0;
  for (const auto& entry : outputs[0]) {
    // Named copies, not structured bindings: clang 14 cannot capture those.
    const Place& place = entry.first;
    const Found& found = entry.second;
    ChangedNumber changed;
    for (const std::map<Place, Found>& output : outputs) {
      const auto it = output.find(place);
      if (it == output.end()) break;
      changed.values.push_back(it->second.value);
    }
    if (changed.values.size() < outputs.size() ||
        std::all_of(changed.values.begin(), changed.values.end(),
                    [&](const std::string& v) { return v == found.value; })) {
      continue;
    }
    const std::string_view line = lines[found.line];
    const size_t index = std::get<2>(place);
    const int rank = NumberRank(line, index, found.value, found.line, lines.size());
    // Ties go to the earlier line (the map is in place order, not line order).
    if (best && (rank < best_rank || (rank == best_rank && found.line + 1 >= best->line_number))) {
      continue;
    }
    changed.line = std::string(line.substr(0, 200));
    changed.line_number = found.line + 1;
    changed.named_score = ScoreWordRank(line.substr(0, NumbersOf(line)[index].begin)) >= 1500;
    best = std::move(changed);
    best_rank = rank;
  }
  return best;
}

std::vector<ScoreGuess> FindRepeatedNumbers(const std::vector<std::string>& pinned,
                                            const std::vector<std::string>& real_clock,
                                            bool clock_sizes_work, size_t most) {
  if (pinned.empty()) return {};
  std::vector<std::map<Place, Found>> others;
  for (size_t i = 1; i < pinned.size(); ++i) others.push_back(NumbersByPlace(pinned[i]));
  std::vector<std::map<Place, Found>> real;
  for (const std::string& text : real_clock) real.push_back(NumbersByPlace(text));
  const std::vector<std::string_view> lines = LinesOf(pinned[0]);

  // Every number that repeats, ranked; a pattern is then looked for in
  // rank order, each a search of every output, only until `most` are found.
  struct Candidate {
    ScoreGuess guess;
    std::string_view line;
    size_t index = 0;  // which number of the line
  };
  std::vector<Candidate> candidates;
  for (const auto& [place, found] : NumbersByPlace(pinned[0])) {
    if (!SameInAll(others, place, found.value)) continue;
    Candidate c;
    c.line = lines[found.line];
    c.index = std::get<2>(place);
    ScoreGuess& g = c.guess;
    g.value = found.value;
    g.line = std::string(c.line.substr(0, 200));
    g.line_number = found.line + 1;
    g.clock_free = !real.empty() && SameInAll(real, place, found.value);
    const bool moved_by_clock = !real.empty() && !g.clock_free;
    const int kind = clock_sizes_work ? (moved_by_clock ? 300 : 0) : (g.clock_free ? 300 : 0);
    g.rank = kind + NumberRank(c.line, c.index, g.value, found.line, lines.size());
    candidates.push_back(std::move(c));
  }
  std::stable_sort(
      candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.guess.rank != b.guess.rank ? a.guess.rank > b.guess.rank
                                            : a.guess.line_number < b.guess.line_number;
      });
  std::vector<ScoreGuess> out;
  std::set<std::string> patterns;
  for (Candidate& c : candidates) {
    if (out.size() == most) break;
    ScoreGuess& g = c.guess;
    for (const std::string& pattern : PatternsFor(c.line, NumbersOf(c.line), c.index, g.value)) {
      if (FindsInAll(pattern, g.value, pinned) &&
          (!g.clock_free || FindsInAll(pattern, g.value, real_clock))) {
        g.pattern = pattern;
        break;
      }
    }
    if (g.pattern.empty() || !patterns.insert(g.pattern).second) continue;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace workgate
