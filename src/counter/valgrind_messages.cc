#include "counter/valgrind_messages.h"

#include <fmt/format.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <sstream>

namespace workgate {

namespace {

// "==123== text", "--123-- text" and "**123** text" (Valgrind's prefixes for
// user messages, debug messages and errors) become "text"; other lines stay.
std::string WithoutPrefix(const std::string& line) {
  if (line.size() < 5) return line;
  const char mark = line[0];
  if ((mark != '=' && mark != '-' && mark != '*') || line[1] != mark) return line;
  size_t i = 2;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == 2 || i + 1 >= line.size() || line[i] != mark || line[i + 1] != mark) return line;
  i += 2;
  if (i < line.size() && line[i] == ' ') ++i;
  return line.substr(i);
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The forms Valgrind 3.19 gives its own failures: VG_(fmsg) prefixes
// "valgrind: "; the assertion reports of m_libcassert.c and VEX print "the
// 'impossible' happened" or "vex: "; m_mallocfree.c and VG_(mkstemp) name
// themselves.
bool IsValgrindError(const std::string& text) {
  return StartsWith(text, "valgrind: ") || StartsWith(text, "Valgrind: ") ||
         StartsWith(text, "vex: ") || StartsWith(text, "VG_(mkstemp): ") ||
         Contains(text, "FATAL") || Contains(text, "Fatal error") ||
         Contains(text, "the 'impossible' happened") ||
         Contains(text, "the `impossible' happened") ||
         Contains(text, "Valgrind's memory management: out of memory");
}

std::string Trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

std::vector<std::string> ValgrindErrorsIn(const std::string& log, size_t max_lines) {
  constexpr size_t kMaxLine = 300;
  std::vector<std::string> errors;
  std::istringstream in(log);
  std::string line;
  while (errors.size() < max_lines && std::getline(in, line)) {
    std::string text = Trimmed(WithoutPrefix(line));
    if (!IsValgrindError(text)) continue;
    if (text.size() > kMaxLine) text = text.substr(0, kMaxLine) + "...";
    if (std::find(errors.begin(), errors.end(), text) == errors.end()) errors.push_back(text);
  }
  return errors;
}

std::vector<std::string> UntracedExecutablesIn(const std::string& log) {
  constexpr const char* kWarning = "Warning: Can't execute setuid/setgid/setcap executable: ";
  constexpr size_t kMaxLine = 300;
  std::vector<std::string> programs;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const std::string text = WithoutPrefix(line);
    if (text == line || !StartsWith(text, kWarning)) continue;
    std::string path = Trimmed(text.substr(std::strlen(kWarning)));
    if (path.size() > kMaxLine) path = path.substr(0, kMaxLine) + "...";
    if (std::find(programs.begin(), programs.end(), path) == programs.end()) {
      programs.push_back(path);
    }
  }
  return programs;
}

std::string UndecodedInstructionAdvice(const std::string& log, const std::string& tool) {
  constexpr const char* kUnhandled = "unhandled instruction bytes: ";
  const size_t at = log.find(kUnhandled);
  if (at == std::string::npos) return "";
  size_t end = log.find('\n', at);
  if (end == std::string::npos) end = log.size();
  std::string bytes = Trimmed(log.substr(
      at + std::strlen(kUnhandled), std::min<size_t>(end - at, 120) - std::strlen(kUnhandled)));
  // What a program's bytes may hold is shown as hex digits only.
  bytes.erase(std::remove_if(bytes.begin(), bytes.end(),
                             [](char c) {
                               return !std::isxdigit(static_cast<unsigned char>(c)) && c != ' ' &&
                                      c != 'x';
                             }),
              bytes.end());
  if (StartsWith(bytes, "0xF 0x1 0xF9")) {
    if (tool == "vgcount") {
      return "; the program executes RDTSCP without asking CPUID (vgcount hides RDTSCP from "
             "CPUID), and Valgrind decodes RDTSCP only where this machine's CPU has it";
    }
    return fmt::format(
        "; the program executes RDTSCP (Go's runtime does wherever CPUID offers it), which "
        "Valgrind decodes only where this machine's CPU has it: {} cannot count it here; "
        "--backend vgcount can, since it hides RDTSCP from the program's CPUID",
        tool);
  }
  return fmt::format(
      "; Valgrind cannot decode an instruction of the program (bytes {}): no Valgrind backend "
      "can count it on this machine; --backend perf can where the machine has a PMU",
      bytes);
}

std::optional<long long> ParentPidInBanner(std::istream& log) {
  // The banner is a handful of lines; the command line in it can be as long
  // as the program's arguments.
  constexpr int kMaxBannerLines = 16;
  constexpr const char* kParent = "Parent PID: ";
  std::string line;
  for (int i = 0; i < kMaxBannerLines && std::getline(log, line); ++i) {
    const std::string text = WithoutPrefix(line);
    if (text == line || Trimmed(text).empty()) break;  // not Valgrind's, or the banner's end
    if (!StartsWith(text, kParent)) continue;
    const std::string digits = Trimmed(text.substr(std::strlen(kParent)));
    long long pid = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (ec != std::errc() || end != digits.data() + digits.size() || pid < 0) return std::nullopt;
    return pid;
  }
  return std::nullopt;
}

std::string FullFileSystem(const std::string& dir) {
  struct statvfs fs;
  if (statvfs(dir.c_str(), &fs) != 0) return "";
  // Root may write into the blocks reserved for it (f_bfree); others only
  // into f_bavail. 64 KiB: less than that left after a failed count means
  // the last write found the disk full (Valgrind writes in small buffers).
  const unsigned long long blocks = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
  const unsigned long long left = blocks * fs.f_frsize;
  if (left < 64 * 1024) {
    return fmt::format("the file system holding {} is full ({} KiB left)", dir, left / 1024);
  }
  const unsigned long long inodes = geteuid() == 0 ? fs.f_ffree : fs.f_favail;
  if (fs.f_files > 0 && inodes == 0) {
    return fmt::format("the file system holding {} has no free inodes left", dir);
  }
  return "";
}

}  // namespace workgate
