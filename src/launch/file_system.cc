#include "launch/file_system.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workgate {

namespace {

// The detached copies of the bound paths (open_tree(2)), closed however
// ContainFileSystem returns.
struct PathClones {
  int fd[kMaxBoundPaths];
  bool directory[kMaxBoundPaths];
  int n = 0;
  ~PathClones() {
    for (int i = 0; i < n; ++i) {
      if (fd[i] >= 0) close(fd[i]);
    }
  }
  void Drop(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

// Which fresh directory that got its tmpfs `path` lies under: its index;
// -1 under none; -2 when it is one of them.
int FreshDirectoryOf(const char* path, const bool* mounted) {
  for (int r = 0; r < kFreshDirectoryCount; ++r) {
    if (!mounted[r] || !PathIsWithin(path, kFreshDirectories[r])) continue;
    return strcmp(path, kFreshDirectories[r]) == 0 ? -2 : r;
  }
  return -1;
}

// Makes `path` on a fresh tmpfs where it is not there yet, with the
// directories above it: a directory (`mode`) or an empty file. 0, or an
// errno value.
int MakeMountPoint(const char* path, bool directory, mode_t mode) {
  struct stat st;
  if (stat(path, &st) == 0) return 0;
  char parent[4096];
  const size_t length = strlen(path);
  if (length >= sizeof parent) return ENAMETOOLONG;
  memcpy(parent, path, length + 1);
  for (size_t i = 1; i < length; ++i) {
    if (parent[i] != '/') continue;
    parent[i] = '\0';
    if (mkdir(parent, 0755) != 0 && errno != EEXIST) return errno;
    parent[i] = '/';
  }
  if (directory) return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : errno;
  const int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0400);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

// Covers the directory `path` with an empty, read-only tmpfs when `can`
// (the file system is the run's own, and `path` lies outside the fresh
// directories) and it is a directory. 0, or an errno value.
int Hide(const char* path, bool can) {
  struct stat st;
  if (!can || path[0] != '/' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
  return mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
               "mode=0755,size=4k,nr_inodes=16") == 0
             ? 0
             : errno;
}

}  // namespace

bool PathIsWithin(const char* path, const char* dir) {
  const size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return path[0] == '/';
  return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int ContainFileSystem(const BoundPath* paths, int n_paths, FileSystemView* view) {
  *view = FileSystemView{};
  if (n_paths < 0 || n_paths > kMaxBoundPaths) return E2BIG;
  if (unshare(CLONE_NEWNS) != 0) return errno;
  // A copied mount keeps its propagation: a shared one would carry what is
  // mounted here back to the namespace workgate runs in. Where / is no
  // mount point (a chroot), only the mount points below it can be made
  // private, and the file system stays as it is.
  const bool root_private = mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  if (!root_private && mount(nullptr, "/proc", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return errno;
  }
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) return errno;
  // Every mount read-only. Flags of this namespace's mounts: nothing
  // changes outside.
  mount_attr read_only_attr{};
  read_only_attr.attr_set = MOUNT_ATTR_RDONLY;
  mount_attr writable_attr{};
  writable_attr.attr_clr = MOUNT_ATTR_RDONLY;
  if (root_private &&
      mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &read_only_attr, sizeof read_only_attr) != 0) {
    // A kernel before 5.12: the file system stays as it is.
    return errno == ENOSYS ? 0 : errno;
  }
  // The bound paths, taken before a tmpfs covers those under it.
  PathClones clones;
  for (; clones.n < n_paths; ++clones.n) {
    const int i = clones.n;
    clones.fd[i] = -1;
    struct stat st;
    if (paths[i].mode == BoundPath::kHidden) continue;  // nothing of it is kept
    const char* from = paths[i].source != nullptr ? paths[i].source : paths[i].path;
    if (paths[i].path[0] != '/' || from[0] != '/' || stat(from, &st) != 0 ||
        !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
      continue;
    }
    clones.directory[i] = S_ISDIR(st.st_mode);
    clones.fd[i] = open_tree(AT_FDCWD, from, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (clones.fd[i] < 0) return errno;
  }
  bool mounted[kFreshDirectoryCount] = {};
  unsigned fresh = 0;
  for (int r = 0; r < kFreshDirectoryCount; ++r) {
    const char* dir = kFreshDirectories[r];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      // Absent, and a read-only file system keeps it so.
      if (root_private) fresh |= 1u << r;
      continue;
    }
    // In a chroot a tmpfs can go only on a mount point made private first:
    // mounted in a shared mount, it would show in the namespace that mount
    // came from.
    if (!root_private && mount(nullptr, dir, nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) continue;
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, kFreshTmpfsOptions) != 0) return errno;
    mounted[r] = true;
    fresh |= 1u << r;
  }
  // Each path at its own path, in order: a later one lies on top of an
  // earlier one it is in.
  for (int i = 0; i < n_paths; ++i) {
    const BoundPath& p = paths[i];
    const int under = FreshDirectoryOf(p.path, mounted);
    if (p.mode == BoundPath::kHidden) {
      if (const int error = Hide(p.path, root_private && under == -1)) return error;
      continue;
    }
    if (under == -2) {
      clones.Drop(i);  // a fresh directory itself stays fresh
      continue;
    }
    if (p.mode == BoundPath::kWritableOrEmpty && under >= 0 && clones.fd[i] < 0) {
      if (const int error = MakeMountPoint(p.path, true, 0700)) return error;
      continue;
    }
    // In a chroot the file system stays as it is but under a fresh tmpfs.
    if (clones.fd[i] < 0 || (under < 0 && !root_private)) {
      clones.Drop(i);
      continue;
    }
    if (under >= 0) {
      if (const int error = MakeMountPoint(p.path, clones.directory[i], 0700)) return error;
    }
    if (move_mount(clones.fd[i], "", AT_FDCWD, p.path,
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS) != 0) {
      return errno;
    }
    clones.Drop(i);
    // A copy of a shared mount is one of its peers: made private before
    // anything lands on it (only a chroot's mounts can still be shared).
    if (!root_private && mount(nullptr, p.path, nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      return errno;
    }
    mount_attr* attr = p.mode == BoundPath::kReadOnly ? &read_only_attr : &writable_attr;
    if (mount_setattr(AT_FDCWD, p.path, AT_RECURSIVE, attr, sizeof *attr) != 0 &&
        (root_private || errno != ENOSYS)) {
      return errno;
    }
  }
  // The working directory was taken before the mounts covered it: taken
  // again by its name, it is the one on top; one bound at another path is
  // taken there. One a fresh tmpfs hid (the launcher's own, in /tmp) is
  // left for /: kept, it would reach what the tmpfs covers.
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) {
    const char* again = cwd;
    for (int i = 0; i < n_paths; ++i) {
      if (paths[i].source != nullptr && strcmp(paths[i].source, cwd) == 0) again = paths[i].path;
    }
    if (chdir(again) != 0 && (errno != ENOENT || chdir("/") != 0)) return errno;
  }
  view->read_only = root_private;
  view->fresh = fresh;
  return 0;
}

}  // namespace workgate
