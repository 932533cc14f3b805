#include "explain/renames.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "explain/cost_math.h"
#include "explain/explain.h"

namespace workgate {
namespace {

// How many functions of the right cost one function is compared with.
constexpr size_t kMaxRenameCandidates = 64;

// Where a lone function's code is: per file name, its cost and the lines
// that ran.
struct FileLines {
  uint64_t cost = 0;
  std::set<uint64_t> lines;
};

// The functions of one side that the other side has no function of that
// name for, with what tells where their code is.
struct LoneFunctions {
  std::map<FunctionId, uint64_t> cost;
  // Absent: the profile has no line for it, or lost one to its bounds.
  std::map<FunctionId, std::map<std::string, FileLines>> lines;
  std::set<FunctionId> lines_cut;
  // callee -> caller -> calls; absent: no edge, or lost to the bounds.
  std::map<FunctionId, std::map<FunctionId, uint64_t>> callers;
  std::set<FunctionId> calls_cut;
  bool calls_dropped = false;
};

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::map<FunctionId, uint64_t> ShownSelfCosts(const Profile& profile) {
  std::map<FunctionId, uint64_t> out;
  for (const auto& [id, cost] : profile.self) AddSaturating(&out[ShownFunction(id)], cost);
  return out;
}

// Rows of summed code without a symbol have no name to rename.
bool Nameable(const FunctionId& shown) {
  return shown.name != kUnnamedCode && shown.name != kGeneratedCode;
}

LoneFunctions Lone(const Profile& profile, const std::map<FunctionId, uint64_t>& own,
                   const std::map<FunctionId, uint64_t>& other) {
  LoneFunctions out;
  for (const auto& [id, cost] : own) {
    if (cost > 0 && Nameable(id) && other.count(id) == 0) out.cost[id] = cost;
  }
  if (out.cost.empty()) return out;
  for (const FunctionId& f : profile.lines_cut.functions) out.lines_cut.insert(ShownFunction(f));
  if (profile.lines_cut.dropped) {
    for (const auto& [id, cost] : out.cost) out.lines_cut.insert(id);
  }
  for (const FunctionId& f : profile.calls_cut.functions) out.calls_cut.insert(ShownFunction(f));
  out.calls_dropped = profile.calls_cut.dropped;
  for (const auto& [edge, cost] : profile.calls) {
    const FunctionId callee = ShownFunction(edge.second);
    if (out.cost.count(callee) == 0) continue;
    const FunctionId caller = ShownFunction(edge.first);
    if (caller != callee) AddSaturating(&out.callers[callee][caller], cost.calls);
  }
  return out;
}

// The lines of `side`'s lone functions; a baseline's (`to_candidate`)
// through `map`, into the numbering of the candidate's file of that name.
void AddLines(const Profile& profile, const BaselineLineMap* map,
              const std::map<std::string, std::string>* candidate_files, LoneFunctions* side) {
  for (const auto& [id, lines] : profile.lines) {
    const FunctionId shown = ShownFunction(id);
    if (side->cost.count(shown) == 0 || side->lines_cut.count(shown) > 0) continue;
    auto& files = side->lines[shown];
    for (const auto& [where, cost] : lines) {
      if (where.line == 0) continue;
      const std::string name = BaseName(where.file);
      uint64_t line = where.line;
      if (map != nullptr && candidate_files != nullptr) {
        const auto found = candidate_files->find(name);
        if (found != candidate_files->end()) line = (*map)(found->second, where.line);
      }
      FileLines& file = files[name];
      AddSaturating(&file.cost, cost);
      if (line != 0) file.lines.insert(line);
    }
  }
}

// The file name that holds most of a function's cost (ties by name).
const std::pair<const std::string, FileLines>* MainFile(
    const std::map<std::string, FileLines>& files) {
  const std::pair<const std::string, FileLines>* best = nullptr;
  for (const auto& entry : files) {
    if (best == nullptr || entry.second.cost > best->second.cost) best = &entry;
  }
  return best;
}

// Whether `b` of the baseline and `c` of the candidate are one function's
// code by where it is (lines) or, without lines, by who calls it.
bool SameCode(const LoneFunctions& base, const FunctionId& b, const LoneFunctions& cand,
              const FunctionId& c) {
  const auto bl = base.lines.find(b);
  const auto cl = cand.lines.find(c);
  const bool b_lines = bl != base.lines.end() && !bl->second.empty();
  const bool c_lines = cl != cand.lines.end() && !cl->second.empty();
  if (b_lines || c_lines) {
    if (!b_lines || !c_lines) return false;
    const auto* bf = MainFile(bl->second);
    const auto* cf = MainFile(cl->second);
    if (bf->first != cf->first || bf->second.lines.empty() || cf->second.lines.empty()) {
      return false;
    }
    const std::set<uint64_t>& x = bf->second.lines;
    const std::set<uint64_t>& y = cf->second.lines;
    return *x.begin() <= *y.rbegin() && *y.begin() <= *x.rbegin();
  }
  // Neither has lines (or one lost them to the bounds): the call edges.
  if (base.calls_dropped || cand.calls_dropped || base.lines_cut.count(b) > 0 ||
      cand.lines_cut.count(c) > 0 || base.calls_cut.count(b) > 0 || cand.calls_cut.count(c) > 0) {
    return false;
  }
  const auto bc = base.callers.find(b);
  const auto cc = cand.callers.find(c);
  return bc != base.callers.end() && cc != cand.callers.end() && bc->second == cc->second;
}

}  // namespace

Renames FindRenames(const Profile& baseline, const Profile& candidate, const BaselineLineMap* map) {
  const std::map<FunctionId, uint64_t> base_self = ShownSelfCosts(baseline);
  const std::map<FunctionId, uint64_t> cand_self = ShownSelfCosts(candidate);
  LoneFunctions base = Lone(baseline, base_self, cand_self);
  LoneFunctions cand = Lone(candidate, cand_self, base_self);
  if (base.cost.empty() || cand.cost.empty()) return {};
  AddLines(candidate, nullptr, nullptr, &cand);
  // The candidate's path of each file name its lone functions have lines in.
  std::map<std::string, std::string> candidate_files;
  for (const auto& [id, lines] : candidate.lines) {
    if (cand.cost.count(ShownFunction(id)) == 0) continue;
    for (const auto& [where, cost] : lines)
      candidate_files.emplace(BaseName(where.file), where.file);
  }
  AddLines(baseline, map, &candidate_files, &base);
  // The candidate's lone functions per object, by cost.
  std::map<std::string, std::vector<std::pair<uint64_t, FunctionId>>> by_object;
  for (const auto& [id, cost] : cand.cost) by_object[id.object].emplace_back(cost, id);
  for (auto& [object, list] : by_object) std::sort(list.begin(), list.end());
  // The costliest first: they matter most, and take their match first.
  std::vector<std::pair<uint64_t, FunctionId>> gone;
  for (const auto& [id, cost] : base.cost) gone.emplace_back(cost, id);
  std::sort(gone.begin(), gone.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  Renames out;
  std::set<FunctionId> taken;
  for (const auto& [cost, b] : gone) {
    const auto list = by_object.find(b.object);
    if (list == by_object.end()) continue;
    const FunctionId* best = nullptr;
    uint64_t best_distance = 0;
    size_t looked = 0;
    for (auto it = std::lower_bound(list->second.begin(), list->second.end(),
                                    std::pair<uint64_t, FunctionId>{cost - cost / 10, {}});
         it != list->second.end() && looked < kMaxRenameCandidates; ++it, ++looked) {
      const uint64_t distance = Distance(cost, it->first);
      if (it->first > cost && distance > it->first / 10) break;
      if (distance > std::max(cost, it->first) / 10 || taken.count(it->second) > 0) continue;
      if (best != nullptr &&
          std::tie(best_distance, best->name) <= std::tie(distance, it->second.name)) {
        continue;
      }
      if (!SameCode(base, b, cand, it->second)) continue;
      best = &it->second;
      best_distance = distance;
    }
    if (best == nullptr) continue;
    taken.insert(*best);
    out.emplace(b, *best);
  }
  return out;
}

FunctionId Renamed(const Renames& renames, const FunctionId& id) {
  const auto found = renames.find(id);
  return found == renames.end() ? id : found->second;
}

}  // namespace workgate
