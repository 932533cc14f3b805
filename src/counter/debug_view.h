#pragma once
// What a Valgrind run reads of detached debug information (/usr/lib/debug,
// where Debian's -dbg packages such as libc6-dbg put it).
//
// Valgrind 3.19 to 3.21 reads, for every object a run maps, the symbol table
// and the whole DWARF line information of its detached debug file, in every
// run; Debian compresses those sections, so about a third of that reading is
// decompressing them (docs/performance.md has the figures). A run that keeps
// a profile needs the symbols and the lines, so it cannot go without the file
// (a count that keeps none has /usr/lib/debug hidden instead:
// LaunchSpec::hidden_dirs). What it can go without is decompressing the same
// bytes again in every run: DebugFileCopies keeps copies of each debug file in
// workgate's cache, and a contained run sees a copy at the debug file's own
// path (LaunchSpec::files_in_place). Two kinds:
//   decompressed  the same sections with the same contents, stored
//                 uncompressed: Valgrind reads the same symbols and lines
//                 from it (a callgrind run's);
//   symbols       the same without its DWARF (the sections renamed away and
//                 left empty): Valgrind reads the symbols only, and vgcount
//                 keeps the lines of that object by address, which workgate
//                 names after the run from the decompressed copy
//                 (counter/profile_lines.h), once per object for all runs.

#include <libelf.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "launch/launch.h"

namespace workgate {

/// Where Valgrind looks for detached debug files by build ID.
inline constexpr const char* kDetachedDebugInfoDir = "/usr/lib/debug";

/// A file open for reading through libelf (ELF_C_READ_MMAP), for the debug
/// files and objects this layer reads (and libdw through get()). It is opened
/// without blocking and read only when it is a regular file, so that a FIFO
/// put in its place never stalls workgate. get() is null where the path
/// cannot be opened (then fd() is -1 and errno says why), is no regular file
/// or is not ELF.
class ElfForReading {
 public:
  explicit ElfForReading(const std::string& path);
  ~ElfForReading();
  ElfForReading(const ElfForReading&) = delete;
  ElfForReading& operator=(const ElfForReading&) = delete;
  Elf* get() const { return elf_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

/// The GNU build ID of the ELF object `path` (a program or library, which may
/// be a build's and hostile), as its PT_NOTE segments give it, read with
/// identity/elf_symbols.h's bounded reader; "" when it is not an ELF file or
/// has none.
std::string ElfBuildId(const std::string& path);

/// The GNU build ID of the detached debug file `path` (or a copy of one), in
/// lower-case hex, from its SHT_NOTE sections: a debug file's program headers
/// are the object's and do not point at its notes. "" when it has none.
std::string DebugFileBuildId(const std::string& path);

/// The detached debug file Valgrind takes for the ELF object `object`: the
/// one its build ID names (BuildIdDebugPath under `debug_root`). "" when the
/// object has no build ID or there is no such regular file.
std::string DetachedDebugFile(const std::string& object,
                              const std::string& debug_root = kDetachedDebugInfoDir);

/// Copies of detached debug files, kept in a directory of their own
/// (workgate's cache: SharedDebugFileCopies). A copy is named by the debug
/// file's build ID, size and modification time, and its kind, so that an
/// upgraded package's file gets copies of its own and the old ones are
/// removed when a new one is made. Made in a temporary file and renamed into
/// place, so that workgates running at once never see half a copy.
/// Thread-safe.
class DebugFileCopies {
 public:
  enum class Kind { kDecompressed, kSymbols };

  explicit DebugFileCopies(std::string dir, std::string debug_root = kDetachedDebugInfoDir);

  /// For each of `objects` (ELF files; others are passed over), and each
  /// object Remember was told of, whose detached debug file has compressed
  /// sections: that file and its decompressed copy, made now where there is
  /// none. A debug file whose copy cannot be made is left out, and the run
  /// reads it as it is. At most kMaxFilesInPlace.
  std::vector<FileInPlace> For(const std::vector<std::string>& objects,
                               Kind kind = Kind::kDecompressed);

  /// Keeps the debug files of those of `paths` that are ELF objects with
  /// one (the files a run opened: what the loader mapped, a dlopen()ed
  /// module), so that later runs get their copies too; at most
  /// kMaxFilesInPlace of them.
  void Remember(const std::vector<std::string>& paths);

  static constexpr size_t kMaxFilesInPlace = 64;

  /// The copy of the debug file `debug_file`, made now where missing; "" when
  /// it needs none (a decompressed copy of a file with nothing compressed, a
  /// symbols copy of one without DWARF) or the copy cannot be made (`*why`
  /// says why, when given).
  std::string CopyOf(const std::string& debug_file, std::string* why = nullptr,
                     Kind kind = Kind::kDecompressed);

  /// The detached debug file of the ELF object `object`, "" when it has none
  /// (DetachedDebugFile, asked once per object as it is now).
  std::string DebugFileOf(const std::string& object);

 private:
  std::string dir_;
  std::string debug_root_;
  std::mutex mu_;
  std::string DebugFileOfLocked(const std::string& object);
  std::string CopyLocked(const std::string& debug_file, Kind kind, std::string* why);

  // By the debug file's path, size and modification time: its copy, or ""
  // when it needs none or none can be made (asked once per process).
  std::map<std::string, std::string> known_;
  // By an object's path, size and modification time: its debug file or "".
  std::map<std::string, std::string> debug_files_;
  std::vector<std::string> remembered_;  // debug files, in the order met
};

/// The copies in CacheDirectory() + "-debug" ($XDG_CACHE_HOME/workgate-debug,
/// else ~/.cache/workgate-debug), one set for the whole process;
/// nullptr when there is no cache directory (neither XDG_CACHE_HOME nor HOME
/// is set).
DebugFileCopies* SharedDebugFileCopies();

}  // namespace workgate
