#include "measure/thread_runtime.h"

#include <algorithm>
#include <cctype>

#include "identity/elf_file.h"
#include "identity/elf_symbols.h"
#include "identity/shared_libraries.h"
#include "util/paths.h"

namespace workgate {

namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "python3", "python3.11", "python3.11-dbg", "python3.12d": the name of a
// CPython interpreter, with its version and its debug build's suffixes.
bool IsPythonName(const std::string& name) {
  if (name.rfind("python", 0) != 0) return false;
  std::string rest = name.substr(6);
  for (const char* suffix : {"-dbg", "d", "m"}) {
    const std::string s = suffix;
    if (rest.size() > s.size() && rest.compare(rest.size() - s.size(), s.size(), s) == 0) {
      rest.erase(rest.size() - s.size());
      break;
    }
  }
  return std::all_of(rest.begin(), rest.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

ThreadRuntime RuntimeByName(const std::string& name) {
  if (name == "zstd" || name == "zstdmt") return ThreadRuntime::kZstd;
  if (IsPythonName(name)) return ThreadRuntime::kPython;
  if (name == "java") return ThreadRuntime::kJava;
  if (name == "node" || name == "nodejs") return ThreadRuntime::kNode;
  return ThreadRuntime::kUnknown;
}

// Whether the loader would map an OpenMP runtime for `file`: GCC's libgomp,
// LLVM's libomp or Intel's libiomp5, by the name each is asked for.
bool LoadsOpenMp(const std::string& file, const std::map<std::string, std::string>& env) {
  std::vector<LoadedObject> objects;
  std::string ignored;
  if (!ResolveSharedLibraries(file, LoaderInputsOf(env), &objects, &ignored)) return false;
  return std::any_of(objects.begin(), objects.end(), [](const LoadedObject& o) {
    const std::string name = BaseName(o.name);
    return name.rfind("libgomp.so", 0) == 0 || name.rfind("libomp.so", 0) == 0 ||
           name.rfind("libiomp5.so", 0) == 0;
  });
}

}  // namespace

ThreadRuntime ThreadRuntimeOf(const std::string& file, const std::string& argv0,
                              const std::map<std::string, std::string>& env) {
  // The name the command gives (a link such as python3 or zstdmt), then the
  // file's own (python3.11): a build given by its path is known by its file.
  for (const std::string& name : {BaseName(argv0), BaseName(RealPath(file))}) {
    const ThreadRuntime by_name = RuntimeByName(name);
    if (by_name != ThreadRuntime::kUnknown) return by_name;
  }
  FileSource source;
  ElfSymbolInfo info;
  std::string ignored;
  if (source.Open(file, &ignored) && ReadElfSymbolInfo(source, &info, &ignored) && info.go) {
    return ThreadRuntime::kGo;
  }
  if (LoadsOpenMp(file, env)) return ThreadRuntime::kOpenMp;
  return ThreadRuntime::kUnknown;
}

uint64_t MostThreads(const std::vector<CountedRun>& runs) {
  uint64_t most = 0;
  for (const CountedRun& run : runs) {
    const auto threads = run.unpinned.find("threads");
    if (threads != run.unpinned.end()) most = std::max(most, threads->second);
  }
  return most > 1 ? most : 0;
}

ThreadRuntime RuntimeOfWorkload(const Workload& w, const CountedWorkload& c,
                                const LaunchOptions& options, const std::string& exe) {
  if (c.argv.empty() || w.command.empty()) return ThreadRuntime::kUnknown;
  std::string file;
  if (w.command[0] == "{exe}") {
    file = ExecutedFile(options, exe);
  } else {
    const auto path = c.env.find("PATH");
    file = SearchPath(c.argv[0], path == c.env.end() ? "" : path->second);
  }
  return ThreadRuntimeOf(file, c.argv[0], c.env);
}

}  // namespace workgate
