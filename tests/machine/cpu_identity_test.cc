#include "machine/cpu_identity.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <fstream>
#include <sstream>
#include <string>

namespace workgate {
namespace {

// Two cores of an AWS Graviton2 (Neoverse-N1), as the arm64 kernel prints them.
const char kGraviton2[] =
    "processor\t: 0\n"
    "BogoMIPS\t: 243.75\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x3\n"
    "CPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n"
    "\n"
    "processor\t: 1\n"
    "CPU implementer\t: 0x41\n"
    "CPU part\t: 0xd0c\n";

TEST(CpuIdentityFromCpuinfo, NamesAKnownArmCore) {
  CpuIdentity id = CpuIdentityFromCpuinfo(kGraviton2);
  ASSERT_TRUE(id.vendor.has_value());
  EXPECT_EQ(*id.vendor, "ARM");
  ASSERT_TRUE(id.model.has_value());
  EXPECT_EQ(*id.model, "ARM Neoverse-N1");
}

TEST(CpuIdentityFromCpuinfo, ReadsOnlyTheFirstProcessorOfABigLittleMachine) {
  // A Cortex-A55 boot core followed by a Cortex-A76.
  CpuIdentity id = CpuIdentityFromCpuinfo(
      "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\n"
      "processor\t: 4\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n");
  EXPECT_EQ(id.model.value_or(""), "ARM Cortex-A55");
}

TEST(CpuIdentityFromCpuinfo, KeepsRawIdsOfAnUnknownPart) {
  CpuIdentity id =
      CpuIdentityFromCpuinfo("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xfff\n");
  EXPECT_EQ(id.vendor.value_or(""), "ARM");
  EXPECT_EQ(id.model.value_or(""), "implementer 0x41 part 0xfff");

  id = CpuIdentityFromCpuinfo("CPU implementer\t: 0x99\nCPU part\t: 0x001\n");
  EXPECT_EQ(id.vendor.value_or(""), "implementer 0x99");
}

TEST(CpuIdentityFromCpuinfo, PrefersAKnownCoreOverModelNameAndFallsBackToIt) {
  // 32-bit Arm kernels print a generic "model name" beside the ids.
  CpuIdentity id = CpuIdentityFromCpuinfo(
      "model name\t: ARMv7 Processor rev 3 (v7l)\nCPU implementer\t: 0x41\n"
      "CPU part\t: 0xd08\n");
  EXPECT_EQ(id.model.value_or(""), "ARM Cortex-A72");

  id = CpuIdentityFromCpuinfo("vendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\n");
  EXPECT_EQ(id.vendor.value_or(""), "GenuineIntel");
  EXPECT_EQ(id.model.value_or(""), "Intel(R) Xeon(R)");
}

TEST(CpuIdentityFromCpuinfo, SaysWhyWhenNothingIsThere) {
  CpuIdentity id = CpuIdentityFromCpuinfo("processor\t: 0\n");
  EXPECT_FALSE(id.vendor.has_value());
  EXPECT_FALSE(id.model.has_value());
  EXPECT_NE(id.vendor_note.find("/proc/cpuinfo"), std::string::npos);
  EXPECT_NE(id.model_note.find("/proc/cpuinfo"), std::string::npos);
}

TEST(ArmCoreName, KnowsCommonCloudAndPhoneCores) {
  EXPECT_EQ(ArmCoreName(0x41, 0xd40).value_or(""), "Neoverse-V1");
  EXPECT_EQ(ArmCoreName(0x41, 0xd4f).value_or(""), "Neoverse-V2");
  EXPECT_EQ(ArmCoreName(0x41, 0xd03).value_or(""), "Cortex-A53");
  EXPECT_EQ(ArmCoreName(0x61, 0x023).value_or(""), "M1 Firestorm");
  EXPECT_FALSE(ArmCoreName(0x41, 0xfff).has_value());
}

TEST(HypervisorDisplayName, MapsSignaturesToNames) {
  EXPECT_EQ(HypervisorDisplayName("KVMKVMKVM"), "KVM");
  EXPECT_EQ(HypervisorDisplayName("Microsoft Hv"), "Hyper-V");
  EXPECT_EQ(HypervisorDisplayName("VMwareVMware"), "VMware");
  EXPECT_EQ(HypervisorDisplayName("XenVMMXenVMM"), "Xen");
  EXPECT_EQ(HypervisorDisplayName("bhyve bhyve "), "bhyve");
  EXPECT_EQ(HypervisorDisplayName(" lrpepyh  vr"), "Parallels");
  EXPECT_EQ(HypervisorDisplayName("SomethingNew "), "SomethingNew");
  EXPECT_EQ(HypervisorDisplayName(""), "");
}

// The kernel sets the "hypervisor" cpu flag from the same cpuid bit we read.
bool CpuinfoHasHypervisorFlag() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" hypervisor ") != std::string::npos;
  }
  return false;
}

TEST(ReadHypervisorIdentity, AgreesWithTheKernelOnX86) {
  utsname u;
  ASSERT_EQ(uname(&u), 0);
  std::string arch = u.machine;
  if (arch != "x86_64" && arch != "i686") GTEST_SKIP() << "cpuid is x86 only; this is " << arch;
  HypervisorIdentity hv = ReadHypervisorIdentity();
  ASSERT_TRUE(hv.present.has_value()) << hv.present_note;
  EXPECT_EQ(*hv.present, CpuinfoHasHypervisorFlag());
  if (*hv.present) {
    ASSERT_TRUE(hv.vendor.has_value()) << hv.vendor_note;
    EXPECT_FALSE(hv.vendor->empty());
  }
}

TEST(ReadCpuIdentity, ReadsVendorAndModel) {
  CpuIdentity id = ReadCpuIdentity();
  ASSERT_TRUE(id.vendor.has_value()) << id.vendor_note;
  ASSERT_TRUE(id.model.has_value()) << id.model_note;
  EXPECT_FALSE(id.model->empty());
  // The brand string is padded to 48 bytes; none of that padding may remain.
  EXPECT_NE(id.model->back(), ' ');
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().find("vendor_id") != std::string::npos) {
    EXPECT_NE(text.str().find("vendor_id\t: " + *id.vendor), std::string::npos);
  }
}

TEST(CpuDisplayNameTest, SaysTheVendorOnce) {
  EXPECT_EQ(CpuDisplayName("ARM", "ARM Neoverse-N1"), "ARM Neoverse-N1");
  EXPECT_EQ(CpuDisplayName("implementer 0x00", "implementer 0x00 part 0x051"),
            "implementer 0x00 part 0x051");
  EXPECT_EQ(CpuDisplayName("AuthenticAMD", "AMD EPYC 7763"), "AuthenticAMD AMD EPYC 7763");
  EXPECT_EQ(CpuDisplayName("ARM", "ARMv8 Processor"), "ARM ARMv8 Processor");
  EXPECT_EQ(CpuDisplayName("GenuineIntel", "GenuineIntel"), "GenuineIntel");
}

}  // namespace
}  // namespace workgate
