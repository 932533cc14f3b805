/* wgi SCRIPT: compiles and runs a script.
 * Exit status: 0, 2 (usage or unreadable file), 65 (compile error),
 * 70 (runtime error). Environment: WORKGATE_FIXED_CLOCK=1 pins clock(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgi.h"

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t capacity = 1 << 14;
  size_t length = 0;
  char* text = malloc(capacity);
  for (;;) {
    size_t n = fread(text + length, 1, capacity - length - 1, f);
    length += n;
    if (length + 1 < capacity) break;
    capacity *= 2;
    text = realloc(text, capacity);
  }
  text[length] = '\0';
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    free(text);
    return NULL;
  }
  return text;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: wgi SCRIPT\n");
    return 2;
  }
  char* source = read_file(argv[1]);
  if (source == NULL) {
    fprintf(stderr, "wgi: cannot read %s\n", argv[1]);
    return 2;
  }
  const char* fixed = getenv("WORKGATE_FIXED_CLOCK");
  builtins_install(fixed != NULL && strcmp(fixed, "1") == 0);
  Function* script = compile_script(source, argv[1]);
  if (script == NULL) return 65;
  int status = vm_run(script);
  fflush(stdout);
  return status;
}
