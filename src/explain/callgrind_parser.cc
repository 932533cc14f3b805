#include "explain/callgrind_parser.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "explain/callgrind_tokens.h"

namespace workgate::callgrind {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

Parser::Parser(std::string event, Mode mode, ProfileBounds bounds)
    : event_(std::move(event)), mode_(mode), bounds_(bounds) {
  Intern("", &obj_index_, &obj_names_);    // index 0: no "ob=" line yet
  Intern("", &file_index_, &file_names_);  // index 0: no "fl=" line yet
}

bool Parser::Fail(std::string message) {
  error_ = std::move(message);
  failed_ = true;
  return false;
}

void Parser::Error(size_t* line, std::string* err) const {
  *line = line_no_;
  *err = error_;
}

bool Parser::Parse(std::string_view text, size_t* line, std::string* err) {
  if (Feed(text) && Finish()) return true;
  Error(line, err);
  return false;
}

void Parser::StartFile() {
  line_no_ = 0;
  input_seen_ = false;
  partial_line_.clear();
  events_seen_ = false;
  event_index_ = -1;
  event_count_ = 0;
  simulated_column_.clear();
  position_count_ = 1;
  line_position_ = 0;
  std::fill(std::begin(last_position_), std::end(last_position_), 0);
  fn_ids_.clear();
  obj_ids_.clear();
  file_ids_.clear();
  name_bytes_ -= file_id_bytes_;
  file_id_bytes_ = 0;
  file_parts_ = parts_;
  BeginPart();
}

bool Parser::Feed(std::string_view chunk) {
  if (failed_) return false;
  input_seen_ = input_seen_ || !chunk.empty();
  if (!partial_line_.empty()) {
    // The line the last chunk ended in: complete it, or keep collecting.
    const size_t nl = chunk.find('\n');
    partial_line_.append(chunk.substr(0, nl));
    if (nl == std::string_view::npos) {
      if (partial_line_.size() <= kMaxLineBytes) return true;
      ++line_no_;
      return Fail("line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    }
    chunk.remove_prefix(nl + 1);
    ++line_no_;
    const bool ok = Line(partial_line_);
    partial_line_.clear();
    if (!ok) return false;
  }
  const size_t last_nl = chunk.rfind('\n');
  const size_t whole = last_nl == std::string_view::npos ? 0 : last_nl + 1;
  if (!Lines(chunk.substr(0, whole))) return false;
  partial_line_.assign(chunk.substr(whole));
  if (partial_line_.size() <= kMaxLineBytes) return true;
  ++line_no_;
  return Fail("line longer than " + std::to_string(kMaxLineBytes) + " bytes");
}

bool Parser::Lines(std::string_view text) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no_;
    if (!Line(l)) return false;
  }
  return true;
}

bool Parser::Finish() {
  if (failed_) return false;
  if (!input_seen_) {
    line_no_ = 1;
    return Fail("empty input, not a callgrind output file");
  }
  if (!partial_line_.empty()) {
    ++line_no_;
    if (!Line(partial_line_)) return false;
    partial_line_.clear();
  }
  if (pending_call_line_ != 0) {
    return Fail("input ends after the calls= line " + std::to_string(pending_call_line_) +
                " without its cost line (truncated file?)");
  }
  if (!FinishPart()) return false;
  if (!events_seen_) {
    return Fail("no events: header line, not a callgrind output file (or it is truncated)");
  }
  if (parts_ == file_parts_) {
    // Callgrind ends every part with totals:, even one without cost.
    return Fail("input ends before any cost line or totals: line (truncated file?)");
  }
  return true;
}

bool Parser::Line(std::string_view line) {
  // Cost lines are nearly all lines: test for them before trimming.
  if (line.empty() || IsBlank(line[0])) line = Trim(line);
  if (line.empty() || line[0] == '#') return true;
  char c = line[0];
  if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') return CostLine(line);
  if (pending_call_line_ != 0) {
    return Fail("the calls= line " + std::to_string(pending_call_line_) +
                " must be followed by its cost line, not '" + Excerpt(line) + "'");
  }
  size_t key_end = 0;
  while (key_end < line.size() && IsLetter(line[key_end])) ++key_end;
  if (key_end > 0 && key_end < line.size()) {
    std::string_view key = line.substr(0, key_end);
    if (line[key_end] == ':') return HeaderLine(key, line.substr(key_end + 1));
    if (line[key_end] == '=') return PositionLine(key, line.substr(key_end + 1));
  }
  return Fail("unrecognized line '" + Excerpt(line) +
              "' (expected a cost line, key=value or key: value)");
}

bool Parser::HeaderLine(std::string_view key, std::string_view value) {
  if (part_closed_) BeginPart();
  if (key == "totals" || key == "summary") return SummaryOrTotals(key, value);
  if (key == "part") {
    if (!FinishPart()) return false;
    BeginPart();
  }
  if (key == "part" || key == "pid" || key == "thread") {
    uint64_t ignored;
    if (!ParseNumber(Trim(value), &ignored)) {
      return Fail(std::string(key) + ": needs a number, not '" + Excerpt(Trim(value)) + "'");
    }
    return true;
  }
  if (key == "events" || key == "positions") {
    // A new header after cost lines starts a new part.
    if (part_has_body_) {
      if (!FinishPart()) return false;
      BeginPart();
    }
    return key == "events" ? EventsLine(value) : PositionsLine(value);
  }
  // version, creator, cmd, desc, event and keys added later: no cost.
  return true;
}

bool Parser::EventsLine(std::string_view value) {
  std::string_view token;
  int count = 0;
  int index = -1;
  std::vector<int> simulated;
  size_t simulated_found = 0;
  while (NextToken(&value, &token)) {
    if (index < 0 && token == event_) index = count;
    if (track_simulated_) {
      int k = -1;
      for (size_t i = 0; i < kSimulatedEventCount; ++i) {
        if (token == kSimulatedEventNames[i]) k = static_cast<int>(i);
      }
      // A name listed twice is read once, in its first column.
      if (k >= 0 && std::find(simulated.begin(), simulated.end(), k) != simulated.end()) k = -1;
      simulated_found += k >= 0 ? 1 : 0;
      simulated.push_back(k);
    }
    ++count;
  }
  if (count == 0) return Fail("events: lists no event");
  if (index < 0) return Fail("events: does not list the event " + event_);
  if (track_simulated_) {
    simulated_listed_ = simulated_listed_ && simulated_found == kSimulatedEventCount;
    simulated_column_ = std::move(simulated);
  }
  events_seen_ = true;
  event_index_ = index;
  event_count_ = count;
  return true;
}

bool Parser::PositionsLine(std::string_view value) {
  static constexpr std::string_view kOrder[] = {"instr", "bb", "line"};
  std::string_view token;
  size_t next = 0;
  int count = 0;
  int line = -1;
  while (NextToken(&value, &token)) {
    while (next < std::size(kOrder) && kOrder[next] != token) ++next;
    if (next == std::size(kOrder)) {
      return Fail("positions: '" + Excerpt(token) +
                  "' is not instr, bb or line (in that order, each once)");
    }
    if (token == "line") line = count;
    ++next;
    ++count;
  }
  position_count_ = count;
  line_position_ = line;
  return true;
}

bool Parser::SummaryOrTotals(std::string_view key, std::string_view value) {
  if (!events_seen_) return Fail(std::string(key) + ": before the events: header");
  uint64_t cost = 0;
  if (!ParseCosts(value, &cost)) return false;
  // Callgrind writes "summary:" in the header and "totals:" after the last
  // cost line of each part; Cachegrind writes only "summary:", at the end.
  // A header's summary says only that a totals: line must follow: it may be
  // below the part's cost lines (callgrind's dump of a process that execs:
  // summary 244692, totals and cost lines 244701 for `sh -c 'echo; ls'`).
  if (key == "summary" && !part_has_body_) {
    part_summary_ = cost;
    part_summary_line_ = line_no_;
    return true;
  }
  if (cost != part_sum_) {
    return Fail(std::string(key) + ": " + std::to_string(cost) + " " + event_ +
                " disagrees with the sum of the part's cost lines, " + std::to_string(part_sum_));
  }
  if (track_simulated_ && simulated_listed_) {
    for (size_t i = 0; i < kSimulatedEventCount; ++i) {
      if (line_simulated_[i] == part_simulated_[i]) continue;
      return Fail(std::string(key) + ": " + std::to_string(line_simulated_[i]) + " " +
                  std::string(kSimulatedEventNames[i]) +
                  " disagrees with the sum of the part's cost lines, " +
                  std::to_string(part_simulated_[i]));
    }
  }
  part_totals_seen_ = true;
  if (!FinishPart()) return false;
  part_closed_ = true;
  return true;
}

bool Parser::FinishPart() {
  // Callgrind ends every part with totals:. Explain accepts a part without
  // one (hand-written or trimmed profiles); a count taken as evidence does
  // not, so a file cut after a complete cost line is no smaller count.
  if (mode_ == Mode::kTotal && part_has_body_ && !part_totals_seen_) {
    return Fail("a part ends without its totals: line (truncated file?)");
  }
  if (part_summary_ && !part_totals_seen_) {
    return Fail("the part whose summary: is on line " + std::to_string(part_summary_line_) +
                " ends without a totals: line (truncated file?)");
  }
  if (part_has_body_ || part_totals_seen_) ++parts_;
  if (mode_ == Mode::kTotal && __builtin_add_overflow(total_, part_sum_, &total_)) {
    return Fail("the file's total cost exceeds 2^64-1");
  }
  if (mode_ == Mode::kTotal && track_simulated_) {
    for (size_t i = 0; i < kSimulatedEventCount; ++i) {
      if (__builtin_add_overflow(total_simulated_[i], part_simulated_[i], &total_simulated_[i])) {
        return Fail("the file's total cost exceeds 2^64-1");
      }
    }
  }
  BeginPart();
  return true;
}

void Parser::BeginPart() {
  part_has_body_ = false;
  part_closed_ = false;
  part_summary_.reset();
  part_totals_seen_ = false;
  part_sum_ = 0;
  part_simulated_ = {};
  current_simulated_ = nullptr;
  // Callgrind names ob=, fl= and fn= again at the start of every part.
  current_fn_.reset();
  current_obj_ = 0;
  current_file_ = 0;
  current_cost_ = nullptr;
  callee_fn_.reset();
  callee_obj_.reset();
}

bool Parser::PositionLine(std::string_view key, std::string_view value) {
  if (part_closed_) {
    return Fail(std::string(key) + "= after totals: (a new part starts with a header line)");
  }
  part_has_body_ = true;
  if (key == "fn") {
    uint32_t display;
    if (!FunctionSpec(key, value, &display)) return false;
    current_fn_ = display;
    current_cost_ = nullptr;
    current_simulated_ = nullptr;
    return true;
  }
  if (key == "ob") {
    uint32_t basename;
    if (!ObjectSpec(key, value, &basename)) return false;
    current_obj_ = basename;
    current_cost_ = nullptr;
    current_simulated_ = nullptr;
    return true;
  }
  // The callee of the next calls= line and its object.
  if (key == "cfn") {
    uint32_t display;
    if (!FunctionSpec(key, value, &display)) return false;
    callee_fn_ = display;
    return true;
  }
  if (key == "cob") {
    uint32_t basename;
    if (!ObjectSpec(key, value, &basename)) return false;
    callee_obj_ = basename;
    return true;
  }
  // Jump-target and caller names only define or use ids here.
  if (key == "jfn" || key == "frfn") {
    uint32_t ignored;
    return FunctionSpec(key, value, &ignored);
  }
  // fl= sets the source file of the lines that follow, and fi= and fe=
  // switch it for inlined code; the function stays. The callee's and a
  // jump target's files only define or use ids.
  if (key == "fl" || key == "fi" || key == "fe") {
    uint32_t file;
    if (!FileSpec(key, value, &file)) return false;
    current_file_ = file;
    current_cost_ = nullptr;
    return true;
  }
  if (key == "cfi" || key == "cfl" || key == "jfi") {
    uint32_t ignored;
    return FileSpec(key, value, &ignored);
  }
  if (key == "calls") return CallsLine(value);
  // jump=, jcnd= (--collect-jumps), rec=, ln=, bb=: no self cost.
  return true;
}

bool Parser::CallsLine(std::string_view value) {
  std::string_view token;
  uint64_t count;
  if (!NextToken(&value, &token) || !ParseNumber(token, &count)) {
    return Fail("calls= needs a call count, then the target position");
  }
  pending_calls_ = count;
  int positions = 0;
  while (NextToken(&value, &token)) {
    if (!IsSubposition(token) || ++positions > position_count_) {
      return Fail("calls= target position '" + Excerpt(token) + "' is not one of " +
                  std::to_string(position_count_) + " subposition(s)");
    }
  }
  if (positions == 0 && position_count_ > 0) return Fail("calls= has no target position");
  pending_call_line_ = line_no_;
  return true;
}

bool Parser::CostLine(std::string_view line) {
  if (!events_seen_) return Fail("cost line before the events: header");
  if (part_closed_) return Fail("cost line after totals: (a new part starts with a header line)");
  part_has_body_ = true;
  const char* p = line.data();
  const char* end = p + line.size();
  for (int i = 0; i < position_count_; ++i) {
    while (p < end && IsBlank(*p)) ++p;
    if (!Position(&p, end, i) || (p < end && !IsBlank(*p))) {
      return Fail("cost line needs " + std::to_string(position_count_) +
                  " position(s) first (number, +N, -N or *): '" + Excerpt(line) + "'");
    }
  }
  uint64_t cost = 0;
  if (!ParseCosts(std::string_view(p, end - p), &cost)) return false;
  const uint64_t source_line = line_position_ < 0 ? 0 : last_position_[line_position_];
  if (pending_call_line_ != 0) {
    // The inclusive cost of a call: already counted as the callee's self
    // cost, and kept per call edge.
    pending_call_line_ = 0;
    if (mode_ == Mode::kSelfCost && current_fn_ && callee_fn_ && !AddCall(cost)) return false;
    callee_fn_.reset();
    callee_obj_.reset();
    return true;
  }
  if (!current_fn_) return Fail("cost line before any fn= line");
  if (mode_ == Mode::kSelfCost) {
    if (current_cost_ == nullptr) {
      uint64_t key = (static_cast<uint64_t>(*current_fn_) << 32) | current_obj_;
      const auto [it, inserted] = self_.try_emplace(key, 0);
      // A function named in two objects is two rows.
      if (inserted && self_.size() > bounds_.functions) {
        return Fail("the profile has more than " + std::to_string(bounds_.functions) +
                    " functions, the most an explanation reads");
      }
      current_cost_ = &it->second;  // node addresses are stable in unordered_map
    }
    if (__builtin_add_overflow(*current_cost_, cost, current_cost_)) {
      return Fail("cost sum exceeds 2^64-1");
    }
    if (simulated()) {
      if (current_simulated_ == nullptr) {
        current_simulated_ =
            &self_simulated_[(static_cast<uint64_t>(*current_fn_) << 32) | current_obj_];
      }
      if (!AddSimulated(current_simulated_)) return false;
    }
    AddLine(source_line, cost);
  }
  if (__builtin_add_overflow(part_sum_, cost, &part_sum_)) return Fail("cost sum exceeds 2^64-1");
  if (simulated() && !AddSimulated(&part_simulated_)) return false;
  return true;
}

bool Parser::AddSimulated(SimulatedCosts* into) {
  for (size_t i = 0; i < kSimulatedEventCount; ++i) {
    if (__builtin_add_overflow((*into)[i], line_simulated_[i], &(*into)[i])) {
      return Fail("cost sum exceeds 2^64-1");
    }
  }
  return true;
}

bool Parser::AddCall(uint64_t cost) {
  if (calls_dropped_) return true;
  const auto [it, inserted] = calls_.try_emplace(
      EdgeKey{*current_fn_, current_obj_, *callee_fn_, callee_obj_.value_or(current_obj_)});
  if (inserted && calls_.size() > bounds_.calls_read) {
    // Beyond the bound, no edge is kept: the memory is given back.
    calls_dropped_ = true;
    decltype(calls_)().swap(calls_);
    return true;
  }
  CallCost& edge = it->second;
  if (__builtin_add_overflow(edge.calls, pending_calls_, &edge.calls) ||
      __builtin_add_overflow(edge.inclusive, cost, &edge.inclusive)) {
    return Fail("call cost sum exceeds 2^64-1");
  }
  return true;
}

void Parser::AddLine(uint64_t source_line, uint64_t cost) {
  if (lines_dropped_) return;
  const auto [it, inserted] =
      line_self_.try_emplace(LineKey{*current_fn_, current_obj_, current_file_, source_line}, 0);
  if (inserted && line_self_.size() > bounds_.lines_read) {
    lines_dropped_ = true;
    decltype(line_self_)().swap(line_self_);
    decltype(line_simulated_table_)().swap(line_simulated_table_);
    return;
  }
  it->second += cost;  // cannot overflow where the function's sum did not
  if (simulated()) {
    // Nor these, where the function's did not.
    SimulatedCosts& costs = line_simulated_table_[it->first];
    for (size_t i = 0; i < kSimulatedEventCount; ++i) costs[i] += line_simulated_[i];
  }
}

// One subposition of a cost line at `*p`: absolute (decimal or 0x hex),
// relative to the last value of the same subposition (+N, -N), or the same
// as it (*). Relative arithmetic wraps rather than fails: a position only
// names a line, and a file that wraps one names a line that is not there.
bool Parser::Position(const char** p, const char* end, int index) {
  uint64_t& last = last_position_[index];
  if (*p < end && **p == '*') {
    ++*p;
    return true;
  }
  uint64_t value = 0;
  if (*p < end && (**p == '+' || **p == '-')) {
    const bool minus = **p == '-';
    ++*p;
    if (!ScanNumber(p, end, &value)) return false;
    last = minus ? last - value : last + value;
    return true;
  }
  if (*p == end || !ScanNumber(p, end, &value)) return false;
  last = value;
  return true;
}

bool Parser::ParseCosts(std::string_view costs, uint64_t* event_cost) {
  const char* p = costs.data();
  const char* end = p + costs.size();
  int column = 0;
  *event_cost = 0;
  const bool simulated_columns = simulated() && !simulated_column_.empty();
  if (simulated_columns) line_simulated_ = {};
  while (true) {
    while (p < end && IsBlank(*p)) ++p;
    if (p == end) return true;
    if (column == event_count_) {
      return Fail("more costs than the " + std::to_string(event_count_) +
                  " event(s) the events: header lists");
    }
    const char* start = p;
    uint64_t v;
    if (!ScanNumber(&p, end, &v)) {
      const char* stop = start;
      while (stop < end && !IsBlank(*stop)) ++stop;
      return Fail("cost '" + Excerpt(std::string_view(start, stop - start)) +
                  "' is not a number below 2^64");
    }
    if (column == event_index_) *event_cost = v;
    if (simulated_columns && simulated_column_[column] >= 0) {
      line_simulated_[simulated_column_[column]] = v;
    }
    ++column;
  }
}

}  // namespace workgate::callgrind
