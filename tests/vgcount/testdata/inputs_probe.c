/* Reads the file system in every way vgcount's --vgcount-inputs records,
 * one action per argument pair, in order (tests/vgcount/vgcount_inputs_test.cc):
 *
 *   open PATH          open(PATH, O_RDONLY), absolute or relative
 *   open-rw PATH       O_RDWR
 *   write PATH         O_WRONLY | O_CREAT | O_TRUNC, and a write
 *   openat DIR NAME    open DIR (O_DIRECTORY), then openat(that, NAME)
 *   chdir DIR
 *   stat PATH          stat(2) through the system call itself
 *   lstat PATH         newfstatat(AT_FDCWD, PATH, AT_SYMLINK_NOFOLLOW)
 *   statx PATH         statx(AT_FDCWD, PATH, 0)
 *   fstat PATH         open PATH, then fstat and statx(fd, "", AT_EMPTY_PATH)
 *   access PATH        access(PATH, R_OK)
 *   readlink PATH
 *   list DIR           opendir, readdir to the end
 *   mmap FD            mmap an inherited descriptor
 *   fork PATH          a child opens PATH and exits; the parent waits
 *   exec PATH          execv(PATH): runs PATH if it can, else goes on
 *   missing DIR N      opens DIR/missing-0 ... DIR/missing-(N-1)
 *   long N             opens a path of N bytes
 *
 * Failures of the calls themselves are what some actions are for, so only
 * a misuse of the arguments stops it (status 2).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void Usage(const char* what) {
  fprintf(stderr, "inputs_probe: bad arguments at '%s'\n", what);
  exit(2);
}

static void OpenClose(const char* path, int flags) {
  const int fd = open(path, flags, 0600);
  if (fd >= 0) close(fd);
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const char* action = argv[i];
    if (i + 1 >= argc) Usage(action);
    const char* arg = argv[++i];
    if (strcmp(action, "open") == 0) {
      OpenClose(arg, O_RDONLY);
    } else if (strcmp(action, "open-rw") == 0) {
      OpenClose(arg, O_RDWR);
    } else if (strcmp(action, "write") == 0) {
      const int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        if (write(fd, "x\n", 2) != 2) return 1;
        close(fd);
      }
    } else if (strcmp(action, "openat") == 0) {
      if (i + 1 >= argc) Usage(action);
      const char* name = argv[++i];
      const int dir = open(arg, O_RDONLY | O_DIRECTORY);
      if (dir >= 0) {
        const int fd = openat(dir, name, O_RDONLY);
        if (fd >= 0) close(fd);
        close(dir);
      }
    } else if (strcmp(action, "chdir") == 0) {
      if (chdir(arg) != 0) return 1;
    } else if (strcmp(action, "stat") == 0) {
      struct stat st;
#if defined(SYS_stat)
      syscall(SYS_stat, arg, &st);
#else
      syscall(SYS_newfstatat, AT_FDCWD, arg, &st, 0);
#endif
    } else if (strcmp(action, "lstat") == 0) {
      struct stat st;
      syscall(SYS_newfstatat, AT_FDCWD, arg, &st, AT_SYMLINK_NOFOLLOW);
    } else if (strcmp(action, "statx") == 0) {
      struct statx stx;
      syscall(SYS_statx, AT_FDCWD, arg, 0, STATX_BASIC_STATS, &stx);
    } else if (strcmp(action, "fstat") == 0) {
      const int fd = open(arg, O_RDONLY);
      if (fd >= 0) {
        struct stat st;
        struct statx stx;
        fstat(fd, &st);
        syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
        syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
        close(fd);
      }
    } else if (strcmp(action, "access") == 0) {
      if (access(arg, R_OK) != 0) {
        // Absent or unreadable: recorded all the same.
      }
    } else if (strcmp(action, "readlink") == 0) {
      char target[4096];
      if (readlink(arg, target, sizeof target) < 0) {
        // Not a link, or none there: recorded all the same.
      }
    } else if (strcmp(action, "list") == 0) {
      DIR* dir = opendir(arg);
      if (dir != NULL) {
        while (readdir(dir) != NULL) {
        }
        closedir(dir);
      }
    } else if (strcmp(action, "mmap") == 0) {
      const int fd = atoi(arg);
      void* p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) return 1;
      munmap(p, 4096);
    } else if (strcmp(action, "fork") == 0) {
      fflush(NULL);
      const pid_t child = fork();
      if (child < 0) return 1;
      if (child == 0) {
        OpenClose(arg, O_RDONLY);
        _exit(0);
      }
      int status = 0;
      if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return 1;
      }
    } else if (strcmp(action, "exec") == 0) {
      char* args[] = {(char*)arg, NULL};
      fflush(NULL);
      execv(arg, args);
    } else if (strcmp(action, "missing") == 0) {
      if (i + 1 >= argc) Usage(action);
      const long n = atol(argv[++i]);
      static char path[4096];
      for (long k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/missing-%ld", arg, k);
        OpenClose(path, O_RDONLY);
      }
    } else if (strcmp(action, "long") == 0) {
      const long n = atol(arg);
      char* path = malloc((size_t)n + 1);
      if (path == NULL) return 1;
      path[0] = '/';
      memset(path + 1, 'a', (size_t)n - 1);
      path[n] = '\0';
      OpenClose(path, O_RDONLY);
      free(path);
    } else {
      Usage(action);
    }
  }
  return 0;
}
