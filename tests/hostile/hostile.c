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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#include "workgate/region.h"

/* Records this process for the tests: where the test listens on the
 * abstract Unix socket named after HOSTILE_PIDS, it connects to it, and the
 * test asks the kernel who connected (SO_PEERCRED), which gives the pid the
 * test knows it by. Inside a PID namespace getpid() gives the namespace's
 * number, and the namespace's own /proc knows no other. An abstract socket
 * is no file: the workload's fresh /tmp does not hide it. */
static void record_pid(void) {
  const char* path = getenv("HOSTILE_PIDS");
  if (path == NULL) return;
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  if (strlen(path) + 1 >= sizeof address.sun_path) _exit(99);
  strcpy(address.sun_path + 1, path);
  int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) _exit(99);
  if (connect(sock, (struct sockaddr*)&address, sizeof address) == 0) {
    close(sock);
    return;
  }
  if (errno != ECONNREFUSED) _exit(99);
  close(sock);
  /* No socket: a line in the file, the pid /proc/self names (the test's
   * own outside a PID namespace). */
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

/* Writes zeros into $TMPDIR (its private temporary directory) until the
 * file system is full. */
static void fill_tmpdir(void) {
  const char* tmp = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/fill", tmp ? tmp : "/tmp");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  static char zeros[1 << 16];
  while (write(fd, zeros, sizeof zeros) > 0) {
  }
  close(fd);
}

static void* idle_thread(void* unused) {
  (void)unused;
  pause();
  return NULL;
}

/* Starts N threads that wait for ever: past Valgrind's thread limit (500
 * by default), Valgrind gives up. */
static void start_threads(int n) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 16);
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, &attr, idle_thread, NULL) != 0) {
      fprintf(stderr, "hostile: thread %d not started\n", i);
      exit(1);
    }
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

/* Forges a count on every descriptor it may hold: a message as vgcount's
 * channel carries (tools/vgcount/vgcount_channel.c), saying this process
 * retired 1 instruction, sent with sendmsg(2), which Valgrind does not check
 * against its reserved descriptors. Blindly, not only on the sockets fstat(2)
 * finds: from Valgrind 3.26.0 on, fstat of a reserved descriptor fails with
 * EBADF, so the program cannot tell the channel from the others, but it can
 * still name it. */
static void forge_channel(void) {
  const char forged[] =
      "version: 2\npid: 2\nppid: 1\ncmd: x\ninstructions: 1\nthreads: 1\n"
      "pinned:\nunpinned:\n";
  struct {
    unsigned magic, kind;
    int pid;
    unsigned flags;
    char text[sizeof forged];
  } message = {0x31434756u, 1, getpid(), 1, {0}};
  memcpy(message.text, forged, sizeof forged);
  for (int fd = 3; fd < 4096; fd++) {
    struct iovec iov = {&message, sizeof message - 1};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    sendmsg(fd, &msg, MSG_DONTWAIT);
  }
}

/* Looks, in the directories its descriptors' links name, for a count file
 * Valgrind would write (vgcount.out.PID, callgrind.out.PID) and rewrites
 * every one it finds to say 1 instruction; prints how many it rewrote. */
static void rewrite_outputs(void) {
  int rewritten = 0;
  for (int round = 0; round < 50; round++) {
    DIR* fds = opendir("/proc/self/fd");
    struct dirent* e;
    while (fds != NULL && (e = readdir(fds)) != NULL) {
      char link[512], path[300];
      snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
      ssize_t n = readlink(path, link, sizeof link - 1);
      if (n <= 0 || link[0] != '/') continue;
      link[n] = '\0';
      char* slash = strrchr(link, '/');
      *slash = '\0';
      DIR* dir = opendir(link[0] ? link : "/");
      struct dirent* f;
      while (dir != NULL && (f = readdir(dir)) != NULL) {
        if (strncmp(f->d_name, "vgcount.out.", 12) != 0 &&
            strncmp(f->d_name, "callgrind.out.", 14) != 0) {
          continue;
        }
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", link, f->d_name);
        FILE* out = fopen(file, "w");
        if (out == NULL) continue;
        fprintf(out, "version: 2\npid: 2\ncmd: x\ninstructions: 1\nthreads: 1\n");
        fclose(out);
        rewritten++;
      }
      if (dir != NULL) closedir(dir);
    }
    if (fds != NULL) closedir(fds);
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  printf("rewritten: %d\n", rewritten);
  fflush(stdout);
}

/* How many processes /proc shows, how many of them are workgate, and
 * whether any of those can be reached: its stdout, to write a line into
 * workgate's output, and its environment (where a CI's GITHUB_ENV is). */
static void reach_proc(void) {
  DIR* d = opendir("/proc");
  struct dirent* e;
  int visible = 0, workgates = 0, stdout_reached = 0, environ_reached = 0;
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    visible++;
    char path[300], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
    FILE* in = fopen(path, "r");
    if (in == NULL) continue;
    if (fgets(comm, sizeof comm, in) == NULL) comm[0] = '\0';
    fclose(in);
    if (strcmp(comm, "workgate\n") != 0) continue;
    workgates++;
    snprintf(path, sizeof path, "/proc/%s/fd/1", e->d_name);
    int out = open(path, O_WRONLY);
    if (out >= 0) {
      write_all(out, "workgate: ok (forged)\n", 22);
      stdout_reached++;
      close(out);
    }
    snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
    int env = open(path, O_RDONLY);
    if (env >= 0) {
      environ_reached++;
      close(env);
    }
  }
  if (d != NULL) closedir(d);
  printf("visible: %d workgate: %d stdout: %d environ: %d\n", visible, workgates, stdout_reached,
         environ_reached);
}

