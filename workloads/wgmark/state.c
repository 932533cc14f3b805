/* State-machine kernel: scans a text buffer of numeric-looking tokens and
 * classifies each one (integer, decimal, exponent, hex, invalid) with an
 * explicit state machine, counting states visited. Each iteration first
 * damages a variant-dependent set of characters and repairs them afterwards. */
#include <string.h>

#include "wgmark.h"

#define STATE_BUFFER 3072

enum state {
  kStart,
  kSign,
  kInt,
  kDot,
  kFrac,
  kExp,
  kExpSign,
  kExpInt,
  kHex0,
  kHex,
  kInvalid,
  kStates
};

static char text[STATE_BUFFER];

void state_init(uint32_t seed) {
  static const char* const pieces[] = {"1042",  "-17",   "+3.25",   "6.02e23", "0x1F", "0x",
                                       "9e-3",  ".5",    "7.",      "abc",     "--4",  "1e",
                                       "0xfe9", "31337", "2.71828", "-0.0"};
  uint32_t rng = seed ^ 0x5bd1e995u;
  size_t pos = 0;
  for (;;) {
    const char* piece = pieces[wgmark_rand(&rng) % (sizeof pieces / sizeof pieces[0])];
    size_t len = strlen(piece);
    if (pos + len + 1 >= STATE_BUFFER) break;
    memcpy(text + pos, piece, len);
    pos += len;
    text[pos++] = ',';
  }
  memset(text + pos, ',', STATE_BUFFER - 1 - pos);
  text[STATE_BUFFER - 1] = '\0';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static enum state step(enum state s, char c) {
  switch (s) {
    case kStart:
      if (c == '+' || c == '-') return kSign;
      if (c == '0') return kHex0;
      if (is_digit(c)) return kInt;
      if (c == '.') return kDot;
      return kInvalid;
    case kSign:
      if (is_digit(c)) return kInt;
      if (c == '.') return kDot;
      return kInvalid;
    case kHex0:
      if (c == 'x' || c == 'X') return kHex;
      if (is_digit(c)) return kInt;
      if (c == '.') return kFrac;
      if (c == 'e' || c == 'E') return kExp;
      return kInvalid;
    case kInt:
      if (is_digit(c)) return kInt;
      if (c == '.') return kFrac;
      if (c == 'e' || c == 'E') return kExp;
      return kInvalid;
    case kDot:
      return is_digit(c) ? kFrac : kInvalid;
    case kFrac:
      if (is_digit(c)) return kFrac;
      if (c == 'e' || c == 'E') return kExp;
      return kInvalid;
    case kExp:
      if (c == '+' || c == '-') return kExpSign;
      return is_digit(c) ? kExpInt : kInvalid;
    case kExpSign:
    case kExpInt:
      return is_digit(c) ? kExpInt : kInvalid;
    case kHex:
      return is_hex(c) ? kHex : kInvalid;
    default:
      return kInvalid;
  }
}

static uint16_t scan(uint16_t crc) {
  uint32_t final_counts[kStates] = {0};
  uint32_t visits[kStates] = {0};
  enum state s = kStart;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p == ',') {
      ++final_counts[s];
      s = kStart;
      continue;
    }
    s = step(s, *p);
    ++visits[s];
  }
  ++final_counts[s];
  for (int i = 0; i < kStates; ++i) {
    crc = crc16_u32(final_counts[i], crc);
    crc = crc16_u32(visits[i], crc);
  }
  return crc;
}

uint16_t state_bench(int variant) {
  static const char kDamage[] = {'.', 'e', 'x', '-', '7', ',', 'q', '0'};
  int stride = 29 + variant * 6;
  uint16_t crc = scan(0);
  // Damage every stride-th character, scan again, then repair.
  char saved[STATE_BUFFER / 29 + 1];
  int n = 0;
  for (int i = variant; i < STATE_BUFFER - 1; i += stride) {
    saved[n++] = text[i];
    text[i] = kDamage[(i / stride) & 7];
  }
  crc = scan(crc);
  n = 0;
  for (int i = variant; i < STATE_BUFFER - 1; i += stride) text[i] = saved[n++];
  return crc;
}
