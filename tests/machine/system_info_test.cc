#include "machine/system_info.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "launch/syscall_filter.h"
#include "test_requirements.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

const KernelPmu* FindPmu(const SystemInfo& info, const std::string& name) {
  if (!info.kernel_pmus.value) return nullptr;
  for (const KernelPmu& p : *info.kernel_pmus.value) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// Whether `name` is an executable in some PATH directory, found without Boost.
bool OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

class GatherSystemInfoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { info_ = new SystemInfo(GatherSystemInfo(LibpfmPmus::kListed)); }
  static void TearDownTestSuite() { delete info_; }
  static SystemInfo* info_;
};
SystemInfo* GatherSystemInfoTest::info_ = nullptr;

TEST_F(GatherSystemInfoTest, UnameFieldsMatchUname) {
  utsname u;
  ASSERT_EQ(uname(&u), 0);
  ASSERT_TRUE(info_->architecture.value.has_value()) << info_->architecture.note;
  EXPECT_FALSE(info_->architecture.value->empty());
  EXPECT_EQ(*info_->architecture.value, u.machine);
  EXPECT_EQ(info_->kernel_release.value.value_or(""), u.release);
}

TEST_F(GatherSystemInfoTest, ParanoidMatchesTheProcFile) {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  if (!in) GTEST_SKIP() << "this kernel has no /proc/sys/kernel/perf_event_paranoid";
  int expected = 99;
  in >> expected;
  ASSERT_TRUE(info_->perf_event_paranoid.value.has_value()) << info_->perf_event_paranoid.note;
  EXPECT_EQ(*info_->perf_event_paranoid.value, expected);
}

TEST_F(GatherSystemInfoTest, KernelPmusIncludeSoftware) {
  ASSERT_TRUE(info_->kernel_pmus.value.has_value()) << info_->kernel_pmus.note;
  const KernelPmu* sw = FindPmu(*info_, "software");
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->type, 1);  // PERF_TYPE_SOFTWARE
  EXPECT_FALSE(sw->is_core);
  EXPECT_TRUE(
      std::is_sorted(info_->kernel_pmus.value->begin(), info_->kernel_pmus.value->end(),
                     [](const KernelPmu& a, const KernelPmu& b) { return a.name < b.name; }));
  // Where x86 has a core PMU it is "cpu" with type 4 (PERF_TYPE_RAW).
  if (const KernelPmu* cpu = FindPmu(*info_, "cpu")) {
    EXPECT_TRUE(cpu->is_core);
    EXPECT_TRUE(info_->HasCorePmu());
  }
}

TEST_F(GatherSystemInfoTest, LibpfmSeesItsPerfEventPmu) {
  ASSERT_TRUE(info_->libpfm_pmus.value.has_value()) << info_->libpfm_pmus.note;
  // libpfm4's "perf" PMU holds the kernel's generic events and is present on
  // every Linux with perf_event support.
  auto it = std::find_if(info_->libpfm_pmus.value->begin(), info_->libpfm_pmus.value->end(),
                         [](const LibpfmPmu& p) { return p.name == "perf"; });
  ASSERT_NE(it, info_->libpfm_pmus.value->end());
  EXPECT_EQ(it->type, "os");
  EXPECT_GT(it->num_events, 0);
}

TEST_F(GatherSystemInfoTest, FindsValgrindAndItsVersion) {
  if (!OnPath("valgrind")) {
    EXPECT_FALSE(info_->valgrind_path.value.has_value());
    EXPECT_NE(info_->valgrind_path.note.find("PATH"), std::string::npos);
    WORKGATE_REQUIRE_TOOL(false, "valgrind is not on PATH");
  }
  ASSERT_TRUE(info_->valgrind_path.value.has_value()) << info_->valgrind_path.note;
  EXPECT_EQ(access(info_->valgrind_path.value->c_str(), X_OK), 0);
  ASSERT_TRUE(info_->valgrind_version.value.has_value()) << info_->valgrind_version.note;
  EXPECT_TRUE(
      std::regex_match(*info_->valgrind_version.value, std::regex(R"(valgrind-\d+\.\d+\.\d+.*)")))
      << *info_->valgrind_version.value;
}

