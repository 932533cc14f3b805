// Parser members for position names: name compression tables, display
// names of functions, object basenames, and the hand-over of the result.

#include <map>
#include <set>
#include <utility>

#include "explain/callgrind_parser.h"
#include "explain/callgrind_tokens.h"

namespace workgate::callgrind {
namespace {

std::string IdText(uint64_t id) { return "(" + std::to_string(id) + ")"; }

}  // namespace

uint32_t Parser::Intern(std::string_view name, StringIndex* index,
                        std::vector<std::string>* names) {
  auto it = index->find(name);
  if (it != index->end()) return it->second;
  uint32_t n = static_cast<uint32_t>(names->size());
  names->emplace_back(name);
  index->emplace(std::string(name), n);
  return n;
}

uint32_t Parser::ObjectBasename(std::string_view path) {
  if (mode_ == Mode::kTotal) return 0;  // a total keeps no names
  auto known = obj_path_index_.find(path);
  if (known != obj_path_index_.end()) return known->second;
  size_t slash = path.rfind('/');
  uint32_t index = Intern(slash == std::string_view::npos ? path : path.substr(slash + 1),
                          &obj_index_, &obj_names_);
  // The path itself is kept for what explain says about the file (whether it
  // has symbols), within a bound.
  if (obj_paths_.size() <= index) obj_paths_.resize(index + 1);
  if (obj_paths_[index].size() < kMaxPathsPerObject) obj_paths_[index].emplace_back(path);
  obj_path_index_.emplace(std::string(path), index);
  return index;
}

bool Parser::FunctionDisplay(std::string_view raw, uint32_t* display) {
  if (raw.size() >= 2 && raw[0] == '(' && IsDigit(raw[1])) {
    // --compress-mangled: "(3)'2'(5)" names a context by the ids of its
    // functions; the first one is the function itself.
    size_t close = raw.find(')');
    uint64_t id = 0;
    if (close == std::string_view::npos || !ParseNumber(raw.substr(1, close - 1), &id) ||
        (close + 1 < raw.size() && raw[close + 1] != '\'')) {
      return Fail("function context '" + Excerpt(raw) + "' is not of the form (id)'...");
    }
    auto it = fn_ids_.find(id);
    if (it == fn_ids_.end()) {
      return Fail("function context '" + Excerpt(raw) + "' refers to the undefined id " +
                  IdText(id));
    }
    *display = it->second.display;
    return true;
  }
  // A total keeps no names: no demangling, which costs the most per name.
  *display = mode_ == Mode::kTotal ? 0 : Intern(DisplayFunctionName(raw), &fn_index_, &fn_names_);
  return true;
}

bool Parser::FunctionSpec(std::string_view key, std::string_view value, uint32_t* display) {
  NameSpec spec;
  std::string err;
  if (!ParseNameSpec(value, &spec, &err)) return Fail(std::string(key) + "=: " + err);
  if (!spec.has_id && mode_ == Mode::kTotal) return FunctionDisplay(spec.name, display);
  if (!spec.has_id) {
    // Without --compress-strings every line repeats the name: demangle once.
    auto cached = plain_fn_cache_.find(spec.name);
    if (cached != plain_fn_cache_.end()) {
      *display = cached->second;
      return true;
    }
    if (!FunctionDisplay(spec.name, display)) return false;
    plain_fn_cache_.emplace(std::string(spec.name), *display);
    return true;
  }
  auto it = fn_ids_.find(spec.id);
  if (it != fn_ids_.end()) {
    if (!spec.name.empty() && it->second.raw != spec.name) {
      return Fail(std::string(key) + "=: function id " + IdText(spec.id) +
                  " is defined again as '" + Excerpt(spec.name) + "', it was '" +
                  Excerpt(it->second.raw) + "'");
    }
    *display = it->second.display;
    return true;
  }
  if (spec.name.empty()) {
    return Fail(std::string(key) + "=: function id " + IdText(spec.id) +
                " is used before it is defined");
  }
  if (!FunctionDisplay(spec.name, display)) return false;
  fn_ids_.emplace(spec.id, FnEntry{std::string(spec.name), *display});
  return true;
}

bool Parser::ObjectSpec(std::string_view key, std::string_view value, uint32_t* basename) {
  NameSpec spec;
  std::string err;
  if (!ParseNameSpec(value, &spec, &err)) return Fail(std::string(key) + "=: " + err);
  if (!spec.has_id) {
    *basename = ObjectBasename(spec.name);
    return true;
  }
  auto it = obj_ids_.find(spec.id);
  if (it != obj_ids_.end()) {
    if (!spec.name.empty() && it->second.raw != spec.name) {
      return Fail(std::string(key) + "=: object id " + IdText(spec.id) + " is defined again as '" +
                  Excerpt(spec.name) + "', it was '" + Excerpt(it->second.raw) + "'");
    }
    *basename = it->second.basename;
    return true;
  }
  if (spec.name.empty()) {
    return Fail(std::string(key) + "=: object id " + IdText(spec.id) +
                " is used before it is defined");
  }
  *basename = ObjectBasename(spec.name);
  obj_ids_.emplace(spec.id, ObjEntry{std::string(spec.name), *basename});
  return true;
}

bool Parser::FileSpec(std::string_view key, std::string_view value, uint32_t* file) {
  NameSpec spec;
  std::string err;
  if (!ParseNameSpec(value, &spec, &err)) return Fail(std::string(key) + "=: " + err);
  // Files are few, and interned in both modes: a total checks their ids
  // as explain does.
  auto intern = [&](std::string_view name) { return Intern(name, &file_index_, &file_names_); };
  if (!spec.has_id) {
    *file = intern(spec.name);
    return true;
  }
  auto it = file_ids_.find(spec.id);
  if (spec.name.empty()) {
    if (it == file_ids_.end()) {
      return Fail(std::string(key) + "=: file id " + IdText(spec.id) +
                  " is used before it is defined");
    }
    *file = it->second;
    return true;
  }
  if (it != file_ids_.end()) {
    if (file_names_[it->second] != spec.name) {
      return Fail(std::string(key) + "=: file id " + IdText(spec.id) + " is defined again as '" +
                  Excerpt(spec.name) + "', it was '" + Excerpt(file_names_[it->second]) + "'");
    }
    *file = it->second;
    return true;
  }
  *file = intern(spec.name);
  file_ids_.emplace(spec.id, *file);
  return true;
}

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
  // Call costs are not part of the total: their sums are checked before
  // anything is added, so that a failure leaves `*profile` as it was.
  std::map<CallEdge, CallCost> calls = profile->calls;
  for (const auto& [key, cost] : calls_) {
    CallCost& edge = calls[CallEdge{FunctionId{fn_names_[key.fn], obj_names_[key.obj]},
                                    FunctionId{fn_names_[key.cfn], obj_names_[key.cobj]}}];
    if (__builtin_add_overflow(edge.calls, cost.calls, &edge.calls) ||
        __builtin_add_overflow(edge.inclusive, cost.inclusive, &edge.inclusive)) {
      *err = "a call edge's cost exceeds 2^64-1";
      return false;
    }
  }
  // No self or line entry can overflow now: each is at most the new total.
  std::set<uint32_t> objects;
  for (const auto& [key, cost] : self_) {
    if (cost == 0) continue;
    const uint32_t object = key & 0xffffffffu;
    objects.insert(object);
    FunctionId id{fn_names_[key >> 32], obj_names_[object]};
    profile->self[std::move(id)] += cost;
  }
  for (uint32_t object : objects) {
    // Index 0 (no "ob=" line) has no path.
    if (object >= obj_paths_.size() || obj_paths_[object].empty()) continue;
    std::set<std::string>& paths = profile->object_paths[obj_names_[object]];
    for (const std::string& path : obj_paths_[object]) {
      if (paths.size() < kMaxPathsPerObject) paths.insert(path);
    }
  }
  for (const auto& [key, cost] : line_self_) {
    if (cost == 0) continue;
    FunctionId id{fn_names_[key.fn], obj_names_[key.obj]};
    profile->lines[std::move(id)][SourceLine{file_names_[key.file], key.line}] += cost;
  }
  profile->calls = std::move(calls);
  profile->total = total;
  profile->parts += parts_;
  return true;
}

}  // namespace workgate::callgrind
