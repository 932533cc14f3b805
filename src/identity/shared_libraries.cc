#include "identity/shared_libraries.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <utility>

#include "identity/elf_file.h"
#include "identity/ld_so_cache.h"
#include "identity/loader_paths.h"

namespace workgate {

namespace {

// Bytes of /etc/ld.so.preload read: it holds a few paths.
constexpr size_t kMaxPreloadFileBytes = 64 << 10;

// The directory of `path`, made absolute against the current directory, as
// the loader computes $ORIGIN for a library it opened by that path.
std::string OriginOf(const std::string& path) {
  std::string abs = path;
  if (abs.empty() || abs[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr) return "";
    abs = std::string(cwd) + "/" + abs;
  }
  size_t slash = abs.rfind('/');
  return slash == 0 ? "/" : abs.substr(0, slash);
}

struct Object {
  std::string path;
  std::string origin;  // for $ORIGIN; "" when unknown
  ElfFile elf;
  int loader = -1;   // the object whose request brought it in
  bool walk = true;  // its DT_NEEDED entries are followed (not the interpreter's)
};

class Resolver {
 public:
  Resolver(const LoaderInputs& inputs, LoaderArch arch) : inputs_(inputs), arch_(std::move(arch)) {}

  bool Run(const std::string& exe, ElfFile program, std::vector<LoadedObject>* out,
           std::string* err) {
    out_ = out;
    Object main;
    main.path = exe;
    // The loader takes the program's $ORIGIN from /proc/self/exe: symlinks resolved.
    if (char* real = realpath(exe.c_str(), nullptr)) {
      main.origin = OriginOf(real);
      free(real);
    }
    main.elf = std::move(program);
    if (!main.elf.soname.empty()) by_name_.emplace(main.elf.soname, 0);
    objects_.push_back(std::move(main));
    const std::string interpreter = objects_[0].elf.interpreter;  // objects_ grows
    AddInterpreter(interpreter);

    int found;
    for (const std::string& name : Split(inputs_.ld_preload, " :")) {
      if (!Find(name, 0, /*record_missing=*/false, &found, err)) return false;
    }
    std::string bytes, absent;
    FileSource preload_file;
    if (preload_file.Open(inputs_.preload_path, &absent) &&
        preload_file.ReadAt(0, kMaxPreloadFileBytes, &bytes, &absent)) {
      for (const std::string& name : Split(bytes, " \t\n:")) {
        if (!Find(name, 0, /*record_missing=*/false, &found, err)) return false;
      }
    }
    for (size_t i = 0; i < objects_.size(); ++i) {
      if (!objects_[i].walk) continue;
      const std::vector<std::string> needed = objects_[i].elf.needed;
      for (const std::string& name : needed) {
        if (!Find(name, static_cast<int>(i), /*record_missing=*/true, &found, err)) return false;
      }
    }
    return true;
  }

 private:
  static std::vector<std::string> Split(std::string_view text, std::string_view separators) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find_first_of(separators, start);
      if (end == std::string_view::npos) end = text.size();
      if (end > start) parts.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
    return parts;
  }

  // The interpreter is mapped by the kernel, whatever it is: it is listed
  // even when it is not ELF, and answers to its path and DT_SONAME.
  void AddInterpreter(const std::string& path) {
    FileSource file;
    std::string ignored;
    if (!file.Open(path, &ignored)) {
      out_->push_back({path, ""});
      return;
    }
    Object interp;
    interp.path = path;
    interp.walk = false;
    ReadElfFile(file, &interp.elf, &ignored);
    Register(std::move(interp), file.Stat(), path);
  }

  int Register(Object object, const struct stat& st, const std::string& name) {
    const int index = static_cast<int>(objects_.size());
    by_file_.emplace(std::make_pair(st.st_dev, st.st_ino), index);
    by_name_.emplace(name, index);
    by_name_.emplace(object.path, index);
    if (!object.elf.soname.empty()) by_name_.emplace(object.elf.soname, index);
    out_->push_back({name, object.path});
    objects_.push_back(std::move(object));
    return index;
  }

  // Tries the file at `path` for a request by `loader`: *found is the
  // object's index, or -1 when the file is absent or not for this program.
  bool Probe(const std::string& path, const std::string& name, int loader, int* found,
             std::string* err) {
    *found = -1;
    if (path.size() > kMaxPathLength) return true;
    if (++probes_ > kMaxFileProbes) {
      *err = "gave up after trying " + std::to_string(kMaxFileProbes) + " files";
      return false;
    }
    FileSource file;
    ElfFile elf;
    std::string why;
    if (!file.Open(path, &why) || !ReadElfHeader(file, &elf, &why)) return true;
    if (elf.elf_class != arch_.elf_class || elf.machine != arch_.machine) return true;
    auto same = by_file_.find(std::make_pair(file.Stat().st_dev, file.Stat().st_ino));
    if (same != by_file_.end()) {
      *found = same->second;
      return true;
    }
    if (!Room(err)) return false;
    Object object;
    if (!ReadElfFile(file, &object.elf, &why)) {
      *err = path + ": " + why;
      return false;
    }
    object.path = path;
    object.origin = OriginOf(path);
    object.loader = loader;
    *found = Register(std::move(object), file.Stat(), name);
    return true;
  }