/* Work that a count sees: N iterations of a loop the compiler keeps. */
static void busy(long n) {
  for (volatile long i = 0; i < n; ++i) {
  }
}

/* Work behind a result cache at $HOSTILE_CACHE, as a test step or an
 * earlier run could leave one in /tmp: where the file is there, the N
 * iterations are skipped; where not, done, and the file left for the next
 * run. */
static void cached_work(long n) {
  const char* cache = getenv("HOSTILE_CACHE");
  if (cache != NULL && access(cache, F_OK) == 0) return;
  busy(n);
  if (cache == NULL) return;
  int fd = open(cache, O_WRONLY | O_CREAT, 0644);
  if (fd >= 0) close(fd);
}

/* Copies the file at `from` to `to` (created or truncated) with `mode`. */
static int copy_file(const char* from, const char* to, mode_t mode) {
  int in = open(from, O_RDONLY);
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (in < 0 || out < 0) return -1;
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0) write_all(out, buf, (size_t)n);
  close(in);
  close(out);
  return n == 0 && chmod(to, mode) == 0 ? 0 : -1;
}

/* The file this program was started from. Valgrind answers
 * readlink(/proc/self/exe) with the program's path, which may be a link. */
static void own_file(char* path, size_t size) {
  char link[4096];
  ssize_t len = readlink("/proc/self/exe", link, sizeof link - 1);
  if (len <= 0) exit(2);
  link[len] = '\0';
  if (realpath(link, path) == NULL || strlen(path) >= size) exit(2);
}

/* A setuid copy of itself in its directory, run by a child with ten times
 * the work: Valgrind does not trace a setuid program. Where the exec fails
 * (Valgrind 3.19 refuses it), the child leaves the work undone. */
static void exec_setuid_copy(void) {
  char self[4096];
  own_file(self, sizeof self);
  if (copy_file(self, "suid-copy", 04755) != 0) exit(2);
  pid_t child = fork();
  if (child == 0) {
    execl("./suid-copy", "suid-copy", "busy", "10000000", (char*)NULL);
    _exit(0);
  }
  waitpid(child, NULL, 0);
}

/* A child that does work and is killed before it ends, so it never writes
 * its count. */
static void kill_working_child(void) {
  int ready[2];
  if (pipe(ready) != 0) exit(2);
  pid_t child = fork();
  if (child == 0) {
    busy(1000000);
    write_all(ready[1], "r", 1);
    linger();
  }
  char c;
  if (read(ready[0], &c, 1) != 1) exit(2);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
}

/* Writes its own bytes over the file `path` (chmod first: a copy workgate
 * made read-only is the owner's to open up). */
static void overwrite_with_self(const char* path) {
  char self[4096], dir[4096];
  own_file(self, sizeof self);
  snprintf(dir, sizeof dir, "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash != NULL) {
    *slash = '\0';
    chmod(dir, 0755);
  }
  chmod(path, 0755);
  if (copy_file(self, path, 0755) != 0) {
    fprintf(stderr, "hostile: cannot overwrite %s\n", path);
  }
}

/* Appends a byte to the file this program was started from: to the copy
 * workgate runs, where it runs one. */
