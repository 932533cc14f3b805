#include "explain/line_diff.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "explain/cost_math.h"

namespace workgate {
namespace {

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

uint64_t Magnitude(const LineDelta& d) {
  return Distance(static_cast<uint64_t>(d.baseline), static_cast<uint64_t>(d.candidate));
}

// The `top_n` of `lines` of largest |delta|, ties by file, then line.
void KeepLargest(std::vector<LineDelta>* lines, int top_n) {
  const size_t n = std::min(lines->size(), static_cast<size_t>(std::max(top_n, 0)));
  std::partial_sort(lines->begin(), lines->begin() + n, lines->end(),
                    [](const LineDelta& a, const LineDelta& b) {
                      if (Magnitude(a) != Magnitude(b)) return Magnitude(a) > Magnitude(b);
                      if (a.file != b.file) return a.file < b.file;
                      return a.line < b.line;
                    });
  lines->resize(n);
}

}  // namespace

std::string SourceFileKey(const std::string& file, const std::vector<std::string>& files) {
  const std::string name = FileName(file);
  for (const std::string& other : files) {
    if (other != file && FileName(other) == name) return file;
  }
  return name;
}

std::vector<LineDelta> DiffLines(const std::map<SourceLine, uint64_t>* baseline,
                                 const std::map<SourceLine, uint64_t>* candidate, int top_n,
                                 const BaselineLineMap* map) {
  if (top_n <= 0) return {};
  const std::map<SourceLine, uint64_t> none;
  const std::map<SourceLine, uint64_t>* sides[2] = {baseline ? baseline : &none,
                                                    candidate ? candidate : &none};
  // (file key, line) -> the row; the candidate's name of a file wins. A
  // side's keys are distinct (SourceFileKey against that side's files), so
  // each row gets at most one cost from each side.
  // A baseline line the candidate changed keeps its own number, apart from
  // the candidate's lines: the high bit marks its key.
  constexpr uint64_t kBaselineOnly = uint64_t{1} << 63;
  std::map<std::pair<std::string, uint64_t>, LineDelta> rows;
  std::vector<std::string> files[2];
  for (int s = 0; s < 2; ++s) {
    std::set<std::string> distinct;
    for (const auto& [where, cost] : *sides[s]) distinct.insert(where.file);
    files[s].assign(distinct.begin(), distinct.end());
  }
  // The candidate's file of each key, for the map.
  std::map<std::string, std::string> candidate_file;
  for (const std::string& f : files[1]) candidate_file[SourceFileKey(f, files[1])] = f;
  for (int s : {1, 0}) {
    for (const auto& [where, cost] : *sides[s]) {
      if (where.line == 0) continue;
      const std::string key = SourceFileKey(where.file, files[s]);
      uint64_t line = where.line;
      bool baseline_only = false;
      if (s == 0 && map != nullptr && where.line < kBaselineOnly) {
        const auto found = candidate_file.find(key);
        if (found != candidate_file.end()) {
          line = (*map)(found->second, where.line);
          baseline_only = line == 0;
        }
      }
      // A baseline line keeps its own number unless the map gave the
      // candidate's.
      const bool own_number =
          s == 0 && (baseline_only || map == nullptr || candidate_file.count(key) == 0 ||
                     where.line >= kBaselineOnly);
      LineDelta& row = rows[{key, baseline_only ? where.line | kBaselineOnly : line}];
      if (row.file.empty()) row.file = where.file;
      row.line = baseline_only ? where.line : line;
      row.baseline_only = baseline_only;
      (s == 0 ? row.baseline : row.candidate) = ClampToInt64(cost);
      // The candidate's lines come first: a row it ran is in its numbering.
      if (own_number && row.candidate == 0) row.numbering = kBaselineNumbering;
    }
  }
  std::vector<LineDelta> changed;
  for (auto& [key, row] : rows) {
    if (row.baseline != row.candidate) changed.push_back(std::move(row));
  }
  KeepLargest(&changed, top_n);
  return changed;
}

void FoldIdenticalLines(std::vector<LineDelta>* lines, int top_n) {
  // (file name, text) -> the lines of that text.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < lines->size(); ++i) {
    const LineDelta& l = (*lines)[i];
    if (!l.text.empty() && l.folded.empty()) groups[{FileName(l.file), l.text}].push_back(i);
  }
  std::vector<bool> gone(lines->size(), false);
  for (const auto& [key, members] : groups) {
    const bool rose = std::any_of(members.begin(), members.end(),
                                  [&](size_t i) { return (*lines)[i].delta() > 0; });
    const bool fell = std::any_of(members.begin(), members.end(),
                                  [&](size_t i) { return (*lines)[i].delta() < 0; });
    if (!rose || !fell) continue;
    const size_t lead = *std::min_element(members.begin(), members.end(), [&](size_t a, size_t b) {
      const LineDelta &x = (*lines)[a], &y = (*lines)[b];
      if (Magnitude(x) != Magnitude(y)) return Magnitude(x) > Magnitude(y);
      return x.line < y.line;
    });
    LineDelta& into = (*lines)[lead];
    uint64_t baseline = 0, candidate = 0;
    for (size_t i : members) {
      AddSaturating(&baseline, static_cast<uint64_t>((*lines)[i].baseline));
      AddSaturating(&candidate, static_cast<uint64_t>((*lines)[i].candidate));
      if (i == lead) continue;
      into.folded.push_back(std::move((*lines)[i]));
      gone[i] = true;
    }
    into.baseline = ClampToInt64(baseline);
    into.candidate = ClampToInt64(candidate);
    std::sort(into.folded.begin(), into.folded.end(),
              [](const LineDelta& a, const LineDelta& b) { return a.line < b.line; });
  }
  std::vector<LineDelta> kept;
  for (size_t i = 0; i < lines->size(); ++i) {
    if (!gone[i]) kept.push_back(std::move((*lines)[i]));
  }
  KeepLargest(&kept, top_n);
  *lines = std::move(kept);
}

}  // namespace workgate
