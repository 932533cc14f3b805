#include "explain/clone_names.h"

#include <utility>
#include <vector>

#include "explain/callgrind_profile.h"

namespace workgate {
namespace {

enum class Number { kNone, kRequired, kOptional };

struct Kind {
  std::string_view name;
  Number number;
  bool hex;  // the number may be hexadecimal (ThinLTO's hash)
};

// GCC names a clone NAME.KIND.N or NAME.KIND (cgraphclones.cc); LLVM
// NAME.KIND.N. See SplitCloneName's comment for what each kind is.
constexpr Kind kKinds[] = {
    {"constprop", Number::kRequired, false}, {"isra", Number::kRequired, false},
    {"part", Number::kRequired, false},      {"lto_priv", Number::kRequired, false},
    {"cold", Number::kOptional, false},      {"localalias", Number::kOptional, false},
    {"llvm", Number::kRequired, true},       {"specialized", Number::kRequired, false},
    {"__uniq", Number::kRequired, false},
};

bool IsNumber(std::string_view s, bool hex) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool digit = c >= '0' && c <= '9';
    const bool letter = (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!digit && !(hex && letter)) return false;
  }
  return true;
}

// Whether `body` is one clone suffix without its leading dot: "part.0",
// "cold", "llvm.123".
bool IsCloneSuffix(std::string_view body) {
  const size_t dot = body.find('.');
  const std::string_view kind = body.substr(0, dot);
  for (const Kind& k : kKinds) {
    if (kind != k.name) continue;
    if (dot == std::string_view::npos) return k.number != Number::kRequired;
    return k.number != Number::kNone && IsNumber(body.substr(dot + 1), k.hex);
  }
  return false;
}

// The length of the one clone suffix that ends `name` (".part.0", ".cold"),
// with a non-empty name before it; 0 when none does. Looks at the last one or
// two dotted parts only, so stripping a whole name takes linear time.
size_t PlainSuffixLength(std::string_view name) {
  const size_t last = name.rfind('.');
  if (last == std::string_view::npos || last == 0) return 0;
  if (IsCloneSuffix(name.substr(last + 1))) return name.size() - last;
  const size_t kind = name.rfind('.', last - 1);
  if (kind == std::string_view::npos || kind == 0) return 0;
  return IsCloneSuffix(name.substr(kind + 1)) ? name.size() - kind : 0;
}

// The length of the " [clone .X]" that ends `name`, X one clone suffix, with
// a non-empty name before it; 0 when none does.
size_t DemangledSuffixLength(std::string_view name) {
  constexpr std::string_view kOpen = " [clone .";
  if (name.empty() || name.back() != ']') return 0;
  const size_t open = name.rfind(kOpen);
  if (open == std::string_view::npos || open == 0) return 0;
  const std::string_view body =
      name.substr(open + kOpen.size(), name.size() - 1 - open - kOpen.size());
  return IsCloneSuffix(body) ? name.size() - open : 0;
}

}  // namespace

CloneName SplitCloneName(std::string_view name) {
  std::string_view base = name;
  // The demangler writes each suffix of a C++ clone as " [clone .X]".
  std::vector<std::string_view> brackets;  // the ".X" parts, last first
  while (size_t n = DemangledSuffixLength(base)) {
    const std::string_view bracket = base.substr(base.size() - n);
    const size_t dot = bracket.find('.');
    brackets.push_back(bracket.substr(dot, bracket.size() - 1 - dot));
    base.remove_suffix(n);
  }
  if (!brackets.empty()) {
    std::string suffix;
    for (auto it = brackets.rbegin(); it != brackets.rend(); ++it) suffix += *it;
    return {std::string(base), std::move(suffix)};
  }
  while (size_t n = PlainSuffixLength(base)) base.remove_suffix(n);
  // A dot left in the base means a name of another kind (a Go or Java
  // package path, a versioned symbol) that only ends like a clone.
  if (base.size() == name.size() || base.find('.') != std::string_view::npos) {
    return {std::string(name), ""};
  }
  std::string suffix(name.substr(base.size()));
  // A mangled name the demangler refused for its suffix reads now.
  if (base.size() > 2 && base.substr(0, 2) == "_Z") return {DisplayFunctionName(base), suffix};
  return {std::string(base), std::move(suffix)};
}

}  // namespace workgate
