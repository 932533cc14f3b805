/* Matrix kernel: 16-bit inputs, 32-bit results. Each iteration adds a
 * variant-dependent constant, multiplies by a matrix, by a constant and by a
 * vector, extracts bit fields, checksums, and subtracts the constant again so
 * the inputs are unchanged for the next iteration. */
#include "wgmark.h"

#define MATRIX_N 24

static int16_t mat_a[MATRIX_N][MATRIX_N];
static int16_t mat_b[MATRIX_N][MATRIX_N];
static int32_t mat_c[MATRIX_N][MATRIX_N];
static int16_t vec_v[MATRIX_N];
static int32_t vec_r[MATRIX_N];

void matrix_init(uint32_t seed) {
  uint32_t rng = seed ^ 0x9e3779b9u;
  for (int i = 0; i < MATRIX_N; ++i) {
    for (int j = 0; j < MATRIX_N; ++j) {
      mat_a[i][j] = (int16_t)((wgmark_rand(&rng) & 0x3ff) - 0x200);
      mat_b[i][j] = (int16_t)((wgmark_rand(&rng) & 0x3ff) - 0x200);
    }
    vec_v[i] = (int16_t)((wgmark_rand(&rng) & 0xff) - 0x80);
  }
}

static void add_const(int16_t value) {
  for (int i = 0; i < MATRIX_N; ++i) {
    for (int j = 0; j < MATRIX_N; ++j) mat_a[i][j] = (int16_t)(mat_a[i][j] + value);
  }
}

static uint16_t checksum_c(uint16_t crc) {
  int64_t sum = 0;
  for (int i = 0; i < MATRIX_N; ++i) {
    for (int j = 0; j < MATRIX_N; ++j) {
      sum += mat_c[i][j];
      // Fold the running sum in whenever it crosses a threshold, as a
      // data-dependent branch rather than a plain reduction.
      if (sum > 0x40000 || sum < -0x40000) {
        crc = crc16_u32((uint32_t)sum, crc);
        sum = 0;
      }
    }
  }
  return crc16_u32((uint32_t)sum, crc);
}

static void mul_const(int16_t value) {
  for (int i = 0; i < MATRIX_N; ++i) {
    for (int j = 0; j < MATRIX_N; ++j) mat_c[i][j] = (int32_t)mat_a[i][j] * value;
  }
}

static void mul_vec(void) {
  for (int i = 0; i < MATRIX_N; ++i) {
    int32_t acc = 0;
    for (int j = 0; j < MATRIX_N; ++j) acc += (int32_t)mat_a[i][j] * vec_v[j];
    vec_r[i] = acc;
  }
}

static void mul_mat(void) {
  for (int i = 0; i < MATRIX_N; ++i) {
    for (int j = 0; j < MATRIX_N; ++j) {
      int32_t acc = 0;
      for (int k = 0; k < MATRIX_N; ++k) acc += (int32_t)mat_a[i][k] * mat_b[k][j];
      mat_c[i][j] = acc;
    }
  }
}

static void mul_mat_bits(void) {
  for (int i = 0; i < MATRIX_N; ++i) {
    for (int j = 0; j < MATRIX_N; ++j) {
      uint32_t acc = 0;  // wraps by design
      for (int k = 0; k < MATRIX_N; ++k) {
        int32_t t = (int32_t)mat_a[i][k] * mat_b[k][j];
        acc += (uint32_t)(t >> 2) & 0xf;
        acc *= ((t >> 5) & 0x7f) ? 1 : 3;
      }
      mat_c[i][j] = (int32_t)(acc & 0x7fffffff);
    }
  }
}

uint16_t matrix_bench(int variant) {
  int16_t value = (int16_t)(variant * 13 + 5);
  uint16_t crc = 0;
  add_const(value);
  mul_const(value);
  crc = checksum_c(crc);
  mul_vec();
  for (int i = 0; i < MATRIX_N; ++i) crc = crc16_u32((uint32_t)vec_r[i], crc);
  mul_mat();
  crc = checksum_c(crc);
  mul_mat_bits();
  crc = checksum_c(crc);
  add_const((int16_t)-value);
  return crc;
}