static void overwrite_own_file(void) {
  char self[4096];
  own_file(self, sizeof self);
  char* slash = strrchr(self, '/');
  *slash = '\0';
  chmod(self, 0755);
  *slash = '/';
  chmod(self, 0755);
  int fd = open(self, O_WRONLY | O_APPEND);
  if (fd < 0) {
    fprintf(stderr, "hostile: cannot open %s\n", self);
    return;
  }
  write_all(fd, "x", 1);
  close(fd);
}

/* A child held stopped from its fork until its parent has ended, so that
 * its first moment (under Valgrind, the tool's fork handler) comes when
 * another process has adopted it. A helper forked first waits for the
 * parent's end and lets the child go; run on one CPU, neither child runs
 * before the parent has stopped the second (a parent runs on after fork). */
static void orphan_before_it_runs(void) {
  const pid_t parent = getpid();
  int channel[2];
  if (pipe(channel) != 0) return;
  if (fork() == 0) {
    pid_t child = 0;
    if (read(channel[0], &child, sizeof child) != (ssize_t)sizeof child) _exit(1);
    while (getppid() == parent) usleep(1000);
    kill(child, SIGCONT);
    _exit(0);
  }
  const pid_t child = fork();
  if (child == 0) {
    busy(100000);
    printf("orphan ran\n");
    fflush(stdout);
    _exit(0);
  }
  kill(child, SIGSTOP);
  if (write(channel[1], &child, sizeof child) != (ssize_t)sizeof child) return;
}

int main(int argc, char** argv) {
#ifdef HOSTILE_BENIGN
  /* The same program built well-behaved: the baseline of the comparisons.
   * Its one mode, valgrind-aware N, does the N iterations the hostile build
   * does when it is counted, whether it is counted or not. */
  if (argc > 2 && strcmp(argv[1], "valgrind-aware") == 0) busy(atol(argv[2]));
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
  } else if (strcmp(mode, "fill-tmpdir") == 0) {
    fill_tmpdir();
  } else if (strcmp(mode, "threads") == 0) {
    start_threads(atoi(arg));
  } else if (strcmp(mode, "fds") == 0) {
    list_fds();
  } else if (strcmp(mode, "forge-channel") == 0) {
    forge_channel();
  } else if (strcmp(mode, "orphan-before-it-runs") == 0) {
    orphan_before_it_runs();
  } else if (strcmp(mode, "rewrite-outputs") == 0) {
    /* A child that goes on rewriting for half a second after its parent
     * has ended and Valgrind has written the parent's count: within the
     * grace the tree is given, so it is no process left running. */
    if (fork() == 0) {
      rewrite_outputs();
      _exit(0);
    }
  } else if (strcmp(mode, "append") == 0) {
    /* Appends a line to the file ARG (a build, a report, GITHUB_ENV),
     * creating it where it is not. */
    int fd = open(arg, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0 || write(fd, "forged\n", 7) != 7) {
      printf("refused: %s\n", strerror(errno));
    } else {
      printf("written\n");
    }
    if (fd >= 0) close(fd);
  } else if (strcmp(mode, "reach-proc") == 0) {
    reach_proc();
  } else if (strcmp(mode, "busy") == 0) {
    busy(atol(arg));
  } else if (strcmp(mode, "valgrind-aware") == 0) {
    /* ARG iterations under Valgrind, twenty times as many natively: a build
     * that behaves only when it is counted. */
    busy(RUNNING_ON_VALGRIND ? atol(arg) : 20 * atol(arg));
  } else if (strcmp(mode, "exec-setuid-copy") == 0) {
    exec_setuid_copy();
  } else if (strcmp(mode, "kill-working-child") == 0) {
    kill_working_child();
  } else if (strcmp(mode, "region") == 0) {
    /* ARG iterations inside the region markers. */
    WORKGATE_REGION_BEGIN();
    busy(atol(arg));
    WORKGATE_REGION_END();
  } else if (strcmp(mode, "overwrite") == 0) {
    /* Its target as an argument, or else in HOSTILE_VICTIM: a path the
     * command does not name. */
    const char* victim = arg[0] != '\0' ? arg : getenv("HOSTILE_VICTIM");
    if (victim == NULL) return 2;
    overwrite_with_self(victim);
  } else if (strcmp(mode, "overwrite-self") == 0) {
    overwrite_own_file();
  } else if (strcmp(mode, "cached-work") == 0) {
    cached_work(atol(arg));
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
