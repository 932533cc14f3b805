/* A candidate build that attacks its own count under vgcount, one way per
 * mode, for the tests of the count's integrity (counter_integrity_test.cc).
 * Built twice: hostile_counter misbehaves, benign_counter (HOSTILE_BENIGN)
 * does the honest work of every mode.
 *
 *   hostile_counter MODE N
 *
 * The honest work is N iterations of the two-instruction loop; a mode that
 * hides work does 10 N where the count should see it. Every mode prints
 * "score: 1" and exits 0 unless it says otherwise. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#include "two_instruction_loop.h"
#include "workgate/region.h"

static unsigned long n;

static void work(unsigned long times) { two_instruction_loop(times * n); }

static void score(void) {
  printf("score: 1\n");
  fflush(stdout);
}

#ifndef HOSTILE_BENIGN

/* What the first vgcount message of the channel looks like, with a count of
 * 1 instruction: right in every field but the token, which a program cannot
 * know. */
static void send_forged(int fd) {
  struct {
    uint32_t magic, kind;
    int32_t pid;
    uint32_t flags;
    uint8_t token[16];
    char text[64];
  } m;
  memset(&m, 0, sizeof m);
  m.magic = 0x32434756u;
  m.kind = 1;
  m.pid = getpid();
  m.flags = 1;
  snprintf(m.text, sizeof m.text, "version: 2\npid: %d\ninstructions: 1\n", (int)getpid());
  if (write(fd, &m, sizeof m) < 0) return;
}

/* A child copies every descriptor above the program's own (Valgrind's
 * reserved ones: the channel, its log) to 900 and writes a forged count on
 * it; the parent does the work and kills the child, so no count of the
 * child's own follows. */
/* Forks a child that runs `attack`, says so on a pipe and waits; the parent
 * waits for the word, does the work and kills the child, which therefore
 * sends no count of its own. */
static void in_child_then_killed(void (*attack)(void)) {
  int ready[2];
  if (pipe(ready) != 0) exit(3);
  pid_t child = fork();
  if (child == 0) {
    attack();
    if (write(ready[1], "x", 1) != 1) _exit(3);
    pause();
    _exit(0);
  }
  char word;
  if (read(ready[0], &word, 1) != 1) exit(3);
  work(10);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
}

static void dup_and_forge(void) {
  for (int fd = 1024; fd < 1100; fd++) {
    if (dup2(fd, 900) == 900) send_forged(900);
  }
}

/* A ring whose requests would name descriptors no system call shows. */
static void io_uring(void) {
  unsigned char params[120];
  memset(params, 0, sizeof params);
  long fd = syscall(425 /* io_uring_setup */, 4, params);
  if (fd >= 0) close((int)fd);
  work(1);
}

static uintptr_t native_work(uintptr_t tid, uintptr_t times) {
  (void)tid;
  work(times);
  return 0;
}

/* The work done in a child that then unlinks Valgrind's logs (found
 * through its reserved descriptors' names) and is killed: no count, no log. */
static void work_and_unlink_logs(void) {
  work(10);
  for (int fd = 1024; fd < 1100; fd++) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len <= 0 || path[0] != '/') continue;
    path[len] = '\0';
    char* slash = strrchr(path, '/');
    *slash = '\0';
    DIR* dir = opendir(path);
    struct dirent* e;
    while (dir != NULL && (e = readdir(dir)) != NULL) {
      if (strncmp(e->d_name, "valgrind.log.", 13) == 0) unlinkat(dirfd(dir), e->d_name, 0);
    }
    if (dir != NULL) closedir(dir);
  }
}

static void handler_work(int signal_number) {
  (void)signal_number;
  work(10);
}

static void handler_toggles(int signal_number) {
  (void)signal_number;
  CALLGRIND_TOGGLE_COLLECT;
  work(10);
}

/* A region that raises a signal whose handler runs `handler`. */
static void signal_in_region(void (*handler)(int)) {
  signal(SIGUSR1, handler);
  WORKGATE_REGION_BEGIN();
  work(1);
  raise(SIGUSR1);
  WORKGATE_REGION_END();
}

/* Work sized from a file of the machine's: the hundredths of its first
 * number, 1 to 10 times. */
static void sized_from(const char* path) {
  char text[128] = {0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, text, sizeof text - 1) <= 0) exit(3);
  close(fd);
  const char* dot = strchr(text, '.');
  unsigned long hundredths = dot != NULL ? strtoul(dot + 1, NULL, 10) : 0;
  work(1 + hundredths % 10);
}

#endif

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: hostile_counter MODE N\n");
    return 2;
  }
  const char* mode = argv[1];
  n = strtoul(argv[2], NULL, 10);
#ifdef HOSTILE_BENIGN
  // A region for the modes that count one, around the same work.
  const int region = strstr(mode, "region") != NULL || strstr(mode, "handler") != NULL;
  if (region) WORKGATE_REGION_BEGIN();
  work(1);
  if (region) WORKGATE_REGION_END();
#else
  if (strcmp(mode, "forge-dup2") == 0) {
    in_child_then_killed(dup_and_forge);
  } else if (strcmp(mode, "io-uring") == 0) {
    io_uring();
  } else if (strcmp(mode, "zero-stats") == 0) {
    work(10);
    CALLGRIND_ZERO_STATS;
    work(1);
  } else if (strcmp(mode, "toggle") == 0) {
    work(1);
    CALLGRIND_TOGGLE_COLLECT;
    work(10);
    CALLGRIND_TOGGLE_COLLECT;
  } else if (strcmp(mode, "toggle-in-region") == 0) {
    WORKGATE_REGION_BEGIN();
    work(1);
    CALLGRIND_TOGGLE_COLLECT;
    work(10);
    CALLGRIND_TOGGLE_COLLECT;
    WORKGATE_REGION_END();
  } else if (strcmp(mode, "signal-in-region") == 0) {
    signal_in_region(handler_work);
  } else if (strcmp(mode, "toggle-in-handler") == 0) {
    signal_in_region(handler_toggles);
  } else if (strcmp(mode, "native-call") == 0) {
    VALGRIND_NON_SIMD_CALL1(native_work, 10);
    work(1);
  } else if (strcmp(mode, "monitor") == 0) {
    VALGRIND_MONITOR_COMMAND("v.info n_errs_found");
    work(1);
  } else if (strcmp(mode, "exec-after-work") == 0) {
    work(10);
    score();
    execl("/bin/true", "true", (char*)NULL);
    return 4;
  } else if (strcmp(mode, "exec-fails") == 0) {
    work(1);
    execl("/nonexistent/program", "program", (char*)NULL);
    work(1);
  } else if (strcmp(mode, "unlink-logs") == 0) {
    in_child_then_killed(work_and_unlink_logs);
  } else if (strcmp(mode, "uptime") == 0) {
    sized_from("/proc/uptime");
  } else if (strcmp(mode, "loadavg") == 0) {
    sized_from("/proc/loadavg");
  } else {
    fprintf(stderr, "hostile_counter: no mode %s\n", mode);
    return 2;
  }
#endif
  score();
  return 0;
}
