// Loads the library argv[1] and calls its function alpha_work ten times
// from one call site, unloads it, then loads the library argv[2] and calls
// its bravo_work from the same call site (tests/vgcount/vgcount_test.cc).
// The second library is built to be mapped where the first was, with its
// function at the first's address: Valgrind discards the first library's
// translations when it is unloaded, and the code translated at those
// addresses afterwards is another function. Writes each function's address
// to the file argv[3] names.
#include <dlfcn.h>
#include <stdio.h>

// The call through the pointer, one call site for both functions: not in
// tail position, so that it stays a call.
static __attribute__((noinline)) int Run(int (*work)(int), int n) { return work(n) + 1; }

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  FILE* out = fopen(argv[3], "w");
  if (out == NULL) return 2;
  const char* const names[2] = {"alpha_work", "bravo_work"};
  long sum = 0;
  for (int round = 0; round < 2; round++) {
    void* lib = dlopen(argv[1 + round], RTLD_NOW);
    if (lib == NULL) return 3;
    int (*work)(int) = (int (*)(int))dlsym(lib, names[round]);
    if (work == NULL) return 3;
    fprintf(out, "%p\n", (void*)work);
    for (int i = 0; i < 10; i++) sum += Run(work, 100 + i);
    dlclose(lib);
  }
  return fclose(out) != 0 || sum == 0;
}
