#include "counter/debug_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>

#include "identity/elf_file.h"
#include "identity/elf_symbols.h"
#include "util/paths.h"

namespace workgate {

namespace {

// libelf's version handshake, once per process.
bool ElfLibraryReady() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  return ready;
}

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Hex(const unsigned char* bytes, size_t n) {
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

// The build ID in the notes of `elf`'s SHT_NOTE sections, as the program
// headers of a detached debug file may not point at them.
std::string BuildIdOf(Elf* elf) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    size_t offset = 0;
    GElf_Nhdr note;
    size_t name_at = 0;
    size_t desc_at = 0;
    while ((offset = gelf_getnote(data, offset, &note, &name_at, &desc_at)) > 0) {
      const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && note.n_descsz > 0 &&
          memcmp(bytes + name_at, "GNU", 4) == 0) {
        return Hex(bytes + desc_at, note.n_descsz);
      }
    }
  }
  return "";
}

bool SectionIsCompressed(Elf* elf, size_t shstrndx, Elf_Scn* scn, bool* gnu_style) {
  GElf_Shdr shdr;
  if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) return false;
  const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
  *gnu_style = name != nullptr && std::string_view(name).starts_with(".zdebug");
  return (shdr.sh_flags & SHF_COMPRESSED) != 0 || *gnu_style;
}

// Copies the file `from` to the descriptor `to`, byte for byte.
bool CopyBytes(const std::string& from, int to, std::string* why) {
  Fd in(open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    *why = fmt::format("cannot open {}: {}", from, strerror(errno));
    return false;
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(in.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = fmt::format("cannot read {}: {}", from, strerror(errno));
      return false;
    }
    if (n == 0) return true;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(to, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        *why = fmt::format("cannot write the copy: {}", strerror(errno));
        return false;
      }
      done += w;
    }
  }
}

bool IsDwarfSection(Elf* elf, size_t shstrndx, Elf_Scn* scn) {
  GElf_Shdr shdr;
  if (gelf_getshdr(scn, &shdr) == nullptr) return false;
  const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
  if (name == nullptr) return false;
  const std::string_view n(name);
  return n.starts_with(".debug_") || n.starts_with(".zdebug_");
}

// Rewrites, in place, each section of the ELF file open for reading and
// writing at `fd` that `change` changes (it returns 1 for a changed section,
// 0 for one left alone, -1 on failure, with elf_errmsg's reason); libelf
// then lays the file out anew. Sets `*changed` to how many were.
template <typename Change>
bool RewriteSections(int fd, const char* what, Change change, int* changed, std::string* why) {
  ElfHandle elf(elf_begin(fd, ELF_C_RDWR, nullptr));
  size_t shstrndx = 0;
  if (elf == nullptr || elf_kind(elf.get()) != ELF_K_ELF ||
      elf_getshdrstrndx(elf.get(), &shstrndx) != 0) {
    *why = fmt::format("not an ELF file libelf can read: {}", elf_errmsg(-1));
    return false;
  }
  *changed = 0;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf.get(), scn)) != nullptr) {
    const int result = change(elf.get(), shstrndx, scn);
    if (result < 0) {
      *why = fmt::format("cannot {} a section: {}", what, elf_errmsg(-1));
      return false;
    }
    *changed += result;
  }
  if (*changed > 0 && elf_update(elf.get(), ELF_C_WRITE) < 0) {
    *why = fmt::format("cannot write the file after the sections' {}: {}", what, elf_errmsg(-1));
    return false;
  }
  return true;
}

// Leaves the file without its DWARF: each .debug_* section is renamed to the
// empty name and left with no contents (SHT_NOBITS), so that Valgrind finds
// none of them, and the indices of the others (the symbol table's link to
// its strings) stay.
bool RemoveDwarf(int fd, int* removed, std::string* why) {
  auto remove = [](Elf* elf, size_t shstrndx, Elf_Scn* scn) {
    if (!IsDwarfSection(elf, shstrndx, scn)) return 0;
    GElf_Shdr shdr;
    gelf_getshdr(scn, &shdr);
    shdr.sh_name = 0;  // the string table's first byte, the empty name
    shdr.sh_type = SHT_NOBITS;
    shdr.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
    return gelf_update_shdr(scn, &shdr) != 0 ? 1 : -1;
  };
  return RewriteSections(fd, "strip", remove, removed, why);
}

