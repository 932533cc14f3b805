#include "explain/symbol_hints.h"

#include <linux/limits.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "explain/cost_math.h"
#include "explain/explain.h"
#include "identity/elf_symbols.h"
#include "model/model.h"

namespace workgate {
namespace {

// The self cost of code without a symbol, per object.
std::map<std::string, uint64_t> UnnamedCost(const Profile& profile) {
  std::map<std::string, uint64_t> out;
  for (const auto& [id, cost] : profile.self) {
    if (ShownFunction(id).name == kUnnamedCode) out[id.object] += cost;
  }
  return out;
}

// |candidate - baseline| >= |total| / 10, rounded up, and not 0.
bool Notable(uint64_t magnitude, uint64_t total_magnitude) {
  return magnitude != 0 && magnitude >= total_magnitude / 10 + (total_magnitude % 10 != 0);
}

// Paths a candidate cannot turn into a device, a pseudo-file with effects on
// read, or something other than the path it shows.
bool MayInspect(const std::string& path) {
  if (path.empty() || path[0] != '/' || path.size() >= PATH_MAX) return false;
  if (path.find('\0') != std::string::npos) return false;
  for (const char* pseudo : {"/proc/", "/sys/", "/dev/"}) {
    if (path.rfind(pseudo, 0) == 0) return false;
  }
  return true;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The file at `path` when it is an ELF file without a symbol table.
std::optional<StrippedFile> StrippedFileAt(const std::string& path, const std::string& side,
                                           const std::string& debug_root) {
  if (!MayInspect(path)) return std::nullopt;
  FileSource file;
  std::string err;
  ElfSymbolInfo info;
  if (!file.Open(path, &err) || !ReadElfSymbolInfo(file, &info, &err)) return std::nullopt;
  if (info.elf_class == 0 || info.has_symtab) return std::nullopt;
  StrippedFile out;
  out.path = path;
  out.side = side;
  out.build_id = info.build_id;
  out.debug_file = BuildIdDebugPath(debug_root, info.build_id);
  out.debug_file_exists = !out.debug_file.empty() && IsRegularFile(out.debug_file);
  return out;
}

// The first kMaxHintFilesPerSide paths of `object` on each side, each with
// the side or sides that load it.
std::map<std::string, std::string> PathsOf(const std::string& object, const Profile& baseline,
                                           const Profile& candidate) {
  std::map<std::string, std::string> sides;
  for (const auto& [profile, side] :
       {std::pair{&baseline, "baseline"}, std::pair{&candidate, "candidate"}}) {
    auto it = profile->object_paths.find(object);
    if (it == profile->object_paths.end()) continue;
    size_t n = 0;
    for (const std::string& path : it->second) {
      if (n++ == kMaxHintFilesPerSide) break;
      auto [entry, inserted] = sides.emplace(path, side);
      if (!inserted) entry->second = "both";
    }
  }
  return sides;
}

}  // namespace

std::vector<MissingSymbols> FindMissingSymbols(const Profile& baseline, const Profile& candidate,
                                               const std::string& debug_root) {
  if (baseline.total > kMaxCount || candidate.total > kMaxCount) return {};
  const uint64_t total = Distance(candidate.total, baseline.total);
  const std::map<std::string, uint64_t> base = UnnamedCost(baseline);
  const std::map<std::string, uint64_t> cand = UnnamedCost(candidate);
  // Each cost is at most its profile's total, so every delta fits in int64_t.
  std::vector<MissingSymbols> notable;
  auto consider = [&](const std::string& object) {
    auto b = base.find(object);
    auto c = cand.find(object);
    const uint64_t b_cost = b == base.end() ? 0 : b->second;
    const uint64_t c_cost = c == cand.end() ? 0 : c->second;
    if (!Notable(Distance(c_cost, b_cost), total)) return;
    MissingSymbols m;
    m.object = object;
    m.delta = static_cast<int64_t>(c_cost) - static_cast<int64_t>(b_cost);
    notable.push_back(std::move(m));
  };
  for (const auto& [object, cost] : base) consider(object);
  for (const auto& [object, cost] : cand) {
    if (base.count(object) == 0) consider(object);
  }
  auto magnitude = [](int64_t d) { return d < 0 ? -static_cast<uint64_t>(d) : d; };
  std::sort(notable.begin(), notable.end(), [&](const MissingSymbols& a, const MissingSymbols& b) {
    if (magnitude(a.delta) != magnitude(b.delta)) return magnitude(a.delta) > magnitude(b.delta);
    return a.object < b.object;
  });
  if (notable.size() > kMaxHintObjects) notable.resize(kMaxHintObjects);
  std::vector<MissingSymbols> out;
  for (MissingSymbols& m : notable) {
    for (const auto& [path, side] : PathsOf(m.object, baseline, candidate)) {
      if (auto file = StrippedFileAt(path, side, debug_root)) m.files.push_back(std::move(*file));
    }
    if (!m.files.empty()) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace workgate
