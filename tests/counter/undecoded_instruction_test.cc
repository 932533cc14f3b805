// The instruction set of an instruction Valgrind could not decode, from its
// bytes (counter/undecoded_instruction.h). The encodings are GNU as 2.40's
// for the instruction named beside each, except where a comment says they
// follow the specification by hand.

#include "counter/undecoded_instruction.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace workgate {
namespace {

std::string SetOf(std::vector<uint8_t> bytes) { return InstructionSetOf(bytes).name; }

TEST(InstructionSetOfTest, EvexIsAvx512) {
  EXPECT_EQ(SetOf({0x62, 0xF1, 0x75, 0x48, 0xFE, 0xC2}), "AVX-512");  // vpaddd zmm0,zmm1,zmm2
  EXPECT_EQ(SetOf({0x62, 0xF1, 0xFE, 0x48, 0x6F, 0x07}), "AVX-512");  // vmovdqu64 zmm0,[rdi]
  EXPECT_EQ(SetOf({0x62, 0xF1, 0x6C, 0xC9, 0x58, 0xCB}), "AVX-512");  // vaddps zmm1{k1}{z},...
  EXPECT_EQ(SetOf({0x62, 0xA1, 0x75, 0x00, 0xFE, 0xC2}), "AVX-512");  // vpaddd xmm16,xmm17,xmm18
  EXPECT_EQ(SetOf({0x62, 0xF5, 0x74, 0x48, 0x58, 0xC2}), "AVX-512");  // vaddph (map 5, FP16)
  // A segment override may stand before it.
  EXPECT_EQ(SetOf({0x64, 0x62, 0xF1, 0xFE, 0x48, 0x6F, 0x07}), "AVX-512");
  const InstructionSet set = InstructionSetOf({0x62, 0xF1, 0x75, 0x48, 0xFE, 0xC2});
  EXPECT_EQ(set.encoding, "EVEX");
  EXPECT_EQ(set.gcc_flag, "-mno-avx512f");
  // The opmask instructions are VEX-encoded AVX-512.
  EXPECT_EQ(SetOf({0xC5, 0xF8, 0x92, 0xC8}), "AVX-512");  // kmovw k1,eax
  // By hand: kshiftrw k1,k2,1 is VEX.L0.66.0F3A.W1 30 /r ib.
  EXPECT_EQ(SetOf({0xC4, 0xE3, 0xF9, 0x30, 0xCA, 0x01}), "AVX-512");
}

TEST(InstructionSetOfTest, VexMap2TileOperationsAreAmx) {
  for (const std::vector<uint8_t>& bytes : std::vector<std::vector<uint8_t>>{
           {0xC4, 0xE2, 0x7B, 0x4B, 0x04, 0x18},  // tileloadd tmm0,[rax+rbx*1]
           {0xC4, 0xE2, 0x6B, 0x5E, 0xC1},        // tdpbssd tmm0,tmm1,tmm2
           {0xC4, 0xE2, 0x6A, 0x5C, 0xC1},        // tdpbf16ps tmm0,tmm1,tmm2
           {0xC4, 0xE2, 0x78, 0x49, 0x00},        // ldtilecfg [rax]
           {0xC4, 0xE2, 0x78, 0x49, 0xC0},        // tilerelease
           {0xC4, 0xE2, 0x7B, 0x49, 0xD8},        // tilezero tmm3
           {0xC4, 0xE2, 0x7A, 0x4B, 0x0C, 0x18},  // tilestored [rax+rbx*1],tmm1
       }) {
    EXPECT_EQ(SetOf(bytes), "AMX") << static_cast<int>(bytes[3]);
  }
  EXPECT_EQ(InstructionSetOf({0xC4, 0xE2, 0x7B, 0x4B, 0x04, 0x18}).gcc_flag, "-mno-amx-tile");
}

TEST(InstructionSetOfTest, OtherVexExtensionsByOpcodeAndPrefix) {
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x71, 0x50, 0xC2}), "AVX-VNNI");       // {vex} vpdpbusd xmm
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x75, 0x52, 0xC2}), "AVX-VNNI");       // {vex} vpdpwssd ymm
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x73, 0x50, 0xC2}), "AVX-VNNI-INT8");  // vpdpbssd
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x74, 0x50, 0xC2}), "AVX-VNNI-INT8");  // vpdpbuud
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0xF1, 0xB4, 0xC2}), "AVX-IFMA");       // {vex} vpmadd52luq
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x79, 0xB0, 0x00}), "AVX-NE-CONVERT");  // vcvtneeph2ps
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x79, 0xB1, 0x00}), "AVX-NE-CONVERT");  // vbcstnesh2ps
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x7A, 0x72, 0xC1}), "AVX-NE-CONVERT");  // {vex} vcvtneps2bf16
  EXPECT_EQ(SetOf({0x8F, 0xE9, 0x68, 0x90, 0xC1}), "XOP");             // vprotb
  EXPECT_EQ(SetOf({0x0F, 0x38, 0xCB, 0xCA}), "SHA");                   // sha256rnds2
  EXPECT_EQ(SetOf({0x0F, 0x38, 0xC9, 0xCA}), "SHA");                   // sha1msg1
  EXPECT_EQ(SetOf({0x66, 0x0F, 0x38, 0xCF, 0xCA}), "GFNI");            // gf2p8mulb
  EXPECT_EQ(SetOf({0x66, 0x0F, 0x3A, 0xCE, 0xCA, 0x01}), "GFNI");      // gf2p8affineqb
}

