/* A program interpreter (PT_INTERP) that a hostile build names in place of
 * ld.so: started for any program that names it, it leaves a daemon that
 * holds stdout open and exits without running the program. Freestanding: an
 * interpreter gets no C library. It records its daemon's pid, as hostile.c
 * does, where HOSTILE_PIDS says.
 *
 * Built for x86-64 and aarch64 only (tests/CMakeLists.txt). */
#include <fcntl.h>
#include <sys/syscall.h>

static long Call(long n, long a, long b, long c, long d) {
#if defined(__x86_64__)
  long r;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return r;
#else
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
#endif
}

static int StartsWith(const char* s, const char* prefix) {
  while (*prefix) {
    if (*s++ != *prefix++) return 0;
  }
  return 1;
}

/* As hostile.c records: a connection to the abstract Unix socket named
 * after HOSTILE_PIDS (the test asks the kernel who connected), or else the
 * pid /proc names, on a line of that file. */
static void RecordPid(const char* pid_file) {
  struct {
    unsigned short family;
    char path[108];
  } address = {1 /* AF_UNIX */, {0}};
  long n = 0;
  while (pid_file[n] && n < 106) {
    address.path[n + 1] = pid_file[n];
    n++;
  }
  long sock = Call(SYS_socket, 1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0, 0);
  if (sock >= 0) {
    long connected = Call(SYS_connect, sock, (long)&address, sizeof address, 0);
    Call(SYS_close, sock, 0, 0, 0);
    if (connected == 0) return;
  }
  char self[32];
  long len = Call(SYS_readlinkat, AT_FDCWD, (long)"/proc/self", (long)self, sizeof self - 1);
  if (len <= 0) return;
  self[len] = '\n';
  long fd = Call(SYS_openat, AT_FDCWD, (long)pid_file, O_WRONLY | O_APPEND | O_CREAT, 0600);
  if (fd < 0) return;
  Call(SYS_write, fd, (long)self, len + 1, 0);
  Call(SYS_close, fd, 0, 0, 0);
}

/* sp: the initial stack, argc, argv..., 0, envp..., 0 (the ELF ABI). */
__attribute__((used)) void StartC(long* sp) {
  long argc = sp[0];
  char** envp = (char**)(sp + 1 + argc + 1);
  const char* pid_file = 0;
  for (char** e = envp; *e; ++e) {
    if (StartsWith(*e, "HOSTILE_PIDS=")) pid_file = *e + 13;
  }
  /* The daemon says when its pid is recorded, so the pid file is complete
   * once the interpreter has exited. */
  int ready[2];
  if (Call(SYS_pipe2, (long)ready, 0, 0, 0) != 0) Call(SYS_exit_group, 2, 0, 0, 0);
#if defined(__x86_64__)
  long child = Call(SYS_fork, 0, 0, 0, 0);
#else
  long child = Call(SYS_clone, 17 /* SIGCHLD */, 0, 0, 0);
#endif
  if (child == 0) {
    Call(SYS_setsid, 0, 0, 0, 0);
    if (pid_file) RecordPid(pid_file);
    Call(SYS_write, ready[1], (long)"r", 1, 0);
    for (;;) {
      long ts[2] = {3600, 0};
      Call(SYS_nanosleep, (long)ts, 0, 0, 0);
    }
  }
  char c;
  Call(SYS_read, ready[0], (long)&c, 1, 0);
  Call(SYS_exit_group, 0, 0, 0, 0);
}

#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call StartC\n");
#else
__asm__(".globl _start\n_start:\n  mov x0, sp\n  bl StartC\n");
#endif
