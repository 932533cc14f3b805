#pragma once
// A count's input manifest: what the counted program read from the file
// system that its key (identity/count_key.h) does not hold, each input with
// what identifies it, so that the result store gives a stored count again
// only while every input is as it was when it was counted.
//
// vgcount records each read at its system call (counter/input_record.h);
// after the run, workgate turns the records into a manifest
// (MakeInputManifest): it checks that each input is still what the call
// found (a file that changed while the program ran makes the count one that
// is not kept), then takes its identity now: a file's SHA-256, a
// directory's sorted listing, a path's existence, type, size and (for a
// regular file) modification time, a link's target. Before a stored count
// is given again, the store checks the manifest against the file system
// (ManifestChange): size, times, device and inode first, the content's
// digest on any doubt.
//
// What is per-run by construction is left out, and the scope says so
// (ManifestScope): workgate's own directories (the workload's private
// directory, the build's copy), the run's fresh temporary directories,
// devices, a process's own /proc files, and /proc/uptime, which vgcount
// answers from the pinned clock.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "counter/input_record.h"

namespace workgate {

struct ManifestEntry {
  enum class Kind {
    kFile,     // its content (opened, mapped or executed)
    kListing,  // its names and their types, sorted
    kMeta,     // its type; a regular file's size and modification time; a link's target
    kMissing,  // it does not exist (ENOENT or ENOTDIR)
    kError,    // asking for it fails with `error`
  };
  Kind kind = Kind::kFile;
  std::string path;
  /// kMeta, kMissing, kError: whether the last component's symbolic link is
  /// followed (lstat and readlink do not).
  bool follow = true;
  /// kError: what was asked ("open", "exec", "stat", "lstat"), and the errno.
  std::string op;
  int error = 0;
  /// kFile, kListing: SHA-256 of the content, of the listing.
  std::string sha256;
  /// kMeta: "file", "directory", "link", "other"; size and mtime_ns for a
  /// file, target for a link.
  std::string type;
  std::string target;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  /// kFile: what the file was when it was hashed, for checking it again
  /// without reading it (ctime_ns, dev, ino with size and mtime_ns); and
  /// whether it lies in /proc or /sys, where only reading it again tells.
  int64_t ctime_ns = 0;
  uint64_t dev = 0, ino = 0;
  bool pseudo = false;

  friend bool operator==(const ManifestEntry&, const ManifestEntry&) = default;
};

struct InputManifest {
  /// When the manifest was made (nanoseconds since the epoch): a file whose
  /// change time is not well before it may have changed within the time's
  /// granularity, so its stat alone does not tell (git's "racily clean").
  int64_t made_at_ns = 0;
  std::vector<ManifestEntry> entries;  // sorted by path, then kind

  friend bool operator==(const InputManifest&, const InputManifest&) = default;
};

/// What is per-run by construction, and what workgate's own links stand for.
struct ManifestScope {
  /// Directories whose contents are the run's own or workgate's: workgate's
  /// base directory (the workloads' private directories), the run's TMPDIR,
  /// the temporary directories the run got fresh.
  std::vector<std::string> excluded_dirs;
  /// Paths in those directories that the run's file system binds from
  /// outside them (what its command names in a fresh temporary directory:
  /// launch/launch.h), and so are inputs like any other.
  std::vector<std::string> bound;
  /// Files whose content the key holds already: the file a run of the
  /// build executes (its copy).
  std::vector<std::string> excluded_files;
  /// The workload's exe link (WorkDir::exe_link) and the build it stands
  /// for: a path under the link is taken as the same path under the build.
  std::string exe_link;
  std::string exe;
  /// vgcount pinned the run: /proc/uptime read the pinned clock.
  bool pinned = true;
};

/// Why a path is left out of every manifest ("" when it is not): "the
/// workload's own directories", "a device", "a process's own /proc file",
/// "the pinned clock". `path` is absolute and as the program named it.
std::string ExcludedBecause(const std::string& path, const ManifestScope& scope);

/// Makes the manifest of `records` (every run's and process's, in any order,
/// duplicates allowed) as the file system is now. False with `*why` when the
/// count must not be given again: an input changed while the program ran
/// ("the file /abs/s.lua changed while the program ran"), or the program read
/// something no manifest can hold ("the program read /proc/meminfo, which
/// changes as the machine runs").
bool MakeInputManifest(const std::vector<InputRecord>& records, const ManifestScope& scope,
                       InputManifest* out, std::string* why);

/// "" when every input of `manifest` is as it was, else the first that is
/// not, in words: "the file /abs/s.lua changed since it was counted", "the
/// directory /data gained or lost entries since it was counted", "/x/mod.lua
/// exists now; it did not when counted".
std::string ManifestChange(const InputManifest& manifest);

/// The manifest as the store keeps it (a JSON object), and back: strict,
/// every field of its type, paths absolute, at most kMaxManifestEntries
/// entries. False with `*why` otherwise.
inline constexpr size_t kMaxManifestEntries = 200000;
std::string ManifestJson(const InputManifest& manifest);
bool ParseManifestJson(std::string_view json, InputManifest* out, std::string* why);

/// SHA-256 over what identifies the inputs (not the stat figures kept for
/// checking quickly): two runs that read the same inputs have the same.
std::string ManifestDigest(const InputManifest& manifest);

}  // namespace workgate
