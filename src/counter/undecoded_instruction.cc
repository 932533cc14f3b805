#include "counter/undecoded_instruction.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace workgate {

namespace {

// Prefixes that may stand before a VEX, EVEX or REX2 instruction without
// making it invalid: segment overrides and the address-size override. An
// operand-size, repeat or lock prefix, or REX, there raises #UD.
bool IsSegmentOrAddressPrefix(uint8_t b) {
  return b == 0x26 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x64 || b == 0x65 || b == 0x67;
}

InstructionSet Named(const char* name, const char* encoding, const char* flag) {
  return InstructionSet{name, encoding, flag};
}

// A VEX instruction: its opcode map (1: 0F, 2: 0F38, 3: 0F3A), W, its
// implied prefix (pp: 0 none, 1 66, 2 F3, 3 F2) and its opcode. The opcodes
// named here have no other VEX meaning in their map (Intel SDM, vol. 2, and
// the ISA extensions reference).
InstructionSet VexSet(unsigned map, unsigned w, unsigned pp, uint8_t op) {
  // The opmask instructions of AVX-512F/BW/DQ are VEX-encoded: KAND, KANDN,
  // KNOT, KOR, KXNOR, KXOR, KADD, KUNPCK (0F 41-4B), KMOV (0F 90-93),
  // KORTEST, KTEST (0F 98, 99), KSHIFTR/L (0F3A 30-33).
  if ((map == 1 && ((op >= 0x41 && op <= 0x47) || op == 0x4A || op == 0x4B ||
                    (op >= 0x90 && op <= 0x93) || op == 0x98 || op == 0x99)) ||
      (map == 3 && op >= 0x30 && op <= 0x33)) {
    return Named("AVX-512", "VEX", "-mno-avx512f");
  }
  if (map != 2) return Named("", "VEX", "");
  // LDTILECFG, STTILECFG, TILERELEASE, TILEZERO (49); TILELOADD[T1],
  // TILESTORED (4B); TDPBF16PS, TDPFP16PS (5C); TDPB[SU][SU]D (5E).
  if (op == 0x49 || op == 0x4B || op == 0x5C || op == 0x5E) {
    return Named("AMX", "VEX", "-mno-amx-tile");
  }
  // VPDPBUSD[S], VPDPWSSD[S]: 66 0F38 50-53; VPDPB[SU][SU]D[S]: the same
  // opcodes 50 and 51 with no, F3 or F2 prefix.
  if (op >= 0x50 && op <= 0x53 && pp == 1) return Named("AVX-VNNI", "VEX", "-mno-avxvnni");
  if ((op == 0x50 || op == 0x51) && pp != 1 && w == 0) {
    return Named("AVX-VNNI-INT8", "VEX", "-mno-avxvnniint8");
  }
  // VPMADD52LUQ, VPMADD52HUQ: VEX.66.0F38.W1 B4, B5.
  if ((op == 0xB4 || op == 0xB5) && pp == 1 && w == 1) {
    return Named("AVX-IFMA", "VEX", "-mno-avxifma");
  }
  // VCVTNE{E,O}{BF16,PH}2PS (B0), VBCSTNE{BF16,SH}2PS (B1), VCVTNEPS2BF16
  // (F3 72), all W0.
  if (((op == 0xB0 || op == 0xB1) || (op == 0x72 && pp == 2)) && w == 0) {
    return Named("AVX-NE-CONVERT", "VEX", "-mno-avxneconvert");
  }
  return Named("", "VEX", "");
}

// A legacy-encoded instruction after its prefixes: SHA (0F38 C8-CD, no
// mandatory prefix) and GFNI (66 0F38 CF, 66 0F3A CE and CF) are known.
InstructionSet LegacySet(const std::vector<uint8_t>& bytes, size_t i) {
  bool p66 = false, repeat = false;
  for (; i < bytes.size(); ++i) {
    const uint8_t b = bytes[i];
    if (b == 0x66) {
      p66 = true;
    } else if (b == 0xF2 || b == 0xF3) {
      repeat = true;
    } else if (b != 0xF0 && !IsSegmentOrAddressPrefix(b)) {
      break;
    }
  }
  if (i < bytes.size() && (bytes[i] & 0xF0) == 0x40) ++i;  // REX
  if (i + 2 >= bytes.size() || bytes[i] != 0x0F) return Named("", "", "");
  const uint8_t map = bytes[i + 1], op = bytes[i + 2];
  if (map == 0x38 && op >= 0xC8 && op <= 0xCD && !p66 && !repeat) {
    return Named("SHA", "legacy", "-mno-sha");
  }
  if (p66 && !repeat && ((map == 0x38 && op == 0xCF) || (map == 0x3A && (op == 0xCE || op == 0xCF)))) {
    return Named("GFNI", "legacy", "-mno-gfni");
  }
  return Named("", "", "");
}

}  // namespace

