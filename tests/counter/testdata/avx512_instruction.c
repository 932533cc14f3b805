/* avx512_instruction: built with -mavx512f, as -march=native builds it on a
 * machine with AVX-512. It adds two vectors of sixteen ints with AVX-512
 * intrinsics; Valgrind implements no AVX-512 instruction, so under it the
 * program dies at the first one, and the Valgrind backends' tests check that
 * workgate names the instruction set and the build option that avoids it. */
#include <immintrin.h>
#include <stdio.h>

int main(int argc, char** argv) {
  (void)argv;
  int in[16], out[16];
  for (int i = 0; i < 16; ++i) in[i] = i + argc;
  __m512i v = _mm512_loadu_si512(in);
  _mm512_storeu_si512(out, _mm512_add_epi32(v, v));
  printf("%d\n", out[15]);
  return 0;
}
