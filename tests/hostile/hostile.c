/* A workload that misbehaves on purpose, one way per mode, for the tests of
 * what workgate does with a candidate build it cannot trust. Every process it
 * leaves behind writes its pid to the file named by HOSTILE_PIDS (one line
 * each), so a test can check by pid that nothing of the tree survived.
 *
 *   hostile MODE [ARG]
 *
 * Unless a mode says otherwise it prints "score: 1" and exits 0, so a suite
 * workload with `expect = "1"` sees a valid run. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/* Records this process's pid as the tests see it: inside a PID namespace
 * getpid() gives the namespace's number, while /proc (mounted outside) names
 * the process by the pid its parent namespace knows. */
static void record_pid(void) {
  const char* path = getenv("HOSTILE_PIDS");
  if (path == NULL) return;
  char self[32];
  ssize_t len = readlink("/proc/self", self, sizeof self - 2);
  if (len <= 0) _exit(99);
  self[len] = '\n';
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
  if (fd < 0) _exit(99);
  if (write(fd, self, (size_t)len + 1) != len + 1) _exit(99);
  close(fd);
}

static void write_all(int fd, const char* buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w <= 0) exit(3);
    buf += w;
    n -= (size_t)w;
  }
}

static void linger(void) {
  for (;;) pause();
}

/* A process that leaves the workload's process group and session, and whose
 * parent exits at once, so it is nobody's child any more (a daemon). */
static void start_daemon(int keep_stdout) {
  pid_t first = fork();
  if (first < 0) exit(2);
  if (first > 0) {
    waitpid(first, NULL, 0);
    return;
  }
  setsid();
  /* The grandchild records its pid before its parent exits, so the pid file
   * is complete by the time the workload ends. */
  int ready[2];
  if (pipe(ready) != 0) _exit(2);
  if (fork() != 0) {
    char c;
    close(ready[1]);
    if (read(ready[0], &c, 1) != 1) _exit(2);
    _exit(0);
  }
  close(ready[0]);
  if (!keep_stdout) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
  }
  record_pid();
  write_all(ready[1], "r", 1);
  close(ready[1]);
  linger();
}

/* Prints `bytes` bytes of 80-byte lines of 'x' to stdout, in writes of
 * about 1 MiB (a whole number of lines). */
static void flood(long long bytes) {
  static char chunk[80 * 13107];
  memset(chunk, 'x', sizeof chunk);
  for (size_t i = 79; i < sizeof chunk; i += 80) chunk[i] = '\n';
  while (bytes > 0) {
    size_t n = bytes < (long long)sizeof chunk ? (size_t)bytes : sizeof chunk;
    write_all(1, chunk, n);
    bytes -= (long long)n;
  }
}

static void list_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) exit(2);
  int own = dirfd(d);
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || atoi(e->d_name) == own) continue;
    char link[256], path[300];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = '\0';
    /* Pipes differ by inode between runs; only the kind matters. */
    if (strncmp(link, "pipe:", 5) == 0) strcpy(link, "pipe");
    printf("fd %s %s\n", e->d_name, link);
  }
  closedir(d);
}

