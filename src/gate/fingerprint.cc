#include "gate/fingerprint.h"

#include <elf.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/io.hpp>
#include <boost/process/pipe.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "util/sha256.h"

namespace workgate {
namespace bp = boost::process;

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

std::string Shown(const std::string& s) { return s.empty() ? "(none)" : s; }

template <typename Ehdr, typename Phdr>
std::optional<std::string> InterpreterOf(std::ifstream& in, const std::string& path,
                                         std::string* err) {
  Ehdr eh;
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return "";  // truncated: not ELF
  if (eh.e_phentsize != sizeof(Phdr)) return "";
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Phdr ph;
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) {
      *err = path + ": truncated ELF program headers";
      return std::nullopt;
    }
    if (ph.p_type != PT_INTERP) continue;
    if (ph.p_filesz == 0 || ph.p_filesz > 4096) return "";
    std::string interp(ph.p_filesz, '\0');
    in.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!in.read(interp.data(), static_cast<std::streamsize>(interp.size()))) {
      *err = path + ": truncated ELF interpreter name";
      return std::nullopt;
    }
    return std::string(interp.c_str());  // drop the terminating NUL
  }
  return "";
}

}  // namespace

std::optional<std::string> CompatibilityProblem(const Fingerprint& baseline,
                                                const Fingerprint& candidate) {
  std::vector<std::string> problems;
  auto check = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b) {
      problems.push_back(
          fmt::format("{} differs (baseline {}, candidate {})", what, Shown(a), Shown(b)));
    }
  };
  check("counting backend", baseline.backend, candidate.backend);
  check("event", baseline.event, candidate.event);
  check("Valgrind version", baseline.valgrind_version, candidate.valgrind_version);
  // Another file calling itself the same version may count otherwise (a
  // wrapper, a local build, a fake first on PATH).
  check("Valgrind path", baseline.valgrind_path, candidate.valgrind_path);
  if (baseline.backend == "perf" || candidate.backend == "perf") {
    check("CPU model", baseline.cpu_model, candidate.cpu_model);
  }
  check("workgate version", baseline.workgate_version, candidate.workgate_version);
  if (baseline.suite_sha256 != candidate.suite_sha256) {
    problems.push_back("the workload's definition differs (suite digest " +
                       Shown(baseline.suite_sha256.substr(0, 12)) + " vs " +
                       Shown(candidate.suite_sha256.substr(0, 12)) + ")");
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

std::vector<std::pair<std::string, std::string>> ParseLoadedObjects(const std::string& trace) {
  std::vector<std::pair<std::string, std::string>> objects;
  std::istringstream lines(trace);
  std::string line;
  while (std::getline(lines, line)) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    line = line.substr(b);
    // Strip the load address "(0x...)" at the end, if any.
    size_t paren = line.rfind(" (0x");
    if (paren != std::string::npos) line.erase(paren);
    size_t arrow = line.find(" => ");
    if (arrow != std::string::npos) {
      std::string name = line.substr(0, arrow);
      std::string target = line.substr(arrow + 4);
      if (target == "not found") target.clear();
      if (!target.empty() && target[0] != '/') continue;  // not a file
      objects.emplace_back(name, target);
    } else if (line[0] == '/') {
      objects.emplace_back(line, line);  // the loader itself
    }
    // Anything else (linux-vdso.so.1, "statically linked") has no file.
  }
  return objects;
}

std::optional<std::string> ElfInterpreter(const std::string& path, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  unsigned char ident[EI_NIDENT] = {};
  if (!in.read(reinterpret_cast<char*>(ident), EI_NIDENT)) return "";
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return "";
  const unsigned char host_order =
      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ? ELFDATA2LSB : ELFDATA2MSB;
  if (ident[EI_DATA] != host_order) return "";  // another machine's binary: not run here
  if (ident[EI_CLASS] == ELFCLASS64) return InterpreterOf<Elf64_Ehdr, Elf64_Phdr>(in, path, err);
  if (ident[EI_CLASS] == ELFCLASS32) return InterpreterOf<Elf32_Ehdr, Elf32_Phdr>(in, path, err);
  return "";
}

bool SharedLibrariesOf(const std::string& exe, const std::map<std::string, std::string>& env,
                       std::map<std::string, std::string>* libraries, std::string* err) {
  libraries->clear();
  std::optional<std::string> interp = ElfInterpreter(exe, err);
  if (!interp) return false;
  if (interp->empty()) return true;  // static or not ELF: the loader is not involved

  bp::environment trace_env;
  for (const auto& [k, v] : env) trace_env[k] = v;
  trace_env["LD_TRACE_LOADED_OBJECTS"] = "1";
  std::string output;
  try {
    bp::ipstream out;
    bp::child child(bp::exe = exe, bp::env = trace_env, bp::std_in<bp::null, bp::std_out> out,
                    bp::std_err > bp::null);
    // Read on another thread so a chatty child cannot block on a full pipe
    // while this one waits for the deadline.
    std::thread reader([&out, &output] {
      std::ostringstream all;
      all << out.rdbuf();
      output = all.str();
    });
    // A loader that ignores the variable (not glibc's) would run the program
    // itself; bound that.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool timed_out = false;
    while (child.running()) {
      if (std::chrono::steady_clock::now() > deadline) {
        child.terminate();
        timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (!timed_out) child.wait();
    reader.join();
    if (timed_out) {
      *err = exe + ": listing its shared libraries (LD_TRACE_LOADED_OBJECTS) took over 10 s";
      return false;
    }
  } catch (const std::exception& e) {
    *err = exe + ": cannot run it to list its shared libraries: " + e.what();
    return false;
  }
  for (const auto& [name, path] : ParseLoadedObjects(output)) {
    if (path.empty()) {
      (*libraries)[name] = "not found";
      continue;
    }
    std::optional<std::string> digest = Sha256OfFile(path, err);
    if (!digest) return false;
    (*libraries)[path] = *digest;
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
