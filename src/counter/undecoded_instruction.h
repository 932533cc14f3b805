#pragma once
// Which instruction set an instruction Valgrind could not decode belongs
// to, from its bytes: what a failed count says, so that a build made with
// -march=native (which emits AVX-512 on most cloud machines, and Valgrind
// runs none of it) reads as a build flag to change, not as a broken program.

#include <cstdint>
#include <string>
#include <vector>

namespace workgate {

/// An x86-64 instruction set an encoding identifies without doubt. `name`
/// is "" where the bytes say nothing certain.
struct InstructionSet {
  std::string name;      // "AVX-512", "AMX", "AVX-VNNI", "APX", ...
  std::string encoding;  // "EVEX", "VEX", "REX2", "XOP", "legacy"; "" for none known
  std::string gcc_flag;  // the GCC and Clang option that leaves it out: "-mno-avx512f"
};

/// The instruction set of the x86-64 (64-bit mode) instruction that starts
/// at `bytes`, the bytes VEX prints as "unhandled instruction bytes" (the
/// instruction's prefixes first). Known: EVEX (0x62) with maps 1, 2, 3, 5, 6
/// is AVX-512 (map 4 is APX); VEX's opmask instructions (KMOV, KAND...,
/// KSHIFT) are AVX-512 too; VEX map 2's tile operations are AMX, and its
/// dot products, 52-bit multiplies and BF16/FP16 conversions AVX-VNNI,
/// AVX-VNNI-INT8, AVX-IFMA and AVX-NE-CONVERT; REX2 (0xD5) is APX; XOP
/// (0x8F with map 8 to 10) is AMD's XOP; the legacy SHA and GFNI opcodes.
/// Anything else: an empty name, with the encoding where it is one of those.
InstructionSet InstructionSetOf(const std::vector<uint8_t>& bytes);

/// The bytes of VEX's "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1
/// ..." line in a Valgrind log, at most 16; none where the log has no such
/// line, or only another architecture's.
std::vector<uint8_t> UndecodedAmd64Bytes(const std::string& log);

}  // namespace workgate
