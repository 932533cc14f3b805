#pragma once
// Reading the small text files of /proc and /sys, keeping why a read failed:
// the probe reports that reason instead of a bare "unknown".

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace workgate::probe_internal {

/// The whole content of `path`, or nullopt with `*why` set to
/// "cannot read <path>: <strerror>".
inline std::optional<std::string> ReadProcFile(const std::string& path, std::string* why) {
  errno = 0;
  std::ifstream in(path);
  if (!in) {
    *why = "cannot read " + path + ": " + std::strerror(errno != 0 ? errno : ENOENT);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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
