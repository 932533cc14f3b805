#include "counter/valgrind_messages.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "counter/undecoded_instruction.h"
#include "model/backend.h"
#include "util/text.h"

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

// A tool's failed assertion, as m_libcassert.c prints it, without a prefix:
// "Callgrind: threads.c:247 (vgCallgrind_post_signal): Assertion 'sigNum ==
// vgCallgrind_current_state.sig' failed."
bool IsToolAssertion(const std::string& text) {
  return Contains(text, "): Assertion '") && text.size() > 8 &&
         text.compare(text.size() - 8, 8, " failed.") == 0;
}

// The forms Valgrind 3.19 to 3.24 give their own failures: VG_(fmsg)
// prefixes "valgrind: "; the assertion reports of m_libcassert.c and VEX
// print "the 'impossible' happened", "vex: " or a tool's failed assertion;
// m_mallocfree.c and VG_(mkstemp) name themselves.
bool IsValgrindError(const std::string& text) {
  return StartsWith(text, "valgrind: ") || StartsWith(text, "Valgrind: ") ||
         IsToolAssertion(text) || StartsWith(text, "vex: ") || StartsWith(text, "VG_(mkstemp): ") ||
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

// A failed assertion's report gives its reason on the lines after the one
// that ends in a colon: "valgrind: the 'impossible' happened:", then
// "   Max number of threads is too low", then a blank line and the host's
// stack trace. Those lines, up to the blank one, are the reason.
bool ReasonFollows(const std::string& text) {
  return !text.empty() && text.back() == ':' &&
         (Contains(text, "the 'impossible' happened") ||
          Contains(text, "the `impossible' happened") || StartsWith(text, "vex: "));
}

}  // namespace

std::vector<std::string> ValgrindErrorsIn(const std::string& log, size_t max_lines) {
  constexpr size_t kMaxLine = 300;
  constexpr int kMaxReasonLines = 4;
  std::vector<std::string> errors;
  std::istringstream in(log);
  std::string line;
  while (errors.size() < max_lines && std::getline(in, line)) {
    std::string text = Trimmed(WithoutPrefix(line));
    if (!IsValgrindError(text)) continue;
    if (ReasonFollows(text)) {
      for (int i = 0; i < kMaxReasonLines && text.size() <= kMaxLine && std::getline(in, line);
           ++i) {
        const std::string reason = Trimmed(WithoutPrefix(line));
        if (reason.empty() || reason == "host stacktrace:") break;
        text += " " + reason;
      }
    }
    // Valgrind's text names the program (its path, its arguments): one line,
    // no escape sequence.
    text = TerminalSafe(text, LineBreaks::kToSpace);
    if (text.size() > kMaxLine) text = ValidUtf8(text.substr(0, kMaxLine)) + "...";
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
    if (IsBackend(tool, Backend::kVgcount)) {
      return "; the program executes RDTSCP without asking CPUID (vgcount hides RDTSCP from "
             "CPUID), and Valgrind decodes RDTSCP only where this machine's CPU has it";
    }
    return fmt::format(
        "; the program executes RDTSCP (Go's runtime does wherever CPUID offers it), which "
        "Valgrind decodes only where this machine's CPU has it: {} cannot count it here; "
        "--backend vgcount can, since it hides RDTSCP from the program's CPUID",
        tool);
  }
  const InstructionSet set = InstructionSetOf(UndecodedAmd64Bytes(log));
  if (!set.name.empty()) {
    // "an AVX-512", "an XOP", "a SHA", "a GFNI".
    const char* article = set.name[0] == 'A' || set.name[0] == 'X' ? "an" : "a";
    return fmt::format(
        "; Valgrind cannot decode an instruction of the program (bytes {}): it is {} {} "
        "instruction ({}-encoded), which this Valgrind does not implement, so no Valgrind "
        "backend can count this build; a build made with -march=native uses {} wherever the "
        "machine that builds it has it: for counting, build without -march=native (or add {}); "
        "--backend perf counts the build as it is where the machine has a PMU",
        bytes, article, set.name, set.encoding, set.name, set.gcc_flag);
  }
  return fmt::format(
      "; Valgrind cannot decode an instruction of the program (bytes {}; its instruction set is "
      "unknown{}): no Valgrind backend can count it on this machine; if the build uses "
      "-march=native, a build without it may avoid the instruction; --backend perf can count "
      "it where the machine has a PMU",
      bytes, set.encoding.empty() ? "" : ", " + set.encoding + "-encoded");
}

