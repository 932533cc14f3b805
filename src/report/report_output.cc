#include "report/report_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/atomic_file.h"
#include "util/text.h"

namespace workgate {
namespace {

std::string StreamName(FILE* stream) {
  if (stream == stdout) return "standard output";
  if (stream == stderr) return "standard error";
  return "the output";
}

}  // namespace

bool WriteJsonFile(const std::string& path, const nlohmann::json& doc, const std::string& what,
                   std::string* err) {
  return WriteTextFile(path, JsonText(doc), what, err);
}

bool WriteTextFile(const std::string& path, std::string_view text, const std::string& what,
                   std::string* err) {
  if (IsStandardOutput(path)) return PrintText(text, stdout, what, err);
  if (!WriteFileAtomically(path, text, err)) {
    *err = "cannot write " + what + ": " + *err;
    return false;
  }
  return true;
}

bool PrintJson(const nlohmann::json& doc, FILE* stream, const std::string& what, std::string* err) {
  return PrintText(JsonText(doc), stream, what, err);
}

bool PrintText(std::string_view text, FILE* stream, const std::string& what, std::string* err) {
  errno = 0;
  const bool written = fwrite(text.data(), 1, text.size(), stream) == text.size();
  const bool flushed = fflush(stream) == 0;
  if (written && flushed && !ferror(stream)) return true;
  const int error = errno;
  *err = "cannot write " + what + " to " + StreamName(stream) + ": " +
         (error != 0 ? std::strerror(error) : "write error");
  return false;
}

bool AppendToFile(const std::string& path, std::string_view text, std::string* err) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    *err = "cannot append to " + path + ": " + std::strerror(errno);
    return false;
  }
  while (!text.empty()) {
    ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "cannot append to " + path + ": " + std::strerror(n < 0 ? errno : EIO);
      close(fd);
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  // close(2) reports the errors of writes that NFS and others defer.
  if (close(fd) != 0) {
    *err = "cannot append to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace workgate
