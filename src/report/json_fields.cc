#include "report/json_fields.h"

#include <fmt/format.h>

namespace workgate {

using nlohmann::json;

JsonFields::JsonFields(const json& j, std::string where, std::string* err)
    : j_(j), where_(std::move(where)), err_(err) {
  if (!j_.is_object()) Fail("", "must be an object");
}

std::string JsonFields::Path(const std::string& key) const {
  if (key.empty()) return where_.empty() ? "the document" : where_;
  return where_.empty() ? key : where_ + "." + key;
}

bool JsonFields::Fail(const std::string& key, const std::string& problem) {
  if (ok_) *err_ = Path(key) + " " + problem;
  ok_ = false;
  return false;
}

const json* JsonFields::Find(const char* key) {
  if (!ok_) return nullptr;
  read_.insert(key);
  auto it = j_.find(key);
  if (it == j_.end()) {
    Fail(key, "is missing");
    return nullptr;
  }
  return &*it;
}

bool JsonFields::Type(const char* key, const json* v, bool good, const char* what) {
  if (v == nullptr) return false;
  return good || Fail(key, std::string("must be ") + what);
}

bool JsonFields::String(const char* key, std::string* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && v->is_string(), "a string")) return false;
  *out = v->get<std::string>();
  return true;
}

bool JsonFields::StringOrNull(const char* key, std::optional<std::string>* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && (v->is_string() || v->is_null()), "a string or null")) return false;
  *out = v->is_null() ? std::nullopt : std::optional(v->get<std::string>());
  return true;
}

bool JsonFields::StringOrNull(const char* key, std::string* out) {
  std::optional<std::string> value;
  if (!StringOrNull(key, &value)) return false;
  *out = value.value_or("");
  return true;
}

bool JsonFields::Bool(const char* key, bool* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && v->is_boolean(), "true or false")) return false;
  *out = v->get<bool>();
  return true;
}

bool JsonFields::BoolOrNull(const char* key, std::optional<bool>* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && (v->is_boolean() || v->is_null()), "true, false or null")) return false;
  *out = v->is_null() ? std::nullopt : std::optional(v->get<bool>());
  return true;
}

bool JsonFields::Int(const char* key, int64_t lo, int64_t hi, int64_t* out) {
  const json* v = Find(key);
  if (v == nullptr) return false;
  // Compared in the number's own kind: get<int64_t>() would wrap an
  // unsigned value above INT64_MAX (nlohmann reads every non-negative
  // integer as unsigned).
  bool fits = false;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    fits = hi >= 0 && u <= static_cast<uint64_t>(hi) && (lo <= 0 || u >= static_cast<uint64_t>(lo));
  } else if (v->is_number_integer()) {
    fits = v->get<int64_t>() >= lo && v->get<int64_t>() <= hi;
  }
  if (!fits) return Fail(key, fmt::format("must be an integer in [{}, {}]", lo, hi));
  *out = v->get<int64_t>();
  return true;
}

bool JsonFields::Int(const char* key, int lo, int hi, int* out) {
  int64_t value = 0;
  if (!Int(key, int64_t{lo}, int64_t{hi}, &value)) return false;
  *out = static_cast<int>(value);
  return true;
}

bool JsonFields::Uint(const char* key, uint64_t* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && v->is_number_unsigned(), "a non-negative integer")) return false;
  *out = v->get<uint64_t>();
  return true;
}

bool JsonFields::UintOrNull(const char* key, std::optional<uint64_t>* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && (v->is_number_unsigned() || v->is_null()),
            "a non-negative integer or null")) {
    return false;
  }
  *out = v->is_null() ? std::nullopt : std::optional(v->get<uint64_t>());
  return true;
}

bool JsonFields::IntOrNull(const char* key, std::optional<int64_t>* out) {
  const json* v = Find(key);
  if (v && v->is_null()) {
    *out = std::nullopt;
    return true;
  }
  read_.erase(key);  // Int reads it again
  int64_t value = 0;
  if (!Int(key, INT64_MIN, INT64_MAX, &value)) return false;
  *out = value;
  return true;
}

bool JsonFields::Number(const char* key, double* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && v->is_number(), "a number")) return false;
  *out = v->get<double>();
  return true;
}

bool JsonFields::NumberOrNull(const char* key, std::optional<double>* out) {
  const json* v = Find(key);
  if (!Type(key, v, v && (v->is_number() || v->is_null()), "a number or null")) return false;
  *out = v->is_null() ? std::nullopt : std::optional(v->get<double>());
  return true;
}

bool JsonFields::Strings(const char* key, size_t most, std::vector<std::string>* out) {
  const json* v = Array(key, most);
  if (v == nullptr) return false;
  out->clear();
  for (const json& item : *v) {
    if (!item.is_string()) return Fail(key, "must be a list of strings");
    out->push_back(item.get<std::string>());
  }
  return true;
}

const json* JsonFields::Object(const char* key, bool nullable) {
  const json* v = Find(key);
  const bool good = v && (v->is_object() || (nullable && v->is_null()));
  if (!Type(key, v, good, nullable ? "an object or null" : "an object")) return nullptr;
  return v->is_null() ? nullptr : v;
}

const json* JsonFields::Array(const char* key, size_t most) {
  const json* v = Find(key);
  if (!Type(key, v, v && v->is_array(), "a list")) return nullptr;
  if (v->size() > most) {
    Fail(key, fmt::format("has {} items, more than the {} workgate writes", v->size(), most));
    return nullptr;
  }
  return v;
}

const json* JsonFields::Any(const char* key) { return Find(key); }

bool JsonFields::Done() {
  if (!ok_) return false;
  for (const auto& item : j_.items()) {
    if (!read_.count(item.key())) return Fail(item.key(), "is not a field workgate writes");
  }
  return true;
}

std::string ItemPath(const std::string& where, size_t i) { return fmt::format("{}[{}]", where, i); }

}  // namespace workgate