TEST(GatherSystemInfoAloneTest, OpensNoCounter) {
  // What keeps the probe cheap and harmless (system_info.h: "nothing here
  // opens a counter"): gathered in a child that perf_event_open(2) kills.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (testing::FilterSyscall(SYS_perf_event_open, SECCOMP_RET_KILL_PROCESS) != 0) _exit(2);
    const SystemInfo info = GatherSystemInfo(LibpfmPmus::kListed);
    _exit(info.kernel_pmus.value.has_value() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_FALSE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
      << "GatherSystemInfo called perf_event_open";
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_NE(WEXITSTATUS(status), 2) << "cannot install a seccomp filter";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(GatherSystemInfoTest, ToJsonHasStableFieldNames) {
  nlohmann::json j = ToJson(*info_);
  for (const char* key :
       {"architecture", "kernel_release", "cpu_vendor", "cpu_model", "hypervisor_present",
        "hypervisor_vendor", "hypervisor_name", "perf_event_paranoid", "core_pmu_present",
        "kernel_pmus", "libpfm_pmus", "valgrind_path", "valgrind_version", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j.size(), 14u) << j.dump(2);
  ASSERT_TRUE(j["kernel_pmus"].is_array());
  ASSERT_FALSE(j["kernel_pmus"].empty());
  for (const char* key : {"name", "type", "is_core"}) {
    EXPECT_TRUE(j["kernel_pmus"][0].contains(key)) << key;
  }
  ASSERT_TRUE(j["libpfm_pmus"].is_array());
  ASSERT_FALSE(j["libpfm_pmus"].empty());
  for (const char* key : {"name", "desc", "type", "num_events", "is_default"}) {
    EXPECT_TRUE(j["libpfm_pmus"][0].contains(key)) << key;
  }
}

TEST(SystemInfoJson, WritesNullAndANoteForWhatCouldNotBeRead) {
  SystemInfo info;
  info.architecture.value = "aarch64";
  info.perf_event_paranoid.note = "cannot read /proc/sys/kernel/perf_event_paranoid";
  info.kernel_pmus.value = std::vector<KernelPmu>{{"armv8_pmuv3_0", 8, true}};
  info.hypervisor_present.note = "cannot tell on this architecture";
  nlohmann::json j = ToJson(info);
  EXPECT_EQ(j["architecture"], "aarch64");
  EXPECT_TRUE(j["perf_event_paranoid"].is_null());
  EXPECT_EQ(j["notes"]["perf_event_paranoid"], "cannot read /proc/sys/kernel/perf_event_paranoid");
  EXPECT_TRUE(j["hypervisor_present"].is_null());
  EXPECT_TRUE(j["hypervisor_name"].is_null());
  EXPECT_EQ(j["core_pmu_present"], true);
  EXPECT_EQ(j["kernel_pmus"][0]["type"], 8);
  EXPECT_FALSE(j["notes"].contains("architecture"));
  EXPECT_TRUE(j["libpfm_pmus"].is_null());
}

TEST(IsCorePmu, ByNameOrByCpusFile) {
  EXPECT_TRUE(IsCorePmu("cpu", false));
  EXPECT_TRUE(IsCorePmu("cpu_core", true));
  EXPECT_TRUE(IsCorePmu("cpu_atom", true));
  EXPECT_TRUE(IsCorePmu("armv8_pmuv3_0", true));
  EXPECT_TRUE(IsCorePmu("armv8_cortex_a53", false));
  EXPECT_TRUE(IsCorePmu("apple_firestorm_pmu", true));
  EXPECT_FALSE(IsCorePmu("software", false));
  EXPECT_FALSE(IsCorePmu("msr", false));
  EXPECT_FALSE(IsCorePmu("uncore_imc_0", false));
  EXPECT_FALSE(IsCorePmu("cpupower", false));
}

TEST(ReadKernelPmus, ReadsATreeShapedLikeSysfs) {
  fs::path dir = fs::temp_directory_path() / ("workgate_pmus_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto make = [&](const std::string& name, const std::string& type, bool cpus) {
    fs::create_directories(dir / name);
    std::ofstream(dir / name / "type") << type;
    if (cpus) std::ofstream(dir / name / "cpus") << "0-3\n";
  };
  make("software", "1\n", false);
  make("apple_icestorm_pmu", "10\n", true);
  make("uncore_imc_0", "14\n", false);
  make("broken", "x\n", false);
  Probed<std::vector<KernelPmu>> pmus = ReadKernelPmus(dir.string());
  fs::remove_all(dir);
  ASSERT_TRUE(pmus.value.has_value()) << pmus.note;
  ASSERT_EQ(pmus.value->size(), 4u);
  EXPECT_EQ((*pmus.value)[0].name, "apple_icestorm_pmu");
  EXPECT_EQ((*pmus.value)[0].type, 10);
  EXPECT_TRUE((*pmus.value)[0].is_core);
  EXPECT_EQ((*pmus.value)[1].name, "broken");
  EXPECT_EQ((*pmus.value)[1].type, -1);
  EXPECT_FALSE((*pmus.value)[3].is_core);  // uncore_imc_0

  Probed<std::vector<KernelPmu>> none = ReadKernelPmus(dir.string());
  EXPECT_FALSE(none.value.has_value());
  EXPECT_NE(none.note.find(dir.string()), std::string::npos);
}

TEST(ParseParanoid, AcceptsIntegersOnly) {
  EXPECT_EQ(ParseParanoid("2\n").value_or(99), 2);
  EXPECT_EQ(ParseParanoid("-1\n").value_or(99), -1);
  EXPECT_EQ(ParseParanoid("4").value_or(99), 4);
  EXPECT_FALSE(ParseParanoid("").has_value());
  EXPECT_FALSE(ParseParanoid("2x").has_value());
  EXPECT_FALSE(ParseParanoid("abc").has_value());
}

}  // namespace
}  // namespace workgate
