#pragma once
// Number formatting shared by the terminal and Markdown renderers, so the two
// show every figure the same way.

#include <cstdint>
#include <string>
#include <string_view>

namespace workgate {

/// How a negative number is written: ASCII hyphen-minus for terminals (it
/// survives copy and paste into a shell or a calculator), U+2212 MINUS SIGN for
/// Markdown, where it is typographically right and aligns with "+".
enum class Minus { kAscii, kUnicode };

/// The minus sign for `minus`.
const char* MinusSign(Minus minus);

/// Thousands separators, no plus sign: 1204331907 -> "1,204,331,907",
/// -1437098 -> "−1,437,098".
std::string FormatCount(int64_t n, Minus minus);
std::string FormatCount(uint64_t n);

/// A signed difference: "+37,358,308", "−1,437,098", "0".
std::string FormatSignedCount(int64_t delta, Minus minus);

/// A signed relative change given as a fraction: 0.031 -> "+3.10%",
/// -0.0016 -> "−0.16%", 0 -> "0.00%". A non-zero change too small for two
/// decimals keeps two significant digits ("+0.0012%") so it never reads as 0.
std::string FormatPercent(double fraction, Minus minus);

/// A time as workgate stores it, "2026-12-01T03:04:05Z", as people read it:
/// "2026-12-01 03:04 UTC"; text of any other form comes back as it is.
std::string ReadableUtc(const std::string& iso);

/// An unsigned margin given as a fraction: 0.01 -> "1.00%".
std::string FormatMargin(double fraction);

/// A share of a whole, one decimal: 0.835 -> "83.5%", -0.052 -> "−5.2%".
std::string FormatShare(double fraction, Minus minus);

/// The magnitude of a count in short form: 37358308 -> "37.4 M",
/// 812345 -> "812 k", 950 -> "950", 1.2e9 -> "1.20 G" (three significant digits).
std::string FormatShortCount(int64_t n);

/// Wall time: "1.84 s" at or above one second, "12.3 ms" below.
std::string FormatSeconds(double seconds);

/// A score as the program printed it: the shortest text that reads back to
/// the same double ("10", "1843.25").
std::string FormatScore(double score);

/// `text` in the SGR colour `sgr` ("1;31") for a terminal, reset after it;
/// `text` as it is without `colour` or without a colour ("").
std::string Paint(const std::string& text, std::string_view sgr, bool colour);

/// A ratio with three decimals: "1.038".
std::string FormatRatio(double ratio);

/// A confidence level given as a fraction, one decimal where it has one:
/// 0.95 -> "95%", 0.9375 -> "93.8%", 0.98333 -> "98.3%".
std::string FormatLevel(double fraction);

/// A p-value with two significant digits ("0.031", "0.5", "1"), or "<0.001".
std::string FormatPValue(double p);

/// A signed wall time: "+190.0 ms", "−1.25 s", "0.0 ms".
std::string FormatSignedSeconds(double seconds, Minus minus);

/// Columns `s` takes on a terminal: its UTF-8 code points (every character the
/// renderers emit is one column wide).
size_t DisplayWidth(std::string_view s);

/// `s` padded with spaces to `width` columns, on the right (left-aligned) or
/// on the left (right-aligned).
std::string PadRight(std::string_view s, size_t width);
std::string PadLeft(std::string_view s, size_t width);

}  // namespace workgate
