#pragma once
// Comparing vgcount's profile with callgrind's for the same run, function
// by function and line by line, for the tests and for ci/profile-exactness
// (through tests/vgcount/compare_profiles.cc).
//
// Functions are matched by (name, object basename) as workgate's callgrind
// reader gives them (callgrind's recursion levels summed). Code without a
// symbol is one row per object: callgrind names such code by the block its
// context was entered at, vgcount by the block it returned to when the
// caller's own code has no symbol, and the two agree on the object but not
// always on the block (tools/vgcount/README.md).

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"

namespace workgate::testing {

/// One function whose two figures differ.
struct ProfileGap {
  FunctionId function;
  int64_t vgcount = 0;
  int64_t callgrind = 0;
  int64_t difference() const { return vgcount - callgrind; }
};

/// `profile`'s self costs with every function named by address
/// ("0x0000000000001370", "0x...1370 [PLT]") summed into "(code without a
/// symbol)" of its object.
inline std::map<FunctionId, uint64_t> FoldUnnamed(const Profile& profile) {
  std::map<FunctionId, uint64_t> folded;
  for (const auto& [id, cost] : profile.self) {
    FunctionId key = id;
    if (key.name.rfind("0x", 0) == 0) key.name = "(code without a symbol)";
    folded[key] += cost;
  }
  return folded;
}

/// Every function whose folded self cost differs, largest difference first.
inline std::vector<ProfileGap> ProfileGaps(const Profile& vgcount, const Profile& callgrind) {
  const auto ours = FoldUnnamed(vgcount), theirs = FoldUnnamed(callgrind);
  std::map<FunctionId, ProfileGap> gaps;
  for (const auto& [id, cost] : ours) gaps[id].vgcount = static_cast<int64_t>(cost);
  for (const auto& [id, cost] : theirs) gaps[id].callgrind = static_cast<int64_t>(cost);
  std::vector<ProfileGap> out;
  for (auto& [id, gap] : gaps) {
    gap.function = id;
    if (gap.difference() != 0) out.push_back(gap);
  }
  std::sort(out.begin(), out.end(), [](const ProfileGap& a, const ProfileGap& b) {
    const int64_t x = a.difference() < 0 ? -a.difference() : a.difference();
    const int64_t y = b.difference() < 0 ? -b.difference() : b.difference();
    return x != y ? x > y : a.function < b.function;
  });
  return out;
}

/// Callgrind adds a block's cost when the thread's next block starts, so it
/// never counts a thread's last block; vgcount does. VEX blocks are at most
/// 50 instructions (--vex-guest-max-insns default).
inline constexpr int64_t kMaxLastBlockInstructions = 50;

/// The gaps left once each of `threads` last blocks (at most
/// kMaxLastBlockInstructions more on vgcount's side, in one function each)
/// is allowed for: empty when the profiles agree as documented.
inline std::vector<ProfileGap> UnexplainedGaps(const Profile& vgcount, const Profile& callgrind,
                                               int threads) {
  std::vector<ProfileGap> left;
  int last_blocks = 0;
  for (const ProfileGap& gap : ProfileGaps(vgcount, callgrind)) {
    const bool last_block = gap.difference() > 0 &&
                            gap.difference() <= kMaxLastBlockInstructions * threads &&
                            last_blocks < threads;
    if (last_block) {
      ++last_blocks;
      continue;
    }
    left.push_back(gap);
  }
  return left;
}

/// One source line of one function whose two figures differ.
struct LineGap {
  FunctionId function;
  SourceLine line;
  int64_t vgcount = 0;
  int64_t callgrind = 0;
  int64_t difference() const { return vgcount - callgrind; }
};

/// `profile`'s line costs with functions folded as FoldUnnamed folds them.
inline std::map<std::pair<FunctionId, SourceLine>, uint64_t> FoldUnnamedLines(
    const Profile& profile) {
  std::map<std::pair<FunctionId, SourceLine>, uint64_t> folded;
  for (const auto& [id, lines] : profile.lines) {
    FunctionId key = id;
    if (key.name.rfind("0x", 0) == 0) key.name = "(code without a symbol)";
    for (const auto& [line, cost] : lines) folded[{key, line}] += cost;
  }
  return folded;
}

/// Every (function, line) whose folded cost differs, in order.
inline std::vector<LineGap> LineGaps(const Profile& vgcount, const Profile& callgrind) {
  std::map<std::pair<FunctionId, SourceLine>, LineGap> gaps;
  for (const auto& [key, cost] : FoldUnnamedLines(vgcount))
    gaps[key].vgcount = static_cast<int64_t>(cost);
  for (const auto& [key, cost] : FoldUnnamedLines(callgrind)) {
    gaps[key].callgrind = static_cast<int64_t>(cost);
  }
  std::vector<LineGap> out;
  for (auto& [key, gap] : gaps) {
    gap.function = key.first;
    gap.line = key.second;
    if (gap.difference() != 0) out.push_back(gap);
  }
  return out;
}

/// The line gaps left once the last blocks are allowed for: a function whose
/// self cost differs only by its thread's last block (UnexplainedGaps) may
/// differ on its lines by that block, line by line in vgcount's favour and
/// adding up to the function's gap. Empty when the lines agree as
/// documented.
inline std::vector<LineGap> UnexplainedLineGaps(const Profile& vgcount, const Profile& callgrind,
                                                int threads) {
  std::map<FunctionId, int64_t> excused;
  for (const ProfileGap& gap : ProfileGaps(vgcount, callgrind))
    excused[gap.function] = gap.difference();
  for (const ProfileGap& gap : UnexplainedGaps(vgcount, callgrind, threads)) {
    excused.erase(gap.function);
  }
  std::map<FunctionId, std::vector<LineGap>> by_function;
  for (const LineGap& gap : LineGaps(vgcount, callgrind)) by_function[gap.function].push_back(gap);
  std::vector<LineGap> left;
  for (const auto& [function, gaps] : by_function) {
    int64_t sum = 0;
    bool all_ours = true;
    for (const LineGap& gap : gaps) {
      sum += gap.difference();
      all_ours = all_ours && gap.difference() > 0;
    }
    const auto it = excused.find(function);
    if (it != excused.end() && all_ours && sum == it->second) continue;
    left.insert(left.end(), gaps.begin(), gaps.end());
  }
  return left;
}

/// The line gaps of functions whose self costs agree, and those of
/// functions whose lines do not add up to their self cost's gap: empty when
/// every line difference is accounted for by a function's own difference.
inline std::vector<LineGap> LineGapsBeyondFunctionGaps(const Profile& vgcount,
                                                       const Profile& callgrind) {
  std::map<FunctionId, int64_t> function_gap;
  for (const ProfileGap& gap : ProfileGaps(vgcount, callgrind))
    function_gap[gap.function] = gap.difference();
  std::map<FunctionId, std::vector<LineGap>> by_function;
  for (const LineGap& gap : LineGaps(vgcount, callgrind)) by_function[gap.function].push_back(gap);
  std::vector<LineGap> left;
  for (const auto& [function, gaps] : by_function) {
    int64_t sum = 0;
    for (const LineGap& gap : gaps) sum += gap.difference();
    const auto it = function_gap.find(function);
    if (it == function_gap.end() || it->second != sum)
      left.insert(left.end(), gaps.begin(), gaps.end());
  }
  return left;
}

/// One call edge (caller, callee) whose figures differ: its calls or its
/// inclusive cost.
struct CallGap {
  CallEdge edge;
  CallCost vgcount;
  CallCost callgrind;
  int64_t difference() const {
    return static_cast<int64_t>(vgcount.inclusive) - static_cast<int64_t>(callgrind.inclusive);
  }
};

/// `profile`'s call edges with both ends folded as FoldUnnamed folds them.
inline std::map<CallEdge, CallCost> FoldUnnamedCalls(const Profile& profile) {
  std::map<CallEdge, CallCost> folded;
  for (const auto& [original, cost] : profile.calls) {
    CallEdge edge = original;
    for (FunctionId* f : {&edge.first, &edge.second}) {
      if (f->name.rfind("0x", 0) == 0) f->name = "(code without a symbol)";
    }
    folded[edge].calls += cost.calls;
    folded[edge].inclusive += cost.inclusive;
  }
  return folded;
}

/// Every call edge whose folded count or inclusive cost differs, in order.
inline std::vector<CallGap> CallGaps(const Profile& vgcount, const Profile& callgrind) {
  std::map<CallEdge, CallGap> gaps;
  for (const auto& [edge, cost] : FoldUnnamedCalls(vgcount)) gaps[edge].vgcount = cost;
  for (const auto& [edge, cost] : FoldUnnamedCalls(callgrind)) gaps[edge].callgrind = cost;
  std::vector<CallGap> out;
  for (auto& [edge, gap] : gaps) {
    gap.edge = edge;
    if (gap.vgcount.calls != gap.callgrind.calls || gap.difference() != 0) out.push_back(gap);
  }
  return out;
}

/// The call gaps left once the last blocks are allowed for: a call still
/// in progress when its thread ended (main's, exit's) includes the thread's
/// last block on vgcount's side only, so its count agrees and its inclusive
/// cost is larger by at most kMaxLastBlockInstructions per thread. Empty
/// when the edges agree as documented.
inline std::vector<CallGap> UnexplainedCallGaps(const Profile& vgcount, const Profile& callgrind,
                                                int threads) {
  std::vector<CallGap> left;
  for (const CallGap& gap : CallGaps(vgcount, callgrind)) {
    const bool last_block = gap.vgcount.calls == gap.callgrind.calls && gap.difference() > 0 &&
                            gap.difference() <= kMaxLastBlockInstructions * threads;
    if (!last_block) left.push_back(gap);
  }
  return left;
}

}  // namespace workgate::testing
