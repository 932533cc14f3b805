/* CRC-16/CCITT computed bit by bit: slow on purpose, it is part of the work. */
#include "wgmark.h"

uint16_t crc16_u8(uint8_t data, uint16_t crc) {
  crc ^= (uint16_t)(data << 8);
  for (int i = 0; i < 8; ++i) {
    crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  }
  return crc;
}

uint16_t crc16_u16(uint16_t data, uint16_t crc) {
  crc = crc16_u8((uint8_t)(data >> 8), crc);
  return crc16_u8((uint8_t)data, crc);
}

uint16_t crc16_u32(uint32_t data, uint16_t crc) {
  crc = crc16_u16((uint16_t)(data >> 16), crc);
  return crc16_u16((uint16_t)data, crc);
}

uint32_t wgmark_rand(uint32_t* state) {
  /* xorshift32: full period over non-zero states, no multiply needed. */
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}
