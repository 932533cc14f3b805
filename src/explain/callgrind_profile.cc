#include "explain/callgrind_profile.h"

#include <cxxabi.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <set>

#include "explain/callgrind_parser.h"

namespace workgate {
namespace {

// Real mangled names stay far below this; the bound keeps the demangler's
// time and memory small on hostile input.
constexpr size_t kMaxDemangledInput = 4096;

bool ReadFile(const std::string& path, std::string* text, std::string* err) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    *err = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  // One read of the whole file into a buffer of its size; growing the
  // buffer piece by piece costs more than the parse on large files.
  struct stat st;
  size_t size = ::fstat(fileno(f.get()), &st) == 0 && st.st_size > 0 ? st.st_size : 0;
  text->assign(size, '\0');
  size_t got = size == 0 ? 0 : std::fread(text->data(), 1, size, f.get());
  text->resize(got);
  char buf[1 << 16];
  size_t n;
  // Files that grow or report no size (pipes, /proc) are read to the end.
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text->append(buf, n);
  if (std::ferror(f.get())) {
    *err = path + ": read error: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

std::string DisplayFunctionName(std::string_view raw) {
  // Callgrind appends "'N" for a recursion level (--separate-recs, on by
  // default) and "'caller'caller..." for contexts (--separate-callers), and
  // its own readers split names at the first quote as well.
  std::string name(raw.substr(0, raw.find('\'')));
  if (name.size() > 2 && name.size() <= kMaxDemangledInput && name.compare(0, 2, "_Z") == 0) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
    if (status == 0 && demangled) return demangled.get();
  }
  return name;
}

bool ParseCallgrind(std::string_view text, const std::string& source, Profile* profile,
                    std::string* err, const std::string& event) {
  callgrind::Parser parser(event);
  size_t line = 0;
  std::string message;
  if (!parser.Parse(text, &line, &message)) {
    *err = source + ":" + std::to_string(line) + ": " + message;
    return false;
  }
  if (!parser.AddTo(profile, &message)) {
    *err = source + ": " + message;
    return false;
  }
  return true;
}

bool ParseCallgrindStream(std::istream& in, const std::string& source, Profile* profile,
                          std::string* err, const std::string& event) {
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) {
    *err = source + ": read error";
    return false;
  }
  return ParseCallgrind(text, source, profile, err, event);
}

bool LoadCallgrindFile(const std::string& path, Profile* profile, std::string* err,
                       const std::string& event) {
  std::string text;
  if (!ReadFile(path, &text, err)) return false;
  return ParseCallgrind(text, path, profile, err, event);
}

bool LoadProfiles(const std::vector<std::string>& paths, Profile* profile, std::string* err,
                  const std::string& event) {
  if (paths.empty()) {
    *err = "no callgrind output files to load";
    return false;
  }
  std::set<std::string> seen;
  for (const std::string& path : paths) {
    if (!seen.insert(path).second) {
      *err = path + ": listed twice; its costs would be counted twice";
      return false;
    }
  }
  Profile sum;
  for (const std::string& path : paths) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && st.st_size == 0) {
      std::string prefix = path + "-";
      auto next = seen.upper_bound(prefix);
      if (next != seen.end() && next->compare(0, prefix.size(), prefix) == 0) continue;
    }
    if (!LoadCallgrindFile(path, &sum, err, event)) return false;
  }
  *profile = std::move(sum);
  return true;
}

}  // namespace workgate
