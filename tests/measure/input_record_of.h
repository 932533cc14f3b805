#pragma once
// The record vgcount would write of a read of a path, made from the file as
// it is now: what the input manifest's and the count cache's tests feed
// them in place of a vgcount run.

#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "counter/input_record.h"

namespace workgate::testing {

/// `kind` of `path`, as a stat (or, not following, an lstat) finds it now:
/// present with its identity, missing, or the errno it fails with.
inline InputRecord InputRecordOf(InputRecord::Kind kind, const std::string& path,
                                 bool follow = true) {
  InputRecord r;
  r.kind = kind;
  r.path = path;
  struct stat st;
  if ((follow ? stat(path.c_str(), &st) : lstat(path.c_str(), &st)) != 0) {
    r.state = errno == ENOENT || errno == ENOTDIR ? InputRecord::State::kMissing
                                                  : InputRecord::State::kError;
    r.error = r.state == InputRecord::State::kError ? errno : 0;
    return r;
  }
  r.dev = st.st_dev;
  r.ino = st.st_ino;
  r.mode = st.st_mode;
  r.size = static_cast<uint64_t>(st.st_size);
  r.mtime_ns = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  r.ctime_ns = st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
  return r;
}

}  // namespace workgate::testing
