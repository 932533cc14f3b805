#include "identity/count_key.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "identity/elf_file.h"
#include "identity/elf_symbols.h"
#include "model/backend.h"
#include "model/model_json.h"
#include "util/paths.h"
#include "util/sha256.h"

namespace workgate {

namespace {

// Bumped whenever the key's text changes meaning, so that no count cached
// under the old reading is ever found under the new one.
constexpr int kCountKeyVersion = 2;

// The x86 extensions that decide which guest CPU Valgrind's VEX presents
// (its hardware capabilities: SSE3, CX16, LZCNT, AVX, BMI, AVX2, RDTSCP,
// RDRAND, F16C, RDSEED) and those glibc's string functions dispatch on,
// by their /proc/cpuinfo names ("pni" is SSE3, "abm" LZCNT on AMD).
const std::set<std::string>& X86GuestFlags() {
  static const std::set<std::string> flags = {
      "pni",    "ssse3",  "sse4_1", "sse4_2",  "cx16", "abm",  "lzcnt", "popcnt",
      "avx",    "avx2",   "bmi1",   "bmi2",    "fma",  "f16c", "movbe", "rdtscp",
      "rdrand", "rdseed", "xsave",  "osxsave", "erms", "fsrm"};
  return flags;
}

// The value of `key` on the first processor's lines of `cpuinfo`
// ("flags\t\t: fpu vme ..."), "" when absent.
std::string FirstValue(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;  // the first processor's block ends here
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name != key) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

std::string CountKey(const Fingerprint& fp, const CountContext& context) {
  nlohmann::json j = FingerprintToJson(fp);
  // Valgrind's instruction stream does not depend on the CPU's model name,
  // only on the features its guest CPU takes from the host (guest_cpu).
  if (IsExactBackend(fp.backend)) j.erase("cpu_model");
  j["key_version"] = kCountKeyVersion;
  j["workgate_build"] = context.workgate_build;
  j["tool_build"] = context.tool_build;
  j["guest_cpu"] = context.guest_cpu;
  j["cwd"] = context.cwd;
  j["metric"] = context.metric;
  // nlohmann::json keeps an object's keys sorted: one text for one content.
  return Sha256Hex(j.dump());
}

std::string FileIdentity(const std::string& path, std::string* err) {
  FileSource file;
  ElfSymbolInfo info;
  std::string why;
  if (file.Open(path, &why) && ReadElfSymbolInfo(file, &info, &why) && !info.build_id.empty()) {
    return "build-id:" + info.build_id;
  }
  std::optional<std::string> sha = Sha256OfFile(path, err);
  return sha ? "sha256:" + *sha : "";
}

std::string GuestCpuFeatures(const std::string& cpuinfo) {
  const std::string vendor = FirstValue(cpuinfo, "vendor_id");
  std::vector<std::string> kept;
  if (!vendor.empty()) {
    for (const std::string& flag : Words(FirstValue(cpuinfo, "flags"))) {
      if (X86GuestFlags().count(flag) != 0) kept.push_back(flag);
    }
  } else {
    // arm64 and others: Valgrind passes the host's features through more
    // directly, so all of them count.
    kept = Words(FirstValue(cpuinfo, "Features"));
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  std::string out = vendor.empty() ? FirstValue(cpuinfo, "CPU implementer") : vendor;
  for (const std::string& flag : kept) out += " " + flag;
  return out;
}

std::string ReadGuestCpuFeatures() {
  std::optional<std::string> text = ReadFile("/proc/cpuinfo", 4 << 20);
  return text ? GuestCpuFeatures(*text) : "";
}

std::map<std::string, std::string> HistoryConditionParts(const Fingerprint& fp,
                                                         const std::string& build_dir) {
  std::map<std::string, std::string> parts;
  parts["backend"] = fp.backend;
  parts["event"] = fp.event;
  if (!fp.valgrind_version.empty()) {
    parts["valgrind"] = fp.valgrind_version + " at " + fp.valgrind_path;
  }
  parts["workgate"] = fp.workgate_version;
  if (!IsExactBackend(fp.backend)) parts["cpu"] = fp.cpu_model;
  parts["workload"] = fp.suite_sha256;
  parts["argv"] = Sha256Hex(nlohmann::json(fp.argv).dump());
  parts["environment"] = Sha256Hex(nlohmann::json(fp.env).dump());
  parts["loader cache"] = fp.ld_so_cache_sha256;
  // The build's own libraries change with the commit; the system's do not,
  // and a new C library moves every count.
  const std::string prefix =
      build_dir.empty() || build_dir.back() == '/' ? build_dir : build_dir + "/";
  nlohmann::json system = nlohmann::json::object();
  for (const auto& [path, sha] : fp.libraries) {
    if (prefix.empty() || path.rfind(prefix, 0) != 0) system[path] = sha;
  }
  parts["system libraries"] = Sha256Hex(system.dump());
  return parts;
}

std::string HistoryConditionsDigest(const std::map<std::string, std::string>& parts) {
  return Sha256Hex(nlohmann::json(parts).dump());
}

std::string BuildDirectoryOf(const std::string& exe) {
  const std::string real = RealPath(exe);
  if (real.empty()) return "";
  std::error_code ec;
  return std::filesystem::is_directory(real, ec)
             ? real
             : std::filesystem::path(real).parent_path().string();
}

HistoryRecord MakeHistoryRecord(const std::string& ref, const std::string& recorded_at,
                                const std::string& workload, const std::vector<uint64_t>& counts,
                                double max_work_added, const std::optional<std::string>& score,
                                const Fingerprint& fp, const std::string& build) {
  HistoryRecord r;
  r.ref = ref;
  r.recorded_at = recorded_at;
  r.workload = workload;
  r.backend = fp.backend;
  r.event = fp.event;
  r.counts = counts;
  r.max_work_added = max_work_added;
  r.score = score;
  r.condition_parts = HistoryConditionParts(fp, BuildDirectoryOf(build));
  r.conditions = HistoryConditionsDigest(r.condition_parts);
  return r;
}

std::vector<HistoryRecord> CandidateRecords(const CompareReport& report, const std::string& ref,
                                            const std::string& recorded_at,
                                            const std::string& candidate) {
  std::vector<HistoryRecord> records;
  for (const WorkloadResult& w : report.workloads) {
    const SideResult& side = w.candidate;
    if (side.counts.empty() || !side.error.empty()) continue;
    records.push_back(MakeHistoryRecord(ref, recorded_at, w.name, side.counts, w.max_work_added,
                                        side.score, side.fingerprint, candidate));
  }
  return records;
}

}  // namespace workgate
