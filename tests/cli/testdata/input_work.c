// A program whose work is set by what it reads, not by its build or its
// command line: the subject of the result store's input tests
// (tests/cli/store_inputs_cli_test.cc). Each mode does work the store must
// not give again once what it read changed.
//
//   input_work file PATH      loops as many times as the number in PATH says
//   input_work dir PATH       loops 100,000 times per entry of directory PATH
//   input_work dlopen PATH    loops as many times as PATH's work() says
//   input_work append PATH    as `file`, then appends a line to PATH: its
//                             input changed while it ran
// It prints "done" and exits 0; 2 on a usage or read error.
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static void Work(unsigned long n) {
  for (unsigned long i = 0; i < n; i++) sink += i;
}

static long NumberIn(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  long n = -1;
  if (fscanf(f, "%ld", &n) != 1) n = -1;
  fclose(f);
  return n;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const char* mode = argv[1];
  const char* path = argv[2];
  if (strcmp(mode, "file") == 0 || strcmp(mode, "append") == 0) {
    const long n = NumberIn(path);
    if (n < 0) return 2;
    Work((unsigned long)n);
    if (strcmp(mode, "append") == 0) {
      FILE* f = fopen(path, "a");
      if (f == NULL) return 2;
      fputs("\n", f);
      fclose(f);
    }
  } else if (strcmp(mode, "dir") == 0) {
    DIR* d = opendir(path);
    if (d == NULL) return 2;
    for (struct dirent* e; (e = readdir(d)) != NULL;) {
      if (e->d_name[0] != '.') Work(100000);
    }
    closedir(d);
  } else if (strcmp(mode, "dlopen") == 0) {
    void* lib = dlopen(path, RTLD_NOW);
    if (lib == NULL) return 2;
    unsigned long (*work)(void) = (unsigned long (*)(void))dlsym(lib, "work");
    if (work == NULL) return 2;
    Work(work());
    dlclose(lib);
  } else {
    return 2;
  }
  puts("done");
  return 0;
}