  // Tries `name` in each directory of `list`, $ORIGIN being `origin`.
  bool SearchList(std::string_view list, std::string_view separators, const std::string& origin,
                  const std::string& name, int loader, int* found, std::string* err) {
    bool ok = true;
    ForEachSearchDir(list, separators, origin, arch_, [&](const std::string& dir) {
      ok = Probe(dir + name, name, loader, found, err);
      return ok && *found < 0;
    });
    return ok;
  }

  bool Search(const std::string& name, int loader, int* found, std::string* err) {
    // Copies: objects_ grows as files are taken.
    const std::string runpath = objects_[loader].elf.runpath.value_or("");
    const bool has_runpath = objects_[loader].elf.runpath.has_value();
    const bool no_default_libs = objects_[loader].elf.no_default_libs;
    const std::string requester_origin = objects_[loader].origin;
    const std::string program_origin = objects_[0].origin;
    *found = -1;
    if (!has_runpath) {
      // Every chain of loaders ends at the program (index 0), so its DT_RPATH
      // is among them.
      for (int l = loader; l >= 0 && *found < 0; l = objects_[l].loader) {
        if (!objects_[l].elf.rpath) continue;
        const std::string rpath = *objects_[l].elf.rpath, origin = objects_[l].origin;
        if (!SearchList(rpath, ":", origin, name, loader, found, err)) return false;
      }
    }
    if (*found < 0 &&
        !SearchList(inputs_.ld_library_path, ":;", program_origin, name, loader, found, err)) {
      return false;
    }
    if (*found < 0 && !SearchList(runpath, ":", requester_origin, name, loader, found, err)) {
      return false;
    }
    if (*found < 0) {
      if (!cache_loaded_) cache_ = LoadLdSoCache(inputs_.cache_path);
      cache_loaded_ = true;
      std::string cached =
          LookUpLdSoCache(cache_, name, arch_.cache_flags, arch_.cache_takes_plain_elf);
      if (!cached.empty() && !(no_default_libs && InDefaultDir(cached)) &&
          !Probe(cached, name, loader, found, err)) {
        return false;
      }
    }
    for (size_t d = 0; *found < 0 && !no_default_libs && d < arch_.default_dirs.size(); ++d) {
      if (!Probe(arch_.default_dirs[d] + name, name, loader, found, err)) return false;
    }
    return true;
  }

  // Whether one more object, found or missing, may be listed.
  bool Room(std::string* err) const {
    if (out_->size() < kMaxLoadedObjects) return true;
    *err = "more than " + std::to_string(kMaxLoadedObjects) + " shared objects";
    return false;
  }

  bool InDefaultDir(const std::string& path) const {
    const std::string dir = path.substr(0, path.rfind('/') + 1);
    for (const std::string& d : arch_.default_dirs) {
      if (d == dir) return true;
    }
    return false;
  }

  // Maps the request for `name` by object `loader`; a name not found is
  // listed once when `record_missing` (a DT_NEEDED entry; a preload that
  // cannot be found is dropped, as the loader drops it).
  bool Find(const std::string& name, int loader, bool record_missing, int* found,
            std::string* err) {
    auto known = by_name_.find(name);
    if (known != by_name_.end()) {
      *found = known->second;
      return true;
    }
    *found = -1;
    if (name.find('/') != std::string::npos) {
      std::optional<std::string> path = ExpandDynamicTokens(name, objects_[loader].origin, arch_);
      if (path && !Probe(*path, name, loader, found, err)) return false;
    } else if (!Search(name, loader, found, err)) {
      return false;
    }
    if (*found >= 0) {
      by_name_.emplace(name, *found);
    } else if (record_missing) {
      if (!Room(err)) return false;
      by_name_.emplace(name, -1);
      out_->push_back({name, ""});
    }
    return true;
  }

  const LoaderInputs& inputs_;
  const LoaderArch arch_;
  std::vector<LoadedObject>* out_ = nullptr;
  std::vector<Object> objects_;
  std::map<std::string, int> by_name_;  // -1: not found
  std::map<std::pair<dev_t, ino_t>, int> by_file_;
  std::vector<LdSoCacheEntry> cache_;
  bool cache_loaded_ = false;
  size_t probes_ = 0;
};

}  // namespace

LoaderInputs LoaderInputsOf(const std::map<std::string, std::string>& env) {
  LoaderInputs inputs;
  if (auto it = env.find("LD_LIBRARY_PATH"); it != env.end()) inputs.ld_library_path = it->second;
  if (auto it = env.find("LD_PRELOAD"); it != env.end()) inputs.ld_preload = it->second;
  return inputs;
}

bool ResolveSharedLibraries(const std::string& exe, const LoaderInputs& inputs,
                            std::vector<LoadedObject>* objects, std::string* err) {
  objects->clear();
  FileSource file;
  if (!file.Open(exe, err)) return false;
  ElfFile program;
  std::string why;
  if (!ReadElfFile(file, &program, &why)) {
    *err = exe + ": " + why;
    return false;
  }
  // Without an interpreter the kernel starts the program itself: statically
  // linked, or not ELF at all (a script's #! names a program of its own).
  if (program.interpreter.empty()) return true;
  std::optional<LoaderArch> arch = LoaderArchFor(program);
  if (!arch) return true;
  Resolver resolver(inputs, std::move(*arch));
  if (!resolver.Run(exe, std::move(program), objects, &why)) {
    *err = exe + ": " + why;
    objects->clear();
    return false;
  }
  return true;
}

}  // namespace workgate
