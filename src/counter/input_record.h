#pragma once
// What a counted program read from the file system, as vgcount saw it at
// each system call (tools/vgcount/vgcount_inputs.c): the raw material of a
// count's input manifest (identity/input_manifest.h), which the result store
// checks before it gives a stored count again.
//
// vgcount writes one line per distinct record and process into its report:
//
//   input: KIND STATE PATH
//
//   KIND   open     a file opened for reading (O_RDONLY or O_RDWR), or mapped
//                   from a descriptor: its content
//          exec     a program the process executed (execve, execveat): its
//                   content
//          list     a directory the process listed (getdents64): its names
//          meta     a path whose metadata the process read, following
//                   symbolic links (stat, statx, access, faccessat, an
//                   opened directory): existence, type, size, and a regular
//                   file's modification time
//          lmeta    the same without following the last symbolic link
//                   (lstat, readlink, AT_SYMLINK_NOFOLLOW, O_PATH|O_NOFOLLOW):
//                   a link's target
//          machine  a /proc or /sys file (opened, or a directory listed)
//                   whose text changes as the machine runs (vgcount_pin.c's
//                   rule): nothing identifies what it read. The files of a
//                   process itself (/proc/self, /proc/<pid>) are never
//                   recorded.
//   STATE  missing  the call failed with ENOENT or ENOTDIR
//          error:N  the call failed with another errno, N
//          DEV:INO:MODE:SIZE:MTIME:CTIME  decimal; the file as the call
//                   found it (fstat of the descriptor, or stat of the path at
//                   the call), times in nanoseconds since the epoch (signed:
//                   a file may be dated before it)
//   PATH   absolute, as the program named it (relative paths joined to the
//          process's working directory or to the directory descriptor
//          they were given with; a mapped file or a listed directory by
//          the name the kernel gives its descriptor), every byte outside
//          '!'..'~' and every '%' written as %XX (upper-case hex)
//
// Each distinct line once per process (an exec starts a new part, a forked
// child a new process), at most 65,536 of them. The process read more than
// its lines say when the last is "input: overflow": the tool stopped
// recording at its bound, or met a read it could not name (a path longer
// than 4,095 bytes, or one it could not read): its inputs are then unknown.

#include <cstdint>
#include <string>
#include <string_view>

namespace workgate {

struct InputRecord {
  enum class Kind { kOpen, kExec, kList, kMeta, kLinkMeta, kMachine };
  enum class State { kPresent, kMissing, kError };
  Kind kind = Kind::kOpen;
  State state = State::kPresent;
  int error = 0;  // kError: the errno
  // kPresent: the file as the call found it.
  uint64_t dev = 0, ino = 0;
  uint32_t mode = 0;  // st_mode: type and permission bits
  uint64_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  std::string path;  // absolute, unescaped

  friend bool operator==(const InputRecord&, const InputRecord&) = default;
};

/// Parses what follows "input: " on a report line. False with `*why` for
/// anything not of the form above ("overflow" included: the caller checks
/// for it first).
bool ParseInputRecord(std::string_view text, InputRecord* out, std::string* why);

/// The line vgcount would write for `record`, without "input: " (tests,
/// and the escaping a reader of reports needs).
std::string FormatInputRecord(const InputRecord& record);

/// KIND's word in that form.
std::string_view InputKindName(InputRecord::Kind kind);

/// The order of CountedRun::inputs: by path, then kind, then state.
bool InputRecordBefore(const InputRecord& a, const InputRecord& b);

}  // namespace workgate
