// Loads the library named by argv[1], runs its reload_work, unloads it, and
// does it again with twice the work (tests/vgcount/vgcount_test.cc). Under
// Valgrind the unloading discards the library's translations and the second
// load maps it where the first was, so its blocks are translated a second
// time for addresses vgcount has already met: the case where a block's line
// check cannot find its slot from the program counter and passes it. Writes
// reload_work's address at each load to the file argv[2] names.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* out = fopen(argv[2], "w");
  if (out == NULL) return 2;
  long sum = 0;
  for (int round = 1; round <= 2; round++) {
    void* lib = dlopen(argv[1], RTLD_NOW);
    if (lib == NULL) return 3;
    int (*work)(int) = (int (*)(int))dlsym(lib, "reload_work");
    if (work == NULL) return 3;
    fprintf(out, "%p\n", (void*)work);
    sum += work(1000 * round);
    dlclose(lib);
  }
  return fclose(out) != 0 || sum == 0;
}
