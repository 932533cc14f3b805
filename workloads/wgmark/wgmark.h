/* wgmark: a self-calibrating CPU benchmark in the CoreMark mould.
 * Four kernels (linked lists, matrices, a state machine, CRC) run once per
 * iteration; each iteration checks its CRCs against known values. */
#ifndef WGMARK_WGMARK_H_
#define WGMARK_WGMARK_H_

#include <stdint.h>

/* Iterations cycle through this many variants of the input. */
#define WGMARK_VARIANTS 8

/* CRC-16/CCITT (polynomial 0x1021), bit by bit, as the benchmark's own work. */
uint16_t crc16_u8(uint8_t data, uint16_t crc);
uint16_t crc16_u16(uint16_t data, uint16_t crc);
uint16_t crc16_u32(uint32_t data, uint16_t crc);

/* Linked-list kernel: searches, reversals and merge sorts over a node pool. */
void list_init(uint32_t seed);
uint16_t list_bench(int variant);

/* Matrix kernel: integer add, scale, multiply and bit extraction. */
void matrix_init(uint32_t seed);
uint16_t matrix_bench(int variant);

/* State-machine kernel: classifies numeric tokens in a text buffer. */
void state_init(uint32_t seed);
uint16_t state_bench(int variant);

/* Clock: monotonic nanoseconds, or a fixed table under WORKGATE_FIXED_CLOCK=1.
 * `scale` multiplies the fixed timestamps (the work multiplier). */
void clock_setup(int fixed, uint64_t scale);
uint64_t clock_now_ns(void);
/* Number of clock reads so far. */
uint64_t clock_calls(void);

/* A small deterministic generator for input data. */
uint32_t wgmark_rand(uint32_t* state);

#endif /* WGMARK_WGMARK_H_ */
