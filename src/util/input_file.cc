#include "util/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace workgate {

namespace {

// The type of file at `st`, for a message; empty when it is a regular file.
std::string NotRegular(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
  if (S_ISFIFO(st.st_mode)) return "is a pipe, not a regular file";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "is a device, not a regular file";
  return "is not a regular file";
}

}  // namespace

bool ReadRegularFile(const std::string& path, size_t max_bytes, std::string* text,
                     std::string* why) {
  text->clear();
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *why = errno == ENOENT ? "does not exist"
                           : fmt::format("cannot be read: {}", std::strerror(errno));
    return false;
  }
  if (*why = NotRegular(st); !why->empty()) return false;
  // O_NONBLOCK: if the path became a FIFO since stat, open must not wait for a writer.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *why = fmt::format("cannot be read: {}", std::strerror(errno));
    return false;
  }
  if (fstat(fd, &st) != 0) {
    *why = fmt::format("cannot be read: {}", std::strerror(errno));
  } else if (*why = NotRegular(st); why->empty() && static_cast<uint64_t>(st.st_size) > max_bytes) {
    *why = fmt::format("is too large: {} bytes, at most {}", st.st_size, max_bytes);
  } else if (why->empty()) {
    text->reserve(static_cast<size_t>(st.st_size));
  }
  // Reads to the end, which a file that grows meanwhile may move: the limit
  // holds for what is read, not only for the size fstat saw.
  char buffer[1 << 16];
  while (why->empty()) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = fmt::format("cannot be read: {}", std::strerror(errno));
    } else if (n == 0) {
      break;
    } else if (text->size() + static_cast<size_t>(n) > max_bytes) {
      *why = fmt::format("is too large: more than {} bytes", max_bytes);
    } else {
      text->append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  if (!why->empty()) {
    text->clear();
    return false;
  }
  return true;
}

bool ReadInputFile(const std::string& path, const std::string& what, size_t max_bytes,
                   std::string* text, std::string* err) {
  std::string why;
  if (ReadRegularFile(path, max_bytes, text, &why)) return true;
  *err = fmt::format("{} {} {}", what, path, why);
  return false;
}

}  // namespace workgate
