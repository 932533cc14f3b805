#include "explain/explain.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "explain/clone_names.h"
#include "explain/cost_math.h"
#include "explain/flame_graph.h"
#include "explain/inline_moves.h"
#include "explain/line_diff.h"
#include "explain/simulated_rows.h"
#include "explain/renames.h"
#include "explain/symbol_hints.h"
#include "model/model.h"
#include "util/paths.h"

namespace workgate {
namespace {

// |delta| without overflow: both counts are at most INT64_MAX.
uint64_t Magnitude(const FunctionDelta& row) {
  return Distance(static_cast<uint64_t>(row.baseline), static_cast<uint64_t>(row.candidate));
}

bool ByMagnitude(const FunctionDelta& a, const FunctionDelta& b) {
  uint64_t ma = Magnitude(a);
  uint64_t mb = Magnitude(b);
  if (ma != mb) return ma > mb;
  if (a.function != b.function) return a.function < b.function;
  if (a.object != b.object) return a.object < b.object;
  // Same function and object on both sides cannot repeat; keep strict order.
  return a.delta() > b.delta();
}

bool IsAddressName(const std::string& name) {
  if (name.size() < 3 || name[0] != '0' || name[1] != 'x') return false;
  return std::all_of(name.begin() + 2, name.end(),
                     [](unsigned char ch) { return std::isxdigit(ch) != 0; });
}

// One row's cost on one side and the full names summed into it.
struct ShownCost {
  uint64_t cost = 0;
  std::set<std::string> names;
};

// `self` summed by the row each function is shown under (as the
// candidate names it, through `renames`). A renamed function's own names
// are left out: the row names them in `renamed_from`, not as clones.
std::map<FunctionId, ShownCost> ByShownFunction(const std::map<FunctionId, uint64_t>& self,
                                                const Renames& renames = {}) {
  std::map<FunctionId, ShownCost> shown;
  for (const auto& [id, cost] : self) {
    const FunctionId own = ShownFunction(id);
    const FunctionId as = Renamed(renames, own);
    ShownCost& row = shown[as];
    row.cost += cost;
    // Addresses are not names: their row says so itself.
    if (!IsAddressName(id.name) && as == own) row.names.insert(id.name);
  }
  return shown;
}

// The clones of a row: every name seen on either side, unless the row saw
// only its own name.
std::vector<std::string> ClonesOf(const std::string& function, const ShownCost* a,
                                  const ShownCost* b) {
  std::set<std::string> names;
  for (const ShownCost* side : {a, b}) {
    if (side != nullptr) names.insert(side->names.begin(), side->names.end());
  }
  if (names.empty() || (names.size() == 1 && *names.begin() == function)) return {};
  return {names.begin(), names.end()};
}

// Gives each key of `*map` the one `rename` makes of it, in place; a value
// whose new key is there already is added to that one's with `merge`.
template <typename Map, typename Rename, typename Merge>
void RenameKeys(Map* map, Rename rename, Merge merge) {
  std::vector<typename Map::node_type> moved;
  for (auto it = map->begin(); it != map->end();) {
    auto key = rename(it->first);
    if (key == it->first) {
      ++it;
      continue;
    }
    auto node = map->extract(it++);
    node.key() = std::move(key);
    moved.push_back(std::move(node));
  }
  for (auto& node : moved) {
    const auto found = map->find(node.key());
    if (found == map->end()) {
      map->insert(std::move(node));
    } else {
      merge(&found->second, node.mapped());
    }
  }
}

}  // namespace

void RenameOwnProgram(const OwnProgram& own, Profile* profile) {
  if (own.object.empty()) return;
  if (!own.ran.empty() && own.ran != own.build) {
    auto found = profile->object_paths.find(own.object);
    if (found != profile->object_paths.end() && found->second.erase(own.ran) > 0) {
      found->second.insert(own.build);
    }
  }
  auto rename = [&own](FunctionId id) {
    if (id.object == own.object) id.object = kOwnProgram;
    return id;
  };
  // A hostile profile may name an object "{exe}" too: its costs merge with
  // the own program's; a sum beyond 2^64-1 saturates (the self costs' total
  // already refuses such a profile for the table). Keys are renamed in
  // place, so the tables are never held twice.
  RenameKeys(&profile->self, rename,
             [](uint64_t* into, uint64_t cost) { AddSaturating(into, cost); });
  RenameKeys(&profile->lines, rename,
             [](std::map<SourceLine, uint64_t>* into, const std::map<SourceLine, uint64_t>& costs) {
               for (const auto& [where, cost] : costs) AddSaturating(&(*into)[where], cost);
             });
  RenameKeys(
      &profile->calls,
      [&rename](const CallEdge& edge) {
        return CallEdge{rename(edge.first), rename(edge.second)};
      },
      [](CallCost* into, const CallCost& cost) {
        AddSaturating(&into->calls, cost.calls);
        AddSaturating(&into->inclusive, cost.inclusive);
      });
  RenameKeys(&profile->self_simulated, rename, [](SimulatedCosts* into, const SimulatedCosts& c) {
    for (size_t i = 0; i < kSimulatedEventCount; ++i) AddSaturating(&(*into)[i], c[i]);
  });
  RenameKeys(&profile->lines_simulated, rename,
             [](std::map<SourceLine, SimulatedCosts>* into,
                const std::map<SourceLine, SimulatedCosts>& lines) {
               for (const auto& [where, c] : lines) {
                 for (size_t i = 0; i < kSimulatedEventCount; ++i) {
                   AddSaturating(&(*into)[where][i], c[i]);
                 }
               }
             });
  for (TableCut* cut : {&profile->calls_cut, &profile->lines_cut}) {
    std::set<FunctionId> renamed;
    for (const FunctionId& f : cut->functions) renamed.insert(rename(f));
    cut->functions = std::move(renamed);
  }
  if (auto paths = profile->object_paths.extract(own.object)) {
    paths.key() = kOwnProgram;
    profile->object_paths.insert(std::move(paths));
  }
}

namespace {

// The lines of every function shown as `row` (its clones), summed.
std::map<SourceLine, uint64_t> RowLines(const Profile& profile, const FunctionId& row) {
  std::map<SourceLine, uint64_t> out;
  for (const auto& [id, lines] : profile.lines) {
    if (ShownFunction(id) != row) continue;
    for (const auto& [where, cost] : lines) out[where] += cost;
  }
  return out;
}

// Whether `profile` holds every line of every function shown under `row`.
bool LinesComplete(const Profile& profile, const FunctionId& row) {
  if (profile.lines_cut.dropped) return false;
  return std::none_of(profile.lines_cut.functions.begin(), profile.lines_cut.functions.end(),
                      [&row](const FunctionId& f) { return ShownFunction(f) == row; });
}

// What the bounds left out of `profile`, the profile of `side`.
void AddCuts(const Profile& profile, const char* side, std::vector<ProfileCut>* out) {
  const std::pair<const TableCut*, const char*> tables[] = {{&profile.calls_cut, "call_edges"},
                                                            {&profile.lines_cut, "source_lines"}};
  for (const auto& [cut, table] : tables) {
    if (cut->any()) out->push_back({side, table, cut->named, cut->dropped, cut->kept});
  }
}

}  // namespace

FunctionId ShownFunction(const FunctionId& id) {
  if (IsAddressName(id.name)) {
    return FunctionId{id.object == kNoObject ? kGeneratedCode : kUnnamedCode, id.object};
  }
  return FunctionId{SplitCloneName(id.name).base, id.object};
}

Explanation DiffProfiles(const Profile& baseline, const Profile& candidate, int top_n,
                         const BaselineLineMap* map, const LineTextOf* texts) {
  Explanation out;
  if (baseline.total > kMaxCount || candidate.total > kMaxCount) {
    out.error = "a profile's total exceeds the int64 range of the explain table";
    return out;
  }
  // Every entry is at most its profile's total, so each fits in int64_t.
  out.total_delta = static_cast<int64_t>(candidate.total) - static_cast<int64_t>(baseline.total);
  const Renames renames = FindRenames(baseline, candidate, map);
  // The candidate's name of each renamed function -> the baseline's.
  std::map<FunctionId, FunctionId> renamed_from;
  for (const auto& [from, to] : renames) renamed_from.emplace(to, from);
  const std::map<FunctionId, ShownCost> base_self = ByShownFunction(baseline.self, renames);
  const std::map<FunctionId, ShownCost> cand_self = ByShownFunction(candidate.self);
  std::vector<FunctionDelta> rows;
  auto b = base_self.begin();
  auto c = cand_self.begin();
  // Both maps are sorted by FunctionId: merge them.
  while (b != base_self.end() || c != cand_self.end()) {
    const bool take_b = b != base_self.end() && (c == cand_self.end() || !(c->first < b->first));
    const bool take_c = c != cand_self.end() && (b == base_self.end() || !(b->first < c->first));
    const FunctionId& id = take_b ? b->first : c->first;
    const ShownCost* base_row = take_b ? &b->second : nullptr;
    const ShownCost* cand_row = take_c ? &c->second : nullptr;
    FunctionDelta row{id.name, id.object, base_row ? static_cast<int64_t>(base_row->cost) : 0,
                      cand_row ? static_cast<int64_t>(cand_row->cost) : 0};
    if (row.baseline != row.candidate) {
      row.clones = ClonesOf(row.function, base_row, cand_row);
      const auto from = renamed_from.find(id);
      if (from != renamed_from.end()) row.renamed_from = from->second.name;
      rows.push_back(std::move(row));
    }
    if (take_b) ++b;
    if (take_c) ++c;
  }
  size_t n = top_n > 0 ? std::min(rows.size(), static_cast<size_t>(top_n)) : 0;
  std::partial_sort(rows.begin(), rows.begin() + n, rows.end(), ByMagnitude);
  rows.resize(n);
  const uint64_t whole = out.total_delta < 0 ? -static_cast<uint64_t>(out.total_delta)
                                             : static_cast<uint64_t>(out.total_delta);
  const bool have_calls = !baseline.calls.empty() && !candidate.calls.empty();
  const CallGraph base_graph = have_calls ? ShownCallGraph(baseline, renames) : CallGraph{};
  const CallGraph cand_graph = have_calls ? ShownCallGraph(candidate) : CallGraph{};
  for (size_t i = 0; i < rows.size() && i < kRowsWithLines; ++i) {
    // A row of under 1% of the delta is not where a reviewer looks.
    if (Magnitude(rows[i]) < whole / 100 || Magnitude(rows[i]) == 0) continue;
    const FunctionId id{rows[i].function, rows[i].object};
    const auto from = renamed_from.find(id);
    const FunctionId base_id = from == renamed_from.end() ? id : from->second;
    // A line the bounds left out on one side is not a line without cost.
    if (LinesComplete(baseline, base_id) && LinesComplete(candidate, id)) {
      const std::map<SourceLine, uint64_t> base = RowLines(baseline, base_id);
      const std::map<SourceLine, uint64_t> cand = RowLines(candidate, id);
      if (texts == nullptr || !*texts) {
        rows[i].lines = DiffLines(&base, &cand, kLinesPerRow, map);
      } else {
        rows[i].lines = DiffLines(&base, &cand, kLinesLookedAt, map);
        for (LineDelta& l : rows[i].lines) l.text = (*texts)(l);
        FoldIdenticalLines(&rows[i].lines, kLinesPerRow);
      }
    }
    if (have_calls) rows[i].moves = FindInlineMoves(base_graph, cand_graph, rows[i], kMovesPerRow);
  }
  out.rows = std::move(rows);
  AddCuts(baseline, "baseline", &out.profile_cuts);
  AddCuts(candidate, "candidate", &out.profile_cuts);
  return out;
}

Explanation ExplainProfiles(const Profile& baseline, const Profile& candidate, int top_n,
                            const std::string& debug_root, const BaselineLineMap* map,
                            const LineTextOf* texts) {
  Explanation out = DiffProfiles(baseline, candidate, top_n, map, texts);
  if (out.error.empty()) out.missing_symbols = FindMissingSymbols(baseline, candidate, debug_root);
  return out;
}

OwnProgram OwnProgramOf(const std::string& exe, const std::string& ran) {
  OwnProgram own;
  if (exe.empty()) return own;
  const std::string ran_path = RealPath(ran.empty() ? exe : ran);
  own.object = std::filesystem::path(ran_path).filename().string();
  if (own.object.empty()) return own;
  own.ran = ran_path;
  own.build = ran.empty() ? ran_path : RealPath(exe);
  return own;
}

Explanation ExplainCallgrindOutputs(const std::vector<std::string>& baseline_files,
                                    const std::vector<std::string>& candidate_files, int top_n,
                                    const OwnProgram& baseline_own, const OwnProgram& candidate_own,
                                    const BaselineLineMap* map, bool flame_graph,
                                    const LineTextOf* texts) {
  Profile baseline;
  Profile candidate;
  std::string err;
  // The simulated events come along where both profiles are of simulated
  // runs (AttachSimulatedEvents).
  if (!LoadSimulatedProfiles(baseline_files, &baseline, &err)) {
    Explanation out;
    out.error = "baseline profile: " + err;
    return out;
  }
  if (!LoadSimulatedProfiles(candidate_files, &candidate, &err)) {
    Explanation out;
    out.error = "candidate profile: " + err;
    return out;
  }
  RenameOwnProgram(baseline_own, &baseline);
  RenameOwnProgram(candidate_own, &candidate);
  Explanation out = ExplainProfiles(baseline, candidate, top_n, kDebugRoot, map, texts);
  if (out.error.empty()) AttachSimulatedEvents(baseline, candidate, &out);
  if (flame_graph && out.error.empty()) out.flame_graph = BuildFlameGraph(baseline, candidate);
  return out;
}

}  // namespace workgate
