/* hot_prog: a small process tree whose work in one function is known
 * exactly, compiled twice by tests/explain/callgrind_real_test.cc (a
 * baseline and a candidate with more iterations) and profiled under
 * callgrind.
 *
 *   hot_prog tree        main thread + a second thread + a forked child +
 *                        a forked-and-exec'd child, each calling
 *                        hot_function once
 *   hot_prog threads     main thread + a second thread only (no fork)
 *   hot_prog exec-child  the exec'd child's own work (one thread, one
 *                        process: its count is the same on every run)
 *
 * hot_function is written in assembly so that its instruction count is
 * exact and no compiler can change it: for n >= 1 it retires 2 * n + 4
 * instructions (mov, test, jz, n times dec+jnz, ret). The WORK_* macros
 * give the iterations of each call; the candidate build adds to them.
 * Everything else does the same work in both builds, and nothing printed
 * depends on the iteration counts.
 */
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef WORK_MAIN
#define WORK_MAIN 1000
#endif
#ifndef WORK_THREAD
#define WORK_THREAD 2000
#endif
#ifndef WORK_FORK
#define WORK_FORK 3000
#endif
#ifndef WORK_EXEC
#define WORK_EXEC 4000
#endif

unsigned long hot_function(unsigned long n);

#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".globl hot_function\n"
    ".type hot_function, @function\n"
    "hot_function:\n"
    "  mov %rdi, %rax\n"
    "  test %rax, %rax\n"
    "  jz 2f\n"
    "1:\n"
    "  dec %rax\n"
    "  jnz 1b\n"
    "2:\n"
    "  ret\n"
    ".size hot_function, .-hot_function\n");
#else
#error "hot_prog: hot_function is written for x86-64 only"
#endif

/* Recursion exercises callgrind's recursion-level names (fn'2). The empty
 * asm keeps the compiler from turning the recursion into a loop. */
__attribute__((noinline)) static unsigned long recurse(unsigned long depth) {
  if (depth == 0) return 0;
  unsigned long r = recurse(depth - 1);
  __asm__ volatile("" : "+r"(r));
  return r + 1;
}
static volatile unsigned long recursion_depth = 5;

static void* thread_main(void* arg) {
  (void)arg;
  hot_function(WORK_THREAD);
  return NULL;
}

static int run_thread(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, thread_main, NULL) != 0) return 1;
  return pthread_join(thread, NULL) != 0;
}

static int wait_child(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int failed = recurse(recursion_depth) != 5;
  if (strcmp(argv[1], "exec-child") == 0) {
    hot_function(WORK_EXEC);
    return failed;
  }
  if (strcmp(argv[1], "threads") == 0) {
    failed |= run_thread();
    hot_function(WORK_MAIN);
    return failed;
  }
  if (strcmp(argv[1], "tree") != 0) return 2;
  failed |= run_thread();
  pid_t pid = fork();
  if (pid == 0) {
    hot_function(WORK_FORK);
    _exit(0);
  }
  failed |= wait_child(pid);
  pid = fork();
  if (pid == 0) {
    execl(argv[0], argv[0], "exec-child", (char*)NULL);
    _exit(127);
  }
  failed |= wait_child(pid);
  hot_function(WORK_MAIN);
  return failed;
}
