#include "workload/build_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workgate {

namespace {

// The first workload that runs {exe} as its program, or nullptr.
const Workload* RunsTheBuild(const std::vector<Workload>& workloads) {
  for (const Workload& w : workloads) {
    if (!w.command.empty() && w.command[0] == "{exe}") return &w;
  }
  return nullptr;
}

// Whether the file starts like something exec can run: the ELF magic or "#!".
bool LooksExecutable(const std::string& path, std::string* head_err) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    *head_err = fmt::format("cannot be read: {}", strerror(errno));
    return false;
  }
  char head[4] = {};
  const ssize_t n = read(fd, head, sizeof head);
  close(fd);
  if (n >= 4 && memcmp(head,
                       "\x7f"
                       "ELF",
                       4) == 0)
    return true;
  if (n >= 2 && head[0] == '#' && head[1] == '!') return true;
  *head_err = "is neither an ELF executable nor a script that starts with #!";
  return false;
}

}  // namespace

bool CheckBuild(const std::string& build, const std::vector<Workload>& workloads,
                std::string* err) {
  struct stat st;
  if (stat(build.c_str(), &st) != 0) {
    *err = errno == ENOENT || errno == ENOTDIR
               ? fmt::format("the build {} does not exist", build)
               : fmt::format("the build {} cannot be reached: {}", build, strerror(errno));
    return false;
  }
  const Workload* runs = RunsTheBuild(workloads);
  if (runs == nullptr) return true;  // {exe} is a folder to look in, or another program's input
  const std::string why = fmt::format("workload '{}' runs {{exe}} as its program", runs->name);
  if (S_ISDIR(st.st_mode)) {
    *err = fmt::format(
        "the build {} is a directory, and {}: give the program's file (for example {}/PROG), or "
        "write the command as [\"{{exe}}/PROG\", ...]",
        build, why, build);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *err = fmt::format("the build {} is not a regular file, and {}: give the built program", build,
                       why);
    return false;
  }
  if ((st.st_mode & 0111) == 0 || access(build.c_str(), X_OK) != 0) {
    *err = fmt::format(
        "the build {} is not executable (mode {:04o}), and {}: give the built program, or "
        "make it executable (chmod +x)",
        build, st.st_mode & 07777, why);
    return false;
  }
  std::string head_err;
  if (!LooksExecutable(build, &head_err)) {
    *err = fmt::format("the build {} {}, and {}: give the built program", build, head_err, why);
    return false;
  }
  return true;
}

}  // namespace workgate