std::string ToolFailureAdvice(const std::string& log, const std::string& tool) {
  // callgrind/threads.c keeps one saved state per signal being handled and
  // asserts that signals return in the order they came; a handler
  // interrupted by another signal that returns through a different path
  // breaks that. Go's runtime does it: it preempts goroutines with SIGURG,
  // which arrives inside its other handlers, more often the busier the
  // machine. Measured on Valgrind 3.24: 2 runs of 3 of a Go program under
  // load.
  if (IsBackend(tool, Backend::kCallgrind) &&
      Contains(log, "(vgCallgrind_post_signal): Assertion '")) {
    return "; callgrind's own signal tracking failed (a signal handler interrupted by another "
           "signal, as Go's runtime preempts its goroutines with SIGURG): callgrind cannot count "
           "this program reliably; --backend vgcount keeps a collect state per handler and can";
  }
  return UndecodedInstructionAdvice(log, tool);
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

SpaceLeft SpaceOn(const std::string& dir) {
  SpaceLeft space;
  struct statvfs fs;
  struct stat st;
  if (statvfs(dir.c_str(), &fs) != 0 || stat(dir.c_str(), &st) != 0) return space;
  space.known = true;
  space.device = st.st_dev;
  space.bytes = static_cast<uint64_t>(geteuid() == 0 ? fs.f_bfree : fs.f_bavail) * fs.f_frsize;
  space.inodes = geteuid() == 0 ? fs.f_ffree : fs.f_favail;
  return space;
}

TreeUsage UsageOf(const std::string& dir, uint64_t max_entries) {
  namespace fs = std::filesystem;
  TreeUsage usage;
  std::set<std::pair<dev_t, ino_t>> seen;  // a hard link takes no room twice
  const auto add = [&](const fs::path& path) {
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second) return;
    usage.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    ++usage.inodes;
  };
  add(dir);
  // Links are not followed: the workload's `exe` link points at a build.
  std::error_code ec;
  uint64_t looked_at = 0;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end && looked_at < max_entries; it.increment(ec), ++looked_at) {
    add(it->path());
  }
  return usage;
}

std::string FilledByWorkload(const SpaceLeft& before, const SpaceLeft& now,
                             const std::string& workload_dir, uint64_t workload_device,
                             const TreeUsage& used) {
  constexpr uint64_t kRoomBytes = 1 << 20;
  constexpr uint64_t kRoomInodes = 1000;
  if (!before.known || !now.known || workload_dir.empty() || now.device != workload_device) {
    return "";
  }
  // Only what ran out counts: a disk full of bytes whose workload made
  // three files did not run out of inodes because of them.
  constexpr uint64_t kFullBytes = 64 * 1024;  // as FullFileSystem
  const bool bytes = now.bytes < kFullBytes && before.bytes >= kRoomBytes &&
                     used.bytes >= (before.bytes - now.bytes) / 2;
  const bool inodes =
      now.inodes == 0 && before.inodes >= kRoomInodes && used.inodes >= before.inodes / 2;
  if (bytes) {
    return fmt::format(
        "the workload filled the file system its own directory {} is on: it wrote {} KiB "
        "there, of the {} KiB that were free when it started, so Valgrind could not write its "
        "files",
        workload_dir, used.bytes / 1024, before.bytes / 1024);
  }
  if (inodes) {
    return fmt::format(
        "the workload used up the inodes of the file system its own directory {} is on: it made "
        "{} files there, of the {} that were free when it started, so Valgrind could not write "
        "its files",
        workload_dir, used.inodes, before.inodes);
  }
  return "";
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
