#include "workload/score.h"

#include <fmt/format.h>

#include <cstdlib>
#include <regex>

namespace workgate {

namespace {

// "-0012.3400" -> "-12.34"; nullopt when the text is not a plain decimal.
std::optional<std::string> NormaliseDecimal(const std::string& text) {
  static const std::regex decimal(R"(^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, decimal)) return std::nullopt;
  std::string sign = m[1].str(), whole = m[2].str(), frac = m[3].str();
  if (whole.empty() && frac.empty()) return std::nullopt;
  whole.erase(0, whole.find_first_not_of('0'));
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (whole.empty()) whole = "0";
  if (sign == "+" || (whole == "0" && frac.empty())) sign.clear();
  return sign + whole + (frac.empty() ? "" : "." + frac);
}

}  // namespace

bool CheckScorePattern(const std::string& pattern, std::string* err) {
  try {
    std::regex re(pattern);
    if (re.mark_count() != 1) {
      *err = fmt::format("the pattern must have exactly one capture group, it has {}",
                         re.mark_count());
      return false;
    }
  } catch (const std::regex_error& e) {
    *err = fmt::format("not a valid regular expression: {}", e.what());
    return false;
  }
  return true;
}

std::optional<std::string> ExtractScore(const std::string& pattern, const std::string& output) {
  std::regex re(pattern);
  std::optional<std::string> last;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), re);
       it != std::sregex_iterator(); ++it) {
    last = (*it)[1].str();
  }
  return last;
}

bool ScoresEqual(const std::string& a, const std::string& b) {
  auto na = NormaliseDecimal(a), nb = NormaliseDecimal(b);
  if (na && nb) return *na == *nb;
  return a == b;
}

std::optional<double> ScoreValue(const std::string& score) {
  if (!NormaliseDecimal(score)) return std::nullopt;
  return std::strtod(score.c_str(), nullptr);
}

}  // namespace workgate