TEST(InstructionSetOfTest, ApxByHand) {
  // By hand from the APX specification: REX2 (D5) before add eax,ecx, and
  // an EVEX-promoted add (map 4) with a new data destination.
  EXPECT_EQ(SetOf({0xD5, 0x19, 0x01, 0xC8}), "APX");
  EXPECT_EQ(InstructionSetOf({0xD5, 0x19, 0x01, 0xC8}).encoding, "REX2");
  EXPECT_EQ(SetOf({0x62, 0xF4, 0x7C, 0x18, 0x01, 0xC8}), "APX");
}

TEST(InstructionSetOfTest, WhatValgrindDecodesOrTheBytesDoNotSayIsUnknown) {
  // AVX2 and FMA: VEX, but nothing this knows to be beyond Valgrind.
  const InstructionSet avx2 = InstructionSetOf({0xC5, 0xF5, 0xFE, 0xC2});  // vpaddd ymm
  EXPECT_EQ(avx2.name, "");
  EXPECT_EQ(avx2.encoding, "VEX");
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x75, 0xB8, 0xC2}), "");  // vfmadd231ps
  // EVEX with an opcode map AVX-512 does not use (0, or 7): by hand.
  for (uint8_t p0 : {0xF0, 0xF7}) {
    const InstructionSet evex = InstructionSetOf({0x62, p0, 0x7C, 0x48, 0x10, 0xC1});
    EXPECT_EQ(evex.name, "") << static_cast<int>(p0);
    EXPECT_EQ(evex.encoding, "EVEX");
  }
  EXPECT_EQ(SetOf({0x0F, 0x01, 0xF9}), "");              // rdtscp
  EXPECT_EQ(SetOf({0x0F, 0x0B}), "");                    // ud2
  EXPECT_EQ(SetOf({0x8F, 0xC0}), "");                    // pop rax (8F /0)
  // SHA's opcode with a 66 prefix is another instruction; a prefix before
  // VEX makes it invalid, so it is no VEX instruction.
  EXPECT_EQ(SetOf({0x66, 0x0F, 0x38, 0xCB, 0xCA}), "");
  EXPECT_EQ(SetOf({0x66, 0xC5, 0xF8, 0x92, 0xC8}), "");
  // Cut short.
  EXPECT_EQ(SetOf({}), "");
  EXPECT_EQ(SetOf({0x62}), "");
  EXPECT_EQ(SetOf({0xC4, 0xE2, 0x7B}), "");
  EXPECT_EQ(SetOf({0xD5}), "");
}

TEST(UndecodedAmd64BytesTest, ReadsVexsLineOnly) {
  const std::string log =
      "==7== Command: ./a\n"
      "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7D 0x48 0x6F 0x5 0x0 0xFF\n"
      "vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0\n";
  EXPECT_EQ(UndecodedAmd64Bytes(log),
            (std::vector<uint8_t>{0x62, 0xF1, 0x7D, 0x48, 0x6F, 0x05, 0x00, 0xFF}));
  // Another architecture's line, a malformed byte, a value over a byte.
  EXPECT_TRUE(UndecodedAmd64Bytes("vex x86->IR: unhandled instruction bytes: 0x62 0xF1\n").empty());
  EXPECT_TRUE(UndecodedAmd64Bytes("disInstr(arm64): unhandled instruction 0x00000000\n").empty());
  EXPECT_EQ(UndecodedAmd64Bytes("vex amd64->IR: unhandled instruction bytes: 0x62 0xZZ\n"),
            (std::vector<uint8_t>{0x62}));
  EXPECT_TRUE(UndecodedAmd64Bytes("vex amd64->IR: unhandled instruction bytes: 0x100\n").empty());
  std::string many = "vex amd64->IR: unhandled instruction bytes:";
  for (int i = 0; i < 40; ++i) many += " 0x90";
  EXPECT_EQ(UndecodedAmd64Bytes(many).size(), 16u);
}

}  // namespace
}  // namespace workgate
