#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>

#include "util/paths.h"

namespace workgate {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// A unique sibling name. mkstemp would do, but it creates files with mode
// 0600; opening our own name with O_EXCL and mode 0666 lets the umask decide,
// as it would for a plain write, without touching the process-wide umask.
std::string TempNameFor(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  static const uint64_t salt = std::random_device{}();
  return path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1)) +
         "." + std::to_string(salt % 1000000);
}

bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool WriteFileAtomically(const std::string& path, std::string_view content, std::string* err) {
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = TempNameFor(path);
    fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) {
      *err = Errno("cannot create " + temp);
      return false;
    }
  }
  if (fd < 0) {
    *err = "cannot create a temporary file beside " + path;
    return false;
  }
  auto fail = [&](const std::string& what) {
    *err = Errno(what);
    if (fd >= 0) close(fd);
    unlink(temp.c_str());
    return false;
  };
  if (!WriteAll(fd, content)) return fail("cannot write " + temp);
  // Without fsync before rename, a crash can leave the new name pointing at
  // an empty file on ext4 and others (rename(2) orders nothing on its own).
  if (fsync(fd) != 0) return fail("cannot fsync " + temp);
  int rc = close(fd);
  fd = -1;
  if (rc != 0) return fail("cannot close " + temp);
  if (rename(temp.c_str(), path.c_str()) != 0) return fail("cannot rename " + temp + " to " + path);
  // Make the rename itself durable; failing here does not undo the write.
  int dir = open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
  return true;
}

}  // namespace workgate
