#pragma once
// Reading the small text files of /proc and /sys, keeping why a read failed:
// the probe reports that reason instead of a bare "unknown".

#include <cstddef>
#include <optional>
#include <string>

#include "util/input_file.h"

namespace workgate::probe_internal {

/// The most read of one /proc or /sys file; /proc/cpuinfo of a large
/// machine is a few hundred KiB.
inline constexpr size_t kMaxProcFileBytes = 16 << 20;

/// The whole content of `path`, or nullopt with `*why` set to
/// "cannot read <path>: <reason>" (ReadRegularFile's reason).
inline std::optional<std::string> ReadProcFile(const std::string& path, std::string* why) {
  std::string text, reason;
  if (ReadRegularFile(path, kMaxProcFileBytes, &text, &reason)) return text;
  *why = "cannot read " + path + ": " + reason;
  return std::nullopt;
}

/// `s` without leading and trailing whitespace (and NULs, which cpuid strings pad with).
inline std::string Trim(const std::string& s) {
  const char* kSpace = " \t\r\n\f\v";
  std::string t(s.c_str());  // stops at the first NUL
  size_t begin = t.find_first_not_of(kSpace);
  if (begin == std::string::npos) return "";
  size_t end = t.find_last_not_of(kSpace);
  return t.substr(begin, end - begin + 1);
}

}  // namespace workgate::probe_internal
