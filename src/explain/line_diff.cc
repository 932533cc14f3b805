#include "explain/line_diff.h"

#include <algorithm>
#include <filesystem>
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
      LineDelta& row = rows[{key, baseline_only ? where.line | kBaselineOnly : line}];
      if (row.file.empty()) row.file = where.file;
      row.line = baseline_only ? where.line : line;
      row.baseline_only = baseline_only;
      (s == 0 ? row.baseline : row.candidate) = ClampToInt64(cost);
    }
  }
  std::vector<LineDelta> changed;
  for (auto& [key, row] : rows) {
    if (row.baseline != row.candidate) changed.push_back(std::move(row));
  }
  const size_t n = std::min(changed.size(), static_cast<size_t>(top_n));
  std::partial_sort(changed.begin(), changed.begin() + n, changed.end(),
                    [](const LineDelta& a, const LineDelta& b) {
                      if (Magnitude(a) != Magnitude(b)) return Magnitude(a) > Magnitude(b);
                      if (a.file != b.file) return a.file < b.file;
                      return a.line < b.line;
                    });
  changed.resize(n);
  return changed;
}

}  // namespace workgate
