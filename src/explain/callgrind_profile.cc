#include "explain/callgrind_profile.h"

#include <cxxabi.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <vector>

#include "explain/callgrind_parser.h"

namespace workgate {
namespace {

// Real mangled names stay far below this; the bound keeps the demangler's
// time and memory small on hostile input.
constexpr size_t kMaxDemangledInput = 4096;

// Large enough that a read costs little per byte, small enough to stay in
// cache while the parser walks it. Left uninitialised: zeroing a buffer
// this size for every profile (one per counted run) cost more than parsing
// a small profile, and after a fork each zeroed page was a copy-on-write
// fault with a TLB shootdown to the other jobs' threads.
constexpr size_t kChunkBytes = 64 << 10;

// Feeds `parser` all of `in`, then finishes it. `source` names the input.
bool ParseAll(std::istream& in, const std::string& source, callgrind::Parser* parser,
              std::string* err) {
  const std::unique_ptr<char[]> chunk(new char[kChunkBytes]);
  while (in) {
    in.read(chunk.get(), static_cast<std::streamsize>(kChunkBytes));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got > 0 && !parser->Feed(std::string_view(chunk.get(), got))) break;
  }
  if (in.bad()) {
    *err = source + ": read error: " + std::strerror(errno);
    return false;
  }
  if (!parser->Finish()) {
    size_t line = 0;
    std::string message;
    parser->Error(&line, &message);
    *err = source + ":" + std::to_string(line) + ": " + message;
    return false;
  }
  return true;
}

// Opens `path` for ParseAll; false with `*err` naming the path and why not.
bool Open(const std::string& path, std::ifstream* in, std::string* err) {
  errno = 0;
  in->open(path, std::ios::binary);
  if (in->is_open()) return true;
  *err = path + ": cannot open: " + std::strerror(errno != 0 ? errno : ENOENT);
  return false;
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
                    std::string* err, const std::string& event, const ProfileBounds& bounds) {
  callgrind::Parser parser(event, callgrind::Parser::Mode::kSelfCost, bounds);
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
                          std::string* err, const std::string& event, const ProfileBounds& bounds) {
  callgrind::Parser parser(event, callgrind::Parser::Mode::kSelfCost, bounds);
  if (!ParseAll(in, source, &parser, err)) return false;
  std::string message;
  if (!parser.AddTo(profile, &message)) {
    *err = source + ": " + message;
    return false;
  }
  return true;
}

bool LoadCallgrindFile(const std::string& path, Profile* profile, std::string* err,
                       const std::string& event, const ProfileBounds& bounds) {
  std::ifstream in;
  return Open(path, &in, err) && ParseCallgrindStream(in, path, profile, err, event, bounds);
}

bool ParseCallgrindTotal(std::istream& in, const std::string& source, uint64_t* total,
                         std::string* err, const std::string& event) {
  callgrind::Parser parser(event, callgrind::Parser::Mode::kTotal);
  if (!ParseAll(in, source, &parser, err)) return false;
  *total = parser.total();
  return true;
}

bool ParseCallgrindSimulatedTotals(std::istream& in, const std::string& source, uint64_t* total,
                                   SimulatedCosts* simulated, std::string* err) {
  callgrind::Parser parser("Ir", callgrind::Parser::Mode::kTotal);
  parser.TrackSimulated();
  if (!ParseAll(in, source, &parser, err)) return false;
  if (!parser.simulated_listed()) {
    *err = source + ": its events: line does not list the simulated events";
    return false;
  }
  *total = parser.total();
  *simulated = parser.simulated_total();
  return true;
}

namespace {

bool LoadAll(const std::vector<std::string>& paths, Profile* profile, std::string* err,
             const std::string& event, const ProfileBounds& bounds, bool simulated) {
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
  // One parser reads every file, so that the bounds hold for their sums.
  callgrind::Parser parser(event, callgrind::Parser::Mode::kSelfCost, bounds);
  if (simulated) parser.TrackSimulated();
  bool first = true;
  for (const std::string& path : paths) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && st.st_size == 0) {
      std::string prefix = path + "-";
      auto next = seen.upper_bound(prefix);
      if (next != seen.end() && next->compare(0, prefix.size(), prefix) == 0) continue;
    }
    if (!first) parser.StartFile();
    first = false;
    std::ifstream in;
    if (!Open(path, &in, err) || !ParseAll(in, path, &parser, err)) return false;
  }
  Profile sum;
  std::string message;
  if (!parser.AddTo(&sum, &message)) {
    *err = "the profile's files: " + message;
    return false;
  }
  *profile = std::move(sum);
  return true;
}

}  // namespace

bool LoadProfiles(const std::vector<std::string>& paths, Profile* profile, std::string* err,
                  const std::string& event, const ProfileBounds& bounds) {
  return LoadAll(paths, profile, err, event, bounds, false);
}

bool LoadSimulatedProfiles(const std::vector<std::string>& paths, Profile* profile,
                           std::string* err, const ProfileBounds& bounds) {
  return LoadAll(paths, profile, err, "Ir", bounds, true);
}

}  // namespace workgate
