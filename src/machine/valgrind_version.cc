#include "machine/valgrind_version.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/sha256.h"

namespace workgate {
namespace {

// A line of the key: the file's path and what identifies its content.
std::string IdentityLine(const char* what, const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  auto ns = [](const timespec& t) {
    return static_cast<long long>(t.tv_sec) * 1000000000 + t.tv_nsec;
  };
  return fmt::format("{} {} {} {} {} {} {}\n", what, path,
                     static_cast<unsigned long long>(st.st_dev),
                     static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
                     ns(st.st_mtim), ns(st.st_ctim));
}

// A version as ReadValgrindVersion reads it ("valgrind-3.19.0"), one short
// word: nothing else is written or recalled.
bool IsVersion(const std::string& version) {
  if (version.rfind("valgrind-", 0) != 0 || version.size() > 100) return false;
  for (char c : version) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  }
  return true;
}

std::string MemoPath(const std::string& dir, const std::string& key) {
  return dir + "/valgrind-version-" + Sha256Hex(key).substr(0, 32);
}

constexpr char kHeader[] = "what `valgrind --version` printed, for these files (workgate)\n";

}  // namespace

std::string ValgrindToolDirectory(const std::string& launcher) {
  // The launcher takes VALGRIND_LIB as it is, a relative one from the
  // directory it runs in, which is not workgate's: unknown here.
  if (const char* lib = getenv("VALGRIND_LIB")) return *lib == '/' ? lib : "";
  const size_t slash = launcher.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string bin = launcher.substr(0, slash);
  const size_t up = bin.rfind('/');
  return up == std::string::npos ? "" : bin.substr(0, up) + "/libexec/valgrind";
}

std::string ValgrindVersionKey(const std::string& launcher, const std::string& tool_dir,
                               const std::string& platform) {
  if (tool_dir.empty() || platform.empty()) return "";
  const std::string launcher_line = IdentityLine("launcher", launcher);
  const std::string tool_line = IdentityLine("tool", tool_dir + "/memcheck-" + platform + "-linux");
  if (launcher_line.empty() || tool_line.empty()) return "";
  return launcher_line + tool_line;
}

std::optional<std::string> RecallValgrindVersion(const std::string& dir, const std::string& key) {
  if (dir.empty() || key.empty()) return std::nullopt;
  std::string text, err;
  if (!ReadRegularFile(MemoPath(dir, key), 4096, &text, &err)) return std::nullopt;
  const std::string head = kHeader + key + "version ";
  if (text.size() <= head.size() || text.compare(0, head.size(), head) != 0 ||
      text.back() != '\n') {
    return std::nullopt;
  }
  std::string version = text.substr(head.size(), text.size() - head.size() - 1);
  if (!IsVersion(version)) return std::nullopt;
  return version;
}

void RememberValgrindVersion(const std::string& dir, const std::string& key,
                             const std::string& version) {
  if (dir.empty() || key.empty() || !IsVersion(version)) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string ignored;
  WriteFileAtomically(MemoPath(dir, key), kHeader + key + "version " + version + "\n", &ignored);
}

Probed<std::string> RememberedValgrindVersion(const std::string& launcher, const std::string& dir,
                                              double timeout_seconds) {
  const std::string key =
      dir.empty()
          ? ""
          : ValgrindVersionKey(launcher, ValgrindToolDirectory(launcher), ValgrindPlatform());
  if (std::optional<std::string> known = RecallValgrindVersion(dir, key)) {
    return Probed<std::string>{std::move(known), ""};
  }
  Probed<std::string> read = ReadValgrindVersion(launcher, timeout_seconds);
  // Not where either file changed while it ran: the version may be the
  // old file's or the new one's.
  if (read.value && !key.empty() &&
      key == ValgrindVersionKey(launcher, ValgrindToolDirectory(launcher), ValgrindPlatform())) {
    RememberValgrindVersion(dir, key, *read.value);
  }
  return read;
}

}  // namespace workgate
