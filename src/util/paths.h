#pragma once
// Locating programs and companion files, and private temporary directories.

#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace workgate {

/// The directory holding the running workgate executable (/proc/self/exe).
std::string SelfDirectory();

/// Finds a file shipped with workgate (the clock shim, probes/known_loop, the
/// Valgrind tool directory): first beside the executable as laid out by the
/// build tree (`<dir>/<build_relative>`), then installed
/// (`<dir>/../lib/workgate/<basename>`). Empty when not found.
std::string FindCompanion(const std::string& build_relative);

/// The places FindCompanion looks for `build_relative`, for a message that
/// says where a missing companion should be.
std::string CompanionPlaces(const std::string& build_relative);

/// Resolves a command name the way execvp would, using `path_list` (a PATH
/// value). Names containing '/' are returned as they are. Empty if not found.
std::string SearchPath(const std::string& name, const std::string& path_list);

/// Whether `name` is a plain file name: letters, digits, '.', '_' and '-'
/// only, not "." or "..", at most 255 bytes: nothing a path could be made
/// of. What a file named by a stored profile must be.
bool PlainFileName(const std::string& name);

/// workgate's cache directory: $XDG_CACHE_HOME/workgate, else
/// $HOME/.cache/workgate (a relative or empty variable counts as unset, as
/// the XDG base directory specification says). "" with `*why` when neither
/// is set. Not made here.
std::string CacheDirectory(std::string* why);

/// An absolute, symlink-free form of `path`; empty when it does not exist.
std::string RealPath(const std::string& path);

/// The directory part of `path` as written: "." for a bare name, "/" for a
/// file in the root.
std::string DirectoryOf(const std::string& path);

/// Removes everything inside the directory `dir`, keeping `dir` itself;
/// entries a program made unreadable or unwritable (a subdirectory of mode
/// 000) are made the owner's again first. False with `*err` naming the
/// first entry that would not go.
bool EmptyDirectory(const std::string& dir, std::string* err);

/// A private directory (mode 0700) removed with everything in it when this
/// object goes away.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "workgate");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Reads a whole regular file (ReadRegularFile in util/input_file.h);
/// nullopt when it cannot be read, is no regular file or holds more than
/// `max_bytes`.
std::optional<std::string> ReadFile(const std::string& path,
                                    size_t max_bytes = std::numeric_limits<size_t>::max());

}  // namespace workgate
