// Parser members for position names: name compression tables, display
// names of functions, object basenames, and the memory they are charged.

#include <string>
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

bool Parser::ChargeName(size_t bytes, bool file_ids) {
  // A total keeps names only to check their ids, and no bound may change it.
  if (mode_ == Mode::kTotal) return true;
  name_bytes_ += bytes + kNameEntryBytes;
  if (file_ids) file_id_bytes_ += bytes + kNameEntryBytes;
  if (name_bytes_ <= bounds_.name_bytes) return true;
  const size_t mib = bounds_.name_bytes >> 20;
  return Fail("the profile's names take more than " +
              (mib << 20 == bounds_.name_bytes ? std::to_string(mib) + " MiB"
                                               : std::to_string(bounds_.name_bytes) + " bytes") +
              ", the most an explanation reads");
}

bool Parser::InternName(std::string_view name, StringIndex* index, std::vector<std::string>* names,
                        uint32_t* at) {
  const size_t before = names->size();
  *at = Intern(name, index, names);
  // The name is in the list and the index: charged twice.
  return names->size() == before || ChargeName(2 * name.size());
}

bool Parser::ObjectBasename(std::string_view path, uint32_t* basename) {
  if (mode_ == Mode::kTotal) {  // a total keeps no names
    *basename = 0;
    return true;
  }
  auto known = obj_path_index_.find(path);
  if (known != obj_path_index_.end()) {
    *basename = known->second;
    return true;
  }
  size_t slash = path.rfind('/');
  uint32_t index = 0;
  if (!InternName(slash == std::string_view::npos ? path : path.substr(slash + 1), &obj_index_,
                  &obj_names_, &index) ||
      !ChargeName(2 * path.size())) {
    return false;
  }
  // The path itself is kept for what explain says about the file (whether it
  // has symbols), within a bound.
  if (obj_paths_.size() <= index) obj_paths_.resize(index + 1);
  if (obj_paths_[index].size() < kMaxPathsPerObject) obj_paths_[index].emplace_back(path);
  obj_path_index_.emplace(std::string(path), index);
  *basename = index;
  return true;
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
  if (mode_ == Mode::kTotal) {
    *display = 0;
    return true;
  }
  if (!InternName(DisplayFunctionName(raw), &fn_index_, &fn_names_, display)) return false;
  if (fn_names_.size() <= bounds_.functions) return true;
  return Fail("the profile has more than " + std::to_string(bounds_.functions) +
              " functions, the most an explanation reads");
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
    if (!FunctionDisplay(spec.name, display) || !ChargeName(spec.name.size())) return false;
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
  if (!FunctionDisplay(spec.name, display) || !ChargeName(spec.name.size(), true)) return false;
  fn_ids_.emplace(spec.id, FnEntry{std::string(spec.name), *display});
  return true;
}

bool Parser::ObjectSpec(std::string_view key, std::string_view value, uint32_t* basename) {
  NameSpec spec;
  std::string err;
  if (!ParseNameSpec(value, &spec, &err)) return Fail(std::string(key) + "=: " + err);
  if (!spec.has_id) return ObjectBasename(spec.name, basename);
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
  if (!ObjectBasename(spec.name, basename) || !ChargeName(spec.name.size(), true)) return false;
  obj_ids_.emplace(spec.id, ObjEntry{std::string(spec.name), *basename});
  return true;
}

bool Parser::FileSpec(std::string_view key, std::string_view value, uint32_t* file) {
  NameSpec spec;
  std::string err;
  if (!ParseNameSpec(value, &spec, &err)) return Fail(std::string(key) + "=: " + err);
  // Files are interned in both modes: a total checks their ids as explain
  // does.
  auto intern = [&](std::string_view name) {
    return InternName(name, &file_index_, &file_names_, file);
  };
  if (!spec.has_id) return intern(spec.name);
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
  if (!intern(spec.name) || !ChargeName(0, true)) return false;
  file_ids_.emplace(spec.id, *file);
  return true;
}

}  // namespace workgate::callgrind
