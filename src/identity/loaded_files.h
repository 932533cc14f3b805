#pragma once
// The files the dynamic loader maps for a build, as they are now, to hold
// them still while a gate runs (measure/build_copies.h): a library that a
// build finds in a directory the candidate can write (a RUNPATH of
// /tmp/libs, an LD_LIBRARY_PATH) could be rewritten, or put there, between
// two counts of that build, and the later count would pass work that is not
// the build's.

#include <string>
#include <vector>

#include "identity/shared_libraries.h"

namespace workgate {

/// One file the loader would map, as it was found.
struct LoadedFile {
  std::string name;       // as asked for (LoadedObject::name)
  std::string path;       // as the loader would open it; "" when it would find none
  std::string real_path;  // `path` with its symbolic links resolved
  /// No workload can change it: only root may (OnlyRootMayChange), and
  /// workgate, so its workloads, does not run as root. Its content is then
  /// not read. (A workload that runs as root holds no capability, but it
  /// owns root's files: where it can write them is where it could change
  /// them, so they are read.)
  bool out_of_reach = false;
  std::string sha256;  // of its content; "" when out_of_reach or not found
};

/// Whether only root may change the file at `path`: its real path and every
/// directory above that belong to root and are writable by neither group
/// nor others. False when it cannot be asked.
bool OnlyRootMayChange(const std::string& path);

/// The files the loader would map for `exe` under `inputs`
/// (ResolveSharedLibraries), each as it is now. False with `*err` when the
/// walk fails or a file cannot be read.
bool TakeLoadedFiles(const std::string& exe, const LoaderInputs& inputs,
                     std::vector<LoadedFile>* files, std::string* err);

/// How the files `now` differ from those `before`, naming the file ("the
/// library /tmp/libs/libwork.so changed"); "" when they do not.
std::string LoadedFilesChange(const std::vector<LoadedFile>& before,
                              const std::vector<LoadedFile>& now);

}  // namespace workgate
