// A shared library that tests/vgcount/testdata/reload_main.c loads, unloads
// and loads again: its code is translated twice at the same addresses.
int reload_work(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) acc += i * 3 + (acc >> 3);
  return acc;
}
