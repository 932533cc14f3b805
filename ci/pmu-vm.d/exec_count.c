/* exec_count: the smallest possible user-space instruction counter for a
 * command, as a reference for workgate's launcher (ci/pmu-vm-tests).
 *
 *   exec_count PROG [ARGS...]
 *
 * Forks; the child waits on a pipe while the parent opens instructions:u
 * for it, disabled, with enable_on_exec and inherit; then the child execs
 * PROG with this program's own environment and, like workgate, with
 * address-space randomisation off. Prints the count. What workgate
 * counts for the same program and environment should equal it: any excess
 * is launcher work that leaked into the count.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/personality.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: exec_count PROG [ARGS...]\n");
    return 2;
  }
  int go[2];
  if (pipe(go) != 0) return 1;
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    char c;
    close(go[1]);
    if (read(go[0], &c, 1) != 1) _exit(126);
    personality(ADDR_NO_RANDOMIZE);
    execv(argv[1], argv + 1);
    _exit(127);
  }
  close(go[0]);
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) perror("exec_count: perf_event_open");
  if (write(go[1], "x", 1) != 1) return 1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || fd < 0) return 1;
  uint64_t count = 0;
  if (read(fd, &count, sizeof count) != sizeof count) return 1;
  printf("%llu\n", (unsigned long long)count);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
