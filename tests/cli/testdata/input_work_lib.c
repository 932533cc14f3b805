// The library input_work dlopens (tests/cli/testdata/input_work.c): built
// twice, with INPUT_WORK_LOOPS 100000 and 300000, so that replacing one
// file with the other changes only what the program loads at run time.
unsigned long work(void) { return INPUT_WORK_LOOPS; }