// Decompresses every compressed section of the file.
bool DecompressSections(int fd, int* decompressed, std::string* why) {
  auto decompress = [](Elf* elf, size_t shstrndx, Elf_Scn* scn) {
    bool gnu_style = false;
    if (!SectionIsCompressed(elf, shstrndx, scn, &gnu_style)) return 0;
    return (gnu_style ? elf_compress_gnu(scn, 0, 0) : elf_compress(scn, 0, 0)) >= 0 ? 1 : -1;
  };
  return RewriteSections(fd, "decompress", decompress, decompressed, why);
}

// Removes the copies of build ID `id` in `dir` but those of stamp `stamp`:
// those of an earlier version of its debug file, and temporary files of a
// workgate that stopped halfway (older than a minute).
void RemoveOtherCopies(const std::string& dir, const std::string& id, const std::string& stamp) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  const time_t now = time(nullptr);
  while (const dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (name.starts_with(id + ".") && !name.starts_with(id + "." + stamp + ".")) {
      unlink(path.c_str());
    } else if (name.starts_with(".tmp.") && lstat(path.c_str(), &st) == 0 &&
               now - st.st_mtime > 60) {
      unlink(path.c_str());
    }
  }
  closedir(d);
}

// What names a file as it is now: its size and modification time.
std::string Stamp(const struct stat& st) {
  return fmt::format("{}.{}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

}  // namespace

std::string ElfBuildId(const std::string& path) {
  FileSource file;
  ElfSymbolInfo info;
  std::string why;
  if (!file.Open(path, &why) || !ReadElfSymbolInfo(file, &info, &why)) return "";
  return info.build_id;
}

ElfForReading::ElfForReading(const std::string& path) {
  if (!ElfLibraryReady()) return;
  // Non-blocking: the path may have become a FIFO since it was looked at.
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd_ < 0 || fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return;
  elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  if (elf_ != nullptr && elf_kind(elf_) != ELF_K_ELF) {
    elf_end(elf_);
    elf_ = nullptr;
  }
}

ElfForReading::~ElfForReading() {
  if (elf_ != nullptr) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

std::string DebugFileBuildId(const std::string& path) {
  ElfForReading elf(path);
  return elf.get() != nullptr ? BuildIdOf(elf.get()) : "";
}

std::string DetachedDebugFile(const std::string& object, const std::string& debug_root) {
  const std::string path = BuildIdDebugPath(debug_root, ElfBuildId(object));
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? path : "";
}

DebugFileCopies::DebugFileCopies(std::string dir, std::string debug_root)
    : dir_(std::move(dir)), debug_root_(std::move(debug_root)) {}

std::string DebugFileCopies::DebugFileOf(const std::string& object) {
  std::lock_guard lock(mu_);
  return DebugFileOfLocked(object);
}

std::string DebugFileCopies::DebugFileOfLocked(const std::string& object) {
  struct stat st;
  // Only regular files: a path a run opened may name a FIFO or a device.
  if (stat(object.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  const std::string key = object + "\n" + Stamp(st);
  if (const auto found = debug_files_.find(key); found != debug_files_.end()) return found->second;
  return debug_files_[key] = DetachedDebugFile(object, debug_root_);
}

std::vector<FileInPlace> DebugFileCopies::For(const std::vector<std::string>& objects, Kind kind) {
  std::lock_guard lock(mu_);
  std::vector<std::string> debug_files;
  for (const std::string& object : objects) debug_files.push_back(DebugFileOfLocked(object));
  debug_files.insert(debug_files.end(), remembered_.begin(), remembered_.end());
  std::vector<FileInPlace> out;
  for (const std::string& debug_file : debug_files) {
    if (debug_file.empty() || out.size() == kMaxFilesInPlace) continue;
    bool seen = false;
    for (const FileInPlace& f : out) seen = seen || f.path == debug_file;
    if (seen) continue;
    std::string ignored;
    if (std::string copy = CopyLocked(debug_file, kind, &ignored); !copy.empty()) {
      out.push_back({debug_file, copy});
    }
  }
  return out;
}

void DebugFileCopies::Remember(const std::vector<std::string>& paths) {
  std::lock_guard lock(mu_);
  for (const std::string& path : paths) {
    if (remembered_.size() == kMaxFilesInPlace) return;
    const std::string debug_file = DebugFileOfLocked(path);
    if (debug_file.empty()) continue;
    if (std::find(remembered_.begin(), remembered_.end(), debug_file) == remembered_.end()) {
      remembered_.push_back(debug_file);
    }
  }
}

std::string DebugFileCopies::CopyOf(const std::string& debug_file, std::string* why, Kind kind) {
  std::string ignored;
  std::lock_guard lock(mu_);
  return CopyLocked(debug_file, kind, why != nullptr ? why : &ignored);
}

std::string DebugFileCopies::CopyLocked(const std::string& debug_file, Kind kind,
                                        std::string* why) {
  const bool symbols = kind == Kind::kSymbols;
  struct stat st;
  if (stat(debug_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *why = fmt::format("{} is not a file", debug_file);
    return "";
  }
  const std::string stamp = Stamp(st);
  const std::string key = debug_file + "\n" + stamp + (symbols ? "\ns" : "\nd");
  if (const auto found = known_.find(key); found != known_.end()) return found->second;
  std::string& known = known_[key];
  const std::string id = DebugFileBuildId(debug_file);
  if (id.empty()) {
    *why = fmt::format("{} has no build ID", debug_file);
    return "";
  }
  const std::string name = id + "." + stamp + (symbols ? ".symbols" : ".debug");
  const std::string copy = dir_ + "/" + name;
  struct stat copied;
  if (stat(copy.c_str(), &copied) == 0 && S_ISREG(copied.st_mode) && copied.st_size > 0) {
    return known = copy;
  }
  // Only a file with compressed sections is worth a decompressed copy, only
  // one with DWARF a copy without.
  {
    ElfForReading elf(debug_file);
    size_t shstrndx = 0;
    if (elf.get() == nullptr || elf_getshdrstrndx(elf.get(), &shstrndx) != 0) {
      *why = fmt::format("{} is not an ELF file libelf can read", debug_file);
      return "";
    }
    bool any = false;
    Elf_Scn* scn = nullptr;
    while (!any && (scn = elf_nextscn(elf.get(), scn)) != nullptr) {
      bool gnu_style = false;
      any = symbols ? IsDwarfSection(elf.get(), shstrndx, scn)
                    : SectionIsCompressed(elf.get(), shstrndx, scn, &gnu_style);
    }
    if (!any) {
      *why = fmt::format("{} has no {}", debug_file, symbols ? "DWARF" : "compressed section");
      return "";
    }
  }
  std::error_code ec;
  if (std::filesystem::create_directories(dir_, ec); ec) {
    *why = fmt::format("cannot make {}: {}", dir_, ec.message());
    return "";
  }
  std::string temp = dir_ + "/.tmp." + name + ".XXXXXX";
  Fd fd(mkostemp(temp.data(), O_CLOEXEC));
  if (fd.get() < 0) {
    *why = fmt::format("cannot make a file in {}: {}", dir_, strerror(errno));
    return "";
  }
  int changed = 0;
  const bool made = CopyBytes(debug_file, fd.get(), why) &&
                    (symbols ? RemoveDwarf(fd.get(), &changed, why)
                             : DecompressSections(fd.get(), &changed, why)) &&
                    fchmod(fd.get(), 0644) == 0 && rename(temp.c_str(), copy.c_str()) == 0;
  if (!made) {
    if (why->empty()) *why = fmt::format("cannot keep {}: {}", copy, strerror(errno));
    unlink(temp.c_str());
    return "";
  }
  RemoveOtherCopies(dir_, id, stamp);
  return known = copy;
}

DebugFileCopies* SharedDebugFileCopies() {
  static const std::unique_ptr<DebugFileCopies> shared = []() -> std::unique_ptr<DebugFileCopies> {
    std::string why;
    const std::string cache = CacheDirectory(&why);
    if (cache.empty()) return nullptr;
    // Beside the result store's directory, not in it: removing the copies
    // never touches the store, and nothing here changes the store's
    // directory (ci/test checks that the tests leave it alone).
    return std::make_unique<DebugFileCopies>(cache + "-debug");
  }();
  return shared.get();
}

}  // namespace workgate
