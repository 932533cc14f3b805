#pragma once
// Reading the kernel's process table (/proc) without allocating: the
// launcher's supervisor uses it in a forked child of a multi-threaded
// process, where only async-signal-safe calls are allowed (signal-safety(7)),
// and workgate itself uses it to find processes that escaped their tree.

#include <sys/types.h>

namespace workgate {

/// One process whose parent is the one asked about.
struct ChildProcess {
  pid_t pid;
  bool zombie;  // exited, not yet reaped: no longer running
};

/// Lists up to `max` processes whose parent is `parent`, by reading
/// /proc/<pid>/stat for every process (proc(5): the 4th field is the ppid).
/// Returns how many it stored, or -1 when /proc cannot be read.
/// Async-signal-safe: open, getdents64, read and close only.
int ListChildren(pid_t parent, ChildProcess* out, int max);

/// Parses the parent pid and state from the text of /proc/<pid>/stat
/// ("1234 (name) S 1 ..."): the name may hold spaces and parentheses, so the
/// fields start after the last ')'. False when the text is malformed.
bool ParseProcStat(const char* text, int len, pid_t* ppid, char* state);

}  // namespace workgate
