#include "launch/process_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace workgate {

namespace {

// The record getdents64(2) fills; glibc declares no type for it before 2.30.
struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Parses a decimal pid; false for anything else ("self", "sys").
bool ParsePid(const char* s, pid_t* out) {
  if (*s == '\0') return false;
  long v = 0;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9' || v > 100000000) return false;
    v = v * 10 + (*s - '0');
  }
  *out = static_cast<pid_t>(v);
  return true;
}

// "/proc/<pid>/stat" into `buf` without snprintf (not async-signal-safe).
void StatPath(const char* pid_text, char* buf, size_t size) {
  static const char kPrefix[] = "/proc/";
  static const char kSuffix[] = "/stat";
  size_t n = 0;
  for (const char* p = kPrefix; *p && n + 1 < size; ++p) buf[n++] = *p;
  for (const char* p = pid_text; *p && n + 1 < size; ++p) buf[n++] = *p;
  for (const char* p = kSuffix; *p && n + 1 < size; ++p) buf[n++] = *p;
  buf[n] = '\0';
}

}  // namespace

bool ParseProcStat(const char* text, int len, pid_t* ppid, char* state) {
  int close = -1;
  for (int i = 0; i < len; ++i) {
    if (text[i] == ')') close = i;
  }
  // ") S 1234 ..."
  if (close < 0 || close + 4 >= len || text[close + 1] != ' ' || text[close + 3] != ' ') {
    return false;
  }
  *state = text[close + 2];
  long v = 0;
  int i = close + 4;
  if (i >= len || text[i] < '0' || text[i] > '9') return false;
  for (; i < len && text[i] >= '0' && text[i] <= '9'; ++i) v = v * 10 + (text[i] - '0');
  *ppid = static_cast<pid_t>(v);
  return true;
}

int ListChildren(pid_t parent, ChildProcess* out, int max) {
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  int count = 0;
  alignas(LinuxDirent64) char buf[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      pid_t pid;
      if (!ParsePid(d->d_name, &pid)) continue;
      char path[64];
      StatPath(d->d_name, path, sizeof path);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;  // it exited meanwhile
      char stat[512];
      ssize_t len = read(fd, stat, sizeof stat);
      close(fd);
      pid_t ppid;
      char state;
      if (len <= 0 || !ParseProcStat(stat, static_cast<int>(len), &ppid, &state)) continue;
      if (ppid != parent || count >= max) continue;
      out[count++] = ChildProcess{pid, state == 'Z' || state == 'X'};
    }
  }
  close(dir);
  return count;
}

}  // namespace workgate
