#include "report/format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace workgate {
namespace {

std::string Grouped(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

uint64_t Magnitude(int64_t n) {
  // Negating INT64_MIN overflows; go through unsigned arithmetic instead.
  return n < 0 ? ~static_cast<uint64_t>(n) + 1 : static_cast<uint64_t>(n);
}

}  // namespace

const char* MinusSign(Minus minus) { return minus == Minus::kUnicode ? "\u2212" : "-"; }

std::string FormatCount(uint64_t n) { return Grouped(n); }

std::string FormatCount(int64_t n, Minus minus) {
  return (n < 0 ? std::string(MinusSign(minus)) : std::string()) + Grouped(Magnitude(n));
}

std::string FormatSignedCount(int64_t delta, Minus minus) {
  if (delta == 0) return "0";
  return (delta > 0 ? std::string("+") : std::string(MinusSign(minus))) + Grouped(Magnitude(delta));
}

std::string FormatPercent(double fraction, Minus minus) {
  if (fraction == 0 || !std::isfinite(fraction)) {
    return fraction == 0 ? "0.00%" : fmt::format("{}%", 100 * fraction);
  }
  const double pct = std::fabs(100 * fraction);
  std::string digits = fmt::format("{:.2f}", pct);
  if (digits == "0.00") {
    // Two significant digits: 0.0012 needs 4 decimals.
    int decimals = static_cast<int>(std::ceil(-std::log10(pct))) + 1;
    digits = fmt::format("{:.{}f}", pct, std::min(decimals, 12));
  }
  return (fraction > 0 ? std::string("+") : std::string(MinusSign(minus))) + digits + "%";
}

std::string ReadableUtc(const std::string& iso) {
  if (iso.size() == 20 && iso[10] == 'T' && iso[19] == 'Z') {
    return iso.substr(0, 10) + " " + iso.substr(11, 5) + " UTC";
  }
  return iso;
}

std::string FormatMargin(double fraction) { return fmt::format("{:.2f}%", 100 * fraction); }

std::string FormatShare(double fraction, Minus minus) {
  std::string digits = fmt::format("{:.1f}", std::fabs(100 * fraction));
  const bool negative = fraction < 0 && digits != "0.0";
  return (negative ? std::string(MinusSign(minus)) : std::string()) + digits + "%";
}

std::string FormatShortCount(int64_t n) {
  const double v = static_cast<double>(Magnitude(n));
  struct Unit {
    double scale;
    const char* suffix;
  };
  for (const Unit& u : {Unit{1e9, "G"}, Unit{1e6, "M"}, Unit{1e3, "k"}}) {
    if (v >= u.scale) {
      const double x = v / u.scale;
      // Three significant digits: 1.20 G, 37.4 M, 812 k.
      if (x >= 100) return fmt::format("{:.0f} {}", x, u.suffix);
      if (x >= 10) return fmt::format("{:.1f} {}", x, u.suffix);
      return fmt::format("{:.2f} {}", x, u.suffix);
    }
  }
  return fmt::format("{}", Magnitude(n));
}

std::string FormatSeconds(double seconds) {
  if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
  return fmt::format("{:.1f} ms", seconds * 1000);
}

std::string FormatScore(double score) { return fmt::format("{}", score); }

std::string FormatRatio(double ratio) { return fmt::format("{:.3f}", ratio); }

std::string FormatLevel(double fraction) {
  std::string text = fmt::format("{:.1f}", 100 * fraction);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text + "%";
}

std::string FormatPValue(double p) {
  if (p < 0.001) return "<0.001";
  return fmt::format("{:.2g}", p);
}

std::string FormatSignedSeconds(double seconds, Minus minus) {
  const std::string magnitude = FormatSeconds(std::fabs(seconds));
  if (seconds == 0) return magnitude;
  return (seconds > 0 ? "+" : MinusSign(minus)) + magnitude;
}

size_t DisplayWidth(std::string_view s) {
  size_t width = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++width;  // count lead bytes, skip continuations
  }
  return width;
}

std::string PadRight(std::string_view s, size_t width) {
  const size_t w = DisplayWidth(s);
  return std::string(s) + std::string(w < width ? width - w : 0, ' ');
}

std::string PadLeft(std::string_view s, size_t width) {
  const size_t w = DisplayWidth(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

std::string Paint(const std::string& text, std::string_view sgr, bool colour) {
  if (!colour || sgr.empty()) return text;
  return "\033[" + std::string(sgr) + "m" + text + "\033[0m";
}

}  // namespace workgate
