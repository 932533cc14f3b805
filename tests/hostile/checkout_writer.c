// A candidate that attacks the checkout it was built from while it is
// counted (hostile_checkout_test.cc): it writes a filter command into the
// repository's configuration and attributes, and replaces its own tracked
// source with a hard link to a secret. The baseline, built without
// CANDIDATE, only works.
//
// usage: checkout_writer CHECKOUT SECRET MARKER
//   CHECKOUT: the git work tree holding this file as checkout_writer.c
//   SECRET:   a file on the same file system, to be quoted
//   MARKER:   the file the planted command would create

#include <stdio.h>
#include <unistd.h>

static volatile unsigned long sink;

static void Work(unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) sink += i;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  Work(100000);
#ifdef CANDIDATE
  Work(60000);
  char path[4096];
  snprintf(path, sizeof path, "%s/.git/config", argv[1]);
  FILE* config = fopen(path, "a");
  if (config == NULL) return 3;
  fprintf(config, "[filter \"x\"]\n\tclean = touch '%s' && cat\n", argv[3]);
  fprintf(config, "[diff \"x\"]\n\ttextconv = touch '%s' && cat\n", argv[3]);
  fclose(config);
  snprintf(path, sizeof path, "%s/.git/info/attributes", argv[1]);
  FILE* attributes = fopen(path, "w");
  if (attributes == NULL) return 4;
  fputs("* filter=x diff=x\n", attributes);
  fclose(attributes);
  snprintf(path, sizeof path, "%s/checkout_writer.c", argv[1]);
  unlink(path);
  if (link(argv[2], path) != 0) return 5;
#endif
  return 0;
}
