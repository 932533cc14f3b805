#include "report/report_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "util/atomic_file.h"
#include "util/text.h"

namespace workgate {
namespace {

std::string StreamName(FILE* stream) {
  if (stream == stdout) return "standard output";
  if (stream == stderr) return "standard error";
  return "the output";
}

std::string CannotWrite(const std::string& what, FILE* stream, int error) {
  return "cannot write " + what + " to " + StreamName(stream) + ": " +
         (error != 0 ? std::strerror(error) : "write error");
}

// The first text that did not reach standard output. Writes come from more
// than one thread (count's pass-through is fed by the launch's reader).
struct LostOutput {
  bool lost = false;
  bool reported = false;  // a caller of PrintText was given the message
  int error = 0;
  std::string what;
};

std::mutex& LostOutputMutex() {
  static std::mutex m;
  return m;
}

LostOutput& Lost() {
  static LostOutput lost;
  return lost;
}

void NoteLost(FILE* stream, const std::string& what, int error, bool reported) {
  if (stream != stdout) return;
  std::lock_guard<std::mutex> lock(LostOutputMutex());
  LostOutput& lost = Lost();
  if (!lost.lost) {
    lost.lost = true;
    lost.error = error;
    lost.what = what;
  }
  lost.reported = lost.reported || reported;
}

// Writes and flushes; the errno of the failure, or -1 when there was none.
int WriteAndFlush(std::string_view text, FILE* stream) {
  errno = 0;
  const bool written = fwrite(text.data(), 1, text.size(), stream) == text.size();
  const bool flushed = fflush(stream) == 0;
  if (written && flushed && !ferror(stream)) return -1;
  return errno;
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
  const int error = WriteAndFlush(text, stream);
  if (error < 0) return true;
  NoteLost(stream, what, error, /*reported=*/true);
  *err = CannotWrite(what, stream, error);
  return false;
}

void WriteText(std::string_view text, FILE* stream, const std::string& what) {
  const int error = WriteAndFlush(text, stream);
  if (error >= 0) NoteLost(stream, what, error, /*reported=*/false);
}

bool StandardOutputLost(const std::string& what, std::string* err) {
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) NoteLost(stdout, what, errno, /*reported=*/false);
  std::lock_guard<std::mutex> lock(LostOutputMutex());
  const LostOutput& lost = Lost();
  if (!lost.lost) return false;
  *err = lost.reported ? "" : CannotWrite(lost.what, stdout, lost.error);
  return true;
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
