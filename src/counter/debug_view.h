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
// bytes again in every run: DebugFileCopies keeps a decompressed copy of each
// debug file in workgate's cache, and a contained run sees that copy at the
// debug file's own path (LaunchSpec::files_in_place). The copy holds the same
// sections with the same contents, only stored uncompressed, so Valgrind
// reads the same symbols and lines from it: the profile is the same.

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "launch/launch.h"

namespace workgate {

/// Where Valgrind looks for detached debug files by build ID.
inline constexpr const char* kDetachedDebugInfoDir = "/usr/lib/debug";

/// The GNU build ID of the ELF file `path`, in lower-case hex; "" when it is
/// not an ELF file or has none.
std::string ElfBuildId(const std::string& path);

/// The detached debug file Valgrind takes for the ELF object `object`: the
/// one its build ID names, `debug_root`/.build-id/NN/REST.debug. "" when the
/// object has no build ID or there is no such regular file.
std::string DetachedDebugFile(const std::string& object,
                              const std::string& debug_root = kDetachedDebugInfoDir);

/// Decompressed copies of detached debug files, kept in a directory of their
/// own (workgate's cache: SharedDebugFileCopies). A copy is named by the
/// debug file's build ID, size and modification time, so that an upgraded
/// package's file gets a copy of its own and the old copy is removed when the
/// new one is made. Made in a temporary file and renamed into place, so that
/// workgates running at once never see half a copy. Thread-safe.
class DebugFileCopies {
 public:
  explicit DebugFileCopies(std::string dir, std::string debug_root = kDetachedDebugInfoDir);

  /// For each of `objects` (ELF files; others are passed over), and each
  /// object Remember was told of, whose detached debug file has compressed
  /// sections: that file and its decompressed copy, made now where there is
  /// none. A debug file whose copy cannot be made is left out, and the run
  /// reads it as it is. At most kMaxFilesInPlace.
  std::vector<FileInPlace> For(const std::vector<std::string>& objects);

  /// Keeps the debug files of those of `paths` that are ELF objects with
  /// one (the files a run opened: what the loader mapped, a dlopen()ed
  /// module), so that later runs get their copies too; at most
  /// kMaxFilesInPlace of them.
  void Remember(const std::vector<std::string>& paths);

  static constexpr size_t kMaxFilesInPlace = 64;

  /// The copy of the debug file `debug_file`, made now where missing; "" when
  /// it has no compressed section or the copy cannot be made (`*why` says
  /// why, when given).
  std::string CopyOf(const std::string& debug_file, std::string* why = nullptr);

 private:
  std::string dir_;
  std::string debug_root_;
  std::mutex mu_;
  // The detached debug file of `object` ("": none), asked once per object
  // path, size and modification time. Called with mu_ held.
  std::string DebugFileOf(const std::string& object);
  std::string CopyLocked(const std::string& debug_file, std::string* why);

  // By the debug file's path, size and modification time: its copy, or ""
  // when it needs none or none can be made (asked once per process).
  std::map<std::string, std::string> known_;
  // By an object's path, size and modification time: its debug file or "".
  std::map<std::string, std::string> debug_files_;
  std::vector<std::string> remembered_;  // debug files, in the order met
};

/// The copies in CacheDirectory()/debug, one set for the whole process;
/// nullptr when there is no cache directory (neither XDG_CACHE_HOME nor HOME
/// is set).
DebugFileCopies* SharedDebugFileCopies();

}  // namespace workgate
