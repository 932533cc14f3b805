#include "identity/fingerprint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <cerrno>

#include "identity/shared_libraries.h"
#include "model/backend.h"
#include "util/sha256.h"

namespace workgate {

namespace {

std::string Quoted(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (const std::string& s : v) q.push_back("'" + s + "'");
  return fmt::format("[{}]", fmt::join(q, " "));
}

// Names the environment variables that differ, not the whole maps.
std::string EnvDifference(const std::map<std::string, std::string>& a,
                          const std::map<std::string, std::string>& b) {
  std::vector<std::string> names;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || it->second != v) names.push_back(k);
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k)) names.push_back(k);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string OrNone(const std::string& s) { return s.empty() ? "(none)" : s; }

}  // namespace

std::optional<std::string> CompatibilityProblem(const Fingerprint& baseline,
                                                const Fingerprint& candidate) {
  std::vector<std::string> problems;
  auto check = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b) {
      problems.push_back(
          fmt::format("{} differs (baseline {}, candidate {})", what, OrNone(a), OrNone(b)));
    }
  };
  check("counting backend", baseline.backend, candidate.backend);
  check("event", baseline.event, candidate.event);
  check("Valgrind version", baseline.valgrind_version, candidate.valgrind_version);
  // Another file calling itself the same version may count otherwise (a
  // wrapper, a local build, a fake first on PATH).
  check("Valgrind path", baseline.valgrind_path, candidate.valgrind_path);
  if (IsBackend(baseline.backend, Backend::kPerf) || IsBackend(candidate.backend, Backend::kPerf)) {
    check("CPU model", baseline.cpu_model, candidate.cpu_model);
  }
  check("workgate version", baseline.workgate_version, candidate.workgate_version);
  if (baseline.suite_sha256 != candidate.suite_sha256) {
    problems.push_back("the workload's definition differs (suite digest " +
                       OrNone(baseline.suite_sha256.substr(0, 12)) + " vs " +
                       OrNone(candidate.suite_sha256.substr(0, 12)) + ")");
  }
  if (baseline.argv != candidate.argv) {
    problems.push_back(fmt::format("argv differs (baseline {}, candidate {})",
                                   Quoted(baseline.argv), Quoted(candidate.argv)));
  }
  if (baseline.env != candidate.env) {
    problems.push_back("environment differs in " + EnvDifference(baseline.env, candidate.env));
  }
  if (baseline.ld_so_cache_sha256 != candidate.ld_so_cache_sha256) {
    problems.push_back(
        "the dynamic loader cache (/etc/ld.so.cache) differs: the system's libraries changed "
        "between the two counts");
  }
  if (problems.empty()) return std::nullopt;
  return fmt::format("{}", fmt::join(problems, "; "));
}

bool SharedLibrariesOf(const std::string& exe, const std::map<std::string, std::string>& env,
                       std::map<std::string, std::string>* libraries, std::string* err) {
  libraries->clear();
  std::vector<LoadedObject> objects;
  if (!ResolveSharedLibraries(exe, LoaderInputsOf(env), &objects, err)) return false;
  for (const LoadedObject& object : objects) {
    if (object.path.empty()) {
      (*libraries)[object.name] = "not found";
      continue;
    }
    std::optional<std::string> digest = Sha256OfFile(object.path, err);
    if (!digest) {
      libraries->clear();
      return false;
    }
    (*libraries)[object.path] = *digest;
  }
  return true;
}

bool SharedLibrariesOf(const std::string& exe, std::map<std::string, std::string>* libraries,
                       std::string* err) {
  return SharedLibrariesOf(exe, {}, libraries, err);
}

std::optional<std::string> LdSoCacheSha256(const std::string& path, std::string* err) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT) return "";
  return Sha256OfFile(path, err);
}

std::optional<std::string> LdSoCacheSha256(std::string* err) {
  return LdSoCacheSha256("/etc/ld.so.cache", err);
}

}  // namespace workgate