InstructionSet InstructionSetOf(const std::vector<uint8_t>& bytes) {
  size_t i = 0;
  while (i < bytes.size() && IsSegmentOrAddressPrefix(bytes[i])) ++i;
  auto at = [&bytes](size_t k) { return k < bytes.size() ? static_cast<int>(bytes[k]) : -1; };
  switch (at(i)) {
    case 0x62: {
      // EVEX in 64-bit mode (in 32-bit mode 0x62 is BOUND unless ModRM's
      // mod is 3). P0's low three bits are the opcode map: 1 to 3 are
      // AVX-512's (AVX10's too), 5 and 6 AVX512-FP16's, 4 APX's promoted
      // legacy instructions.
      if (at(i + 1) < 0) return Named("", "EVEX", "");
      const unsigned map = static_cast<unsigned>(at(i + 1)) & 7;
      if (map == 4) return Named("APX", "EVEX", "-mno-apxf");
      if (map == 0 || map == 7) return Named("", "EVEX", "");
      return Named("AVX-512", "EVEX", "-mno-avx512f");
    }
    case 0xD5:
      // REX2: in 64-bit mode 0xD5 (AAD outside it) is nothing else.
      return at(i + 1) < 0 ? Named("", "", "") : Named("APX", "REX2", "-mno-apxf");
    case 0xC4:
      if (at(i + 3) < 0) return Named("", "VEX", "");
      return VexSet(static_cast<unsigned>(at(i + 1)) & 0x1F, static_cast<unsigned>(at(i + 2)) >> 7,
                    static_cast<unsigned>(at(i + 2)) & 3, bytes[i + 3]);
    case 0xC5:
      if (at(i + 2) < 0) return Named("", "VEX", "");
      return VexSet(1, 0, static_cast<unsigned>(at(i + 1)) & 3, bytes[i + 2]);
    case 0x8F: {
      // XOP's maps are 8 to 10; POP r/m (8F /0) has a ModRM whose reg field
      // is 0, which those values cannot have.
      const int map = at(i + 1) < 0 ? -1 : (at(i + 1) & 0x1F);
      if (map >= 8 && map <= 10) return Named("XOP", "XOP", "-mno-xop");
      return Named("", "", "");
    }
    default:
      return LegacySet(bytes, i);
  }
}

std::vector<uint8_t> UndecodedAmd64Bytes(const std::string& log) {
  constexpr const char* kLine = "vex amd64->IR: unhandled instruction bytes: ";
  constexpr size_t kMaxBytes = 16;
  std::vector<uint8_t> bytes;
  const size_t at = log.find(kLine);
  if (at == std::string::npos) return bytes;
  size_t i = at + std::strlen(kLine);
  while (bytes.size() < kMaxBytes && i + 2 < log.size() && log.compare(i, 2, "0x") == 0) {
    unsigned value = 0;
    const char* first = log.data() + i + 2;
    const char* last = log.data() + std::min(log.size(), i + 5);
    const auto [end, ec] = std::from_chars(first, last, value, 16);
    if (ec != std::errc() || end == first || value > 0xFF) break;
    bytes.push_back(static_cast<uint8_t>(value));
    i = static_cast<size_t>(end - log.data());
    if (i >= log.size() || log[i] != ' ') break;
    ++i;
  }
  return bytes;
}

}  // namespace workgate