int main(int argc, char** argv) {
#ifdef HOSTILE_BENIGN
  /* The same program built well-behaved: the baseline of the comparisons. */
  (void)argc;
  (void)argv;
  printf("score: 1\n");
  return 0;
#endif
  const char* mode = argc > 1 ? argv[1] : "";
  const char* arg = argc > 2 ? argv[2] : "";
  if (strcmp(mode, "daemon") == 0) {
    /* A daemon that holds no pipe: outlives a normal exit. */
    start_daemon(0);
  } else if (strcmp(mode, "daemon-holding-stdout") == 0) {
    /* A daemon that keeps stdout open: EOF never comes while it lives. */
    start_daemon(1);
  } else if (strcmp(mode, "daemons") == 0) {
    for (int i = 0; i < atoi(arg); ++i) start_daemon(0);
  } else if (strcmp(mode, "kill-supervisor") == 0) {
    /* Kills the process that watches it, after leaving a daemon behind. */
    start_daemon(1);
    kill(getppid(), SIGKILL);
    linger();
  } else if (strcmp(mode, "spin") == 0) {
    record_pid();
    for (volatile unsigned long i = 0;; ++i) {
    }
  } else if (strcmp(mode, "spin-with-daemon") == 0) {
    start_daemon(1);
    record_pid();
    for (volatile unsigned long i = 0;; ++i) {
    }
  } else if (strcmp(mode, "ignore-signals") == 0) {
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    record_pid();
    linger();
  } else if (strcmp(mode, "fork-tree") == 0) {
    /* A tree of 2^depth processes; all but the workload itself linger,
     * each telling the workload once its pid is recorded. */
    const pid_t root = getpid();
    const int depth = atoi(arg);
    int ready[2];
    if (pipe(ready) != 0) return 2;
    for (int i = 0; i < depth; ++i) {
      if (fork() < 0) return 2;
    }
    if (getpid() != root) {
      record_pid();
      write_all(ready[1], "r", 1);
      linger();
    }
    close(ready[1]);
    for (int left = (1 << depth) - 1; left > 0; --left) {
      char c;
      if (read(ready[0], &c, 1) != 1) return 2;
    }
  } else if (strcmp(mode, "flood") == 0) {
    flood(atoll(arg));
  } else if (strcmp(mode, "flood-stderr") == 0) {
    dup2(2, 1);
    flood(atoll(arg));
    return 1;
  } else if (strcmp(mode, "long-score") == 0) {
    /* "score: " and then ARG digits on one line. */
    write_all(1, "score: ", 7);
    long long digits = atoll(arg);
    static char ones[1 << 16];
    memset(ones, '1', sizeof ones);
    while (digits > 0) {
      size_t n = digits < (long long)sizeof ones ? (size_t)digits : sizeof ones;
      write_all(1, ones, n);
      digits -= (long long)n;
    }
    write_all(1, "\n", 1);
    return 0;
  } else if (strcmp(mode, "line") == 0) {
    /* hostile line PREFIX CHAR N: PREFIX and N copies of CHAR on one line. */
    const char* fill = argc > 3 ? argv[3] : "x";
    long long n = argc > 4 ? atoll(argv[4]) : 0;
    write_all(1, arg, strlen(arg));
    static char run[1 << 16];
    memset(run, fill[0], sizeof run);
    while (n > 0) {
      size_t k = n < (long long)sizeof run ? (size_t)n : sizeof run;
      write_all(1, run, k);
      n -= (long long)k;
    }
    write_all(1, "\n", 1);
    return 0;
  } else if (strcmp(mode, "sandwich") == 0) {
    /* Its score between two floods of ARG bytes: found only by reading all. */
    flood(atoll(arg));
    write_all(1, "score: 7\n", 9);
    flood(atoll(arg));
    return 0;
  } else if (strcmp(mode, "stop") == 0) {
    record_pid();
    raise(SIGSTOP);
  } else if (strcmp(mode, "print") == 0) {
    /* ARG as it is: escape sequences, invalid UTF-8, markup. */
    write_all(1, arg, strlen(arg));
    write_all(1, "\n", 1);
  } else if (strcmp(mode, "fail") == 0) {
    fprintf(stderr, "hostile: %s\n", arg);
    return 1;
  } else if (strcmp(mode, "fds") == 0) {
    list_fds();
  } else if (strcmp(mode, "sleep") == 0) {
    record_pid();
    struct timespec t = {atoi(arg), 0};
    nanosleep(&t, NULL);
  } else {
    fprintf(stderr, "hostile: unknown mode '%s'\n", mode);
    return 2;
  }
  printf("score: 1\n");
  return 0;
}
