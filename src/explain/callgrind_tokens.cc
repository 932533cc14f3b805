#include "explain/callgrind_tokens.h"

namespace workgate::callgrind {

bool ParseNumber(std::string_view token, uint64_t* value) {
  const char* p = token.data();
  const char* end = p + token.size();
  return ScanNumber(&p, end, value) && p == end;
}

bool IsSubposition(std::string_view token) {
  if (token == "*") return true;
  if (!token.empty() && (token[0] == '+' || token[0] == '-')) token.remove_prefix(1);
  uint64_t ignored;
  return ParseNumber(token, &ignored);
}

bool NextToken(std::string_view* rest, std::string_view* token) {
  size_t begin = 0;
  while (begin < rest->size() && IsBlank((*rest)[begin])) ++begin;
  if (begin == rest->size()) {
    *rest = {};
    return false;
  }
  size_t end = begin;
  while (end < rest->size() && !IsBlank((*rest)[end])) ++end;
  *token = rest->substr(begin, end - begin);
  rest->remove_prefix(end);
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

bool ParseNameSpec(std::string_view value, NameSpec* spec, std::string* err) {
  value = Trim(value);
  *spec = NameSpec{};
  if (value.size() >= 2 && value[0] == '(' && IsDigit(value[1])) {
    size_t close = value.find(')');
    if (close == std::string_view::npos) {
      *err = "compressed name '" + Excerpt(value) + "' has no closing ')'";
      return false;
    }
    if (!ParseNumber(value.substr(1, close - 1), &spec->id)) {
      *err = "compressed name id '" + Excerpt(value.substr(0, close + 1)) +
             "' is not a number below 2^64";
      return false;
    }
    std::string_view rest = value.substr(close + 1);
    if (!rest.empty() && !IsBlank(rest[0])) {
      *err = "compressed name '" + Excerpt(value) + "' needs a space after ')'";
      return false;
    }
    spec->has_id = true;
    spec->name = Trim(rest);
    return true;
  }
  if (value.empty()) {
    *err = "empty name";
    return false;
  }
  spec->name = value;
  return true;
}

std::string Excerpt(std::string_view line) {
  constexpr size_t kMax = 60;
  std::string out;
  for (size_t i = 0; i < line.size() && i < kMax; ++i) {
    char c = line[i];
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (line.size() > kMax) out += "...";
  return out;
}

}  // namespace workgate::callgrind
