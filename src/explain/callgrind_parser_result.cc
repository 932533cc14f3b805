// Parser::AddTo: the parse's tables handed over as a Profile, the call edges
// and source lines within ProfileBounds. Which were kept is decided here,
// on the sums of every file, never while parsing: a costly edge is kept
// however many small pieces it came in.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "explain/callgrind_parser.h"

namespace workgate::callgrind {
namespace {

// The entries of `table` that `counts`, the costliest first: the first
// `kept` of the result are the `kept` costliest (`costlier` orders them,
// ties by key so that the choice is the same on every run), in no
// particular order, and the rest are left out.
template <typename Table, typename Counts, typename Costlier>
std::vector<const typename Table::value_type*> Costliest(const Table& table, size_t kept,
                                                         Counts counts, Costlier costlier) {
  std::vector<const typename Table::value_type*> entries;
  entries.reserve(table.size());
  for (const auto& entry : table) {
    if (counts(entry)) entries.push_back(&entry);
  }
  if (entries.size() > kept) {
    std::nth_element(entries.begin(), entries.begin() + kept, entries.end(),
                     [&](const auto* a, const auto* b) { return costlier(*a, *b); });
  }
  return entries;
}

uint64_t FunctionKey(uint32_t fn, uint32_t obj) { return static_cast<uint64_t>(fn) << 32 | obj; }

}  // namespace

bool Parser::AddTo(Profile* profile, std::string* err) const {
  uint64_t file_total = 0;
  for (const auto& [key, cost] : self_) {
    if (__builtin_add_overflow(file_total, cost, &file_total)) {
      *err = "the file's total cost exceeds 2^64-1";
      return false;
    }
  }
  uint64_t total;
  if (__builtin_add_overflow(profile->total, file_total, &total)) {
    *err = "the profile's total cost exceeds 2^64-1";
    return false;
  }
  auto id = [this](uint64_t key) {
    return FunctionId{fn_names_[key >> 32], obj_names_[key & 0xffffffffu]};
  };
  // Call costs are not part of the total: their sums are checked before
  // anything is added, so that a failure leaves `*profile` as it was.
  const auto calls = Costliest(
      calls_, bounds_.calls_kept, [](const auto&) { return true; },
      [](const auto& a, const auto& b) {
        if (a.second.inclusive != b.second.inclusive) {
          return a.second.inclusive > b.second.inclusive;
        }
        if (a.second.calls != b.second.calls) return a.second.calls > b.second.calls;
        return std::tie(a.first.fn, a.first.obj, a.first.cfn, a.first.cobj) <
               std::tie(b.first.fn, b.first.obj, b.first.cfn, b.first.cobj);
      });
  const size_t calls_kept = std::min(calls.size(), bounds_.calls_kept);
  std::map<CallEdge, CallCost> merged_calls = profile->calls;
  for (size_t i = 0; i < calls_kept; ++i) {
    const auto& [key, cost] = *calls[i];
    CallCost& edge = merged_calls[CallEdge{id(FunctionKey(key.fn, key.obj)),
                                           id(FunctionKey(key.cfn, key.cobj))}];
    if (__builtin_add_overflow(edge.calls, cost.calls, &edge.calls) ||
        __builtin_add_overflow(edge.inclusive, cost.inclusive, &edge.inclusive)) {
      *err = "a call edge's cost exceeds 2^64-1";
      return false;
    }
  }
  std::set<uint64_t> calls_cut_at;  // caller and callee of each edge left out
  for (size_t i = calls_kept; i < calls.size(); ++i) {
    calls_cut_at.insert(FunctionKey(calls[i]->first.fn, calls[i]->first.obj));
    calls_cut_at.insert(FunctionKey(calls[i]->first.cfn, calls[i]->first.cobj));
  }
  // No self or line entry can overflow now: each is at most the new total.
  std::set<uint32_t> objects;
  for (const auto& [key, cost] : self_) {
    if (cost == 0) continue;
    objects.insert(key & 0xffffffffu);
    profile->self[id(key)] += cost;
  }
  for (uint32_t object : objects) {
    // Index 0 (no "ob=" line) has no path.
    if (object >= obj_paths_.size() || obj_paths_[object].empty()) continue;
    std::set<std::string>& paths = profile->object_paths[obj_names_[object]];
    for (const std::string& path : obj_paths_[object]) {
      if (paths.size() < kMaxPathsPerObject) paths.insert(path);
    }
  }
  // A line without cost is no line of the profile's.
  const auto lines = Costliest(
      line_self_, bounds_.lines_kept, [](const auto& entry) { return entry.second != 0; },
      [](const auto& a, const auto& b) {
        if (a.second != b.second) return a.second > b.second;
        return std::tie(a.first.fn, a.first.obj, a.first.file, a.first.line) <
               std::tie(b.first.fn, b.first.obj, b.first.file, b.first.line);
      });
  const size_t lines_kept = std::min(lines.size(), bounds_.lines_kept);
  // The simulated events, where every part of every file listed them. The
  // primary event's total bounds none of them, so their sums saturate
  // rather than fail or wrap: context, never a count.
  const bool simulated = track_simulated_ && simulated_listed_ &&
                         (profile->parts == 0 || profile->simulated);
  auto add = [](SimulatedCosts* into, const SimulatedCosts& more) {
    for (size_t i = 0; i < kSimulatedEventCount; ++i) {
      if (__builtin_add_overflow((*into)[i], more[i], &(*into)[i])) (*into)[i] = UINT64_MAX;
    }
  };
  for (size_t i = 0; i < lines_kept; ++i) {
    const auto& [key, cost] = *lines[i];
    const FunctionId function = id(FunctionKey(key.fn, key.obj));
    const SourceLine line{file_names_[key.file], key.line};
    profile->lines[function][line] += cost;
    if (!simulated) continue;
    const auto found = line_simulated_table_.find(key);
    if (found != line_simulated_table_.end()) {
      add(&profile->lines_simulated[function][line], found->second);
    }
  }
  if (simulated) {
    for (const auto& [key, costs] : self_simulated_) {
      const auto self = self_.find(key);
      if (self == self_.end() || self->second == 0) continue;
      add(&profile->self_simulated[id(key)], costs);
    }
  } else {
    profile->self_simulated.clear();
    profile->lines_simulated.clear();
  }
  profile->simulated = simulated;
  std::set<uint64_t> lines_cut_from;
  for (size_t i = lines_kept; i < lines.size(); ++i) {
    lines_cut_from.insert(FunctionKey(lines[i]->first.fn, lines[i]->first.obj));
  }
  auto note = [&](size_t named, size_t kept, bool dropped, size_t read,
                  const std::set<uint64_t>& functions, TableCut* cut) {
    cut->named += dropped ? read : named;
    cut->kept += kept;
    cut->dropped = cut->dropped || dropped;
    for (uint64_t key : functions) cut->functions.insert(id(key));
  };
  note(calls.size(), calls_kept, calls_dropped_, bounds_.calls_read, calls_cut_at,
       &profile->calls_cut);
  note(lines.size(), lines_kept, lines_dropped_, bounds_.lines_read, lines_cut_from,
       &profile->lines_cut);
  profile->calls = std::move(merged_calls);
  profile->total = total;
  profile->parts += parts_;
  return true;
}

}  // namespace workgate::callgrind
