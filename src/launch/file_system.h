#pragma once
// The file system a contained workload sees, made between fork and exec in
// a mount namespace of its own (launch/supervisor.h): a fresh /proc, every
// mount read-only, a fresh tmpfs on each temporary directory, and the
// directories and files the run needs bound at their own paths. What a run
// leaves in /tmp is gone when it ends, and what was there before (a native
// test step's cache, an earlier run's files) is not there for it.
// Everything here but PathIsWithin runs in a forked copy of a
// multi-threaded process: async-signal-safe calls only, no allocation.

namespace workgate {

/// The directories every contained run gets empty, each a tmpfs of its own
/// in the run's mount namespace (FileSystemView::fresh).
inline constexpr const char* kFreshDirectories[] = {"/tmp", "/var/tmp", "/dev/shm"};
inline constexpr int kFreshDirectoryCount = 3;

/// The bounds of each of those tmpfs: a fifth of the machine's memory and
/// 65,536 files. A run that writes more there gets ENOSPC, which fails that
/// run (the side's doing, as any way a program fails itself); one that needs
/// more room writes in its own directory (its working directory, its TMPDIR
/// under Valgrind).
inline constexpr char kFreshTmpfsOptions[] = "mode=1777,size=20%,nr_inodes=65536";

/// A path the run needs in its file system, and how.
struct BoundPath {
  enum Mode : unsigned char {
    kReadOnly,  // bound at its path, read-only
    kWritable,  // bound at its path, writable
    /// Bound writable where it exists; made empty where it does not and it
    /// lies under a fresh directory (a TMPDIR of the run's own).
    kWritableOrEmpty,
    /// A directory covered by an empty, read-only tmpfs: what the run has no
    /// use for and would spend time reading. Left as it is where the file
    /// system is (a chroot, a kernel before 5.12), and where it lies in a
    /// fresh directory.
    kHidden,
  };
  const char* path;  // absolute; one that does not exist is left out
  Mode mode;
  /// Where the bound directory is on this machine, when not at `path`
  /// (LaunchSpec::cwd_source): that directory is bound at `path`, which the
  /// run's fresh directories then hold. nullptr: `path` itself.
  const char* source = nullptr;
};

/// The most paths ContainFileSystem binds.
inline constexpr int kMaxBoundPaths = 256;

/// What ContainFileSystem made of the file system.
struct FileSystemView {
  /// Every mount read-only but the fresh directories and the writable paths.
  bool read_only = false;
  /// Bit i: kFreshDirectories[i] is the run's own (a fresh tmpfs; or absent
  /// from a read-only file system, so that the run cannot make it).
  unsigned fresh = 0;
};

/// Whether `path` is `dir` or lies under it, by their text (both absolute,
/// without "." or ".." components).
bool PathIsWithin(const char* path, const char* dir);

/// Enters a fresh mount namespace and makes its mounts private (nothing
/// mounted there shows outside); mounts a fresh proc on /proc, which shows
/// the caller's PID namespace alone; makes every mount read-only; mounts a
/// fresh tmpfs (kFreshTmpfsOptions, nosuid, nodev) on each of
/// kFreshDirectories that exists; then binds each of `paths` that exists
/// (a directory or a file), taken before the tmpfs covered it, at its own
/// path, in order, so that a later one lies on top of an earlier one it is
/// in. Where / is no mount point (a chroot) the file system stays as it is,
/// /proc aside, but for the fresh directories that are mount points of their
/// own (which can be made private), and the paths under those; where the
/// kernel lacks mount_setattr(2) (before 5.12) the file system stays as it
/// is. 0, or an errno value.
int ContainFileSystem(const BoundPath* paths, int n_paths, FileSystemView* view);

}  // namespace workgate
