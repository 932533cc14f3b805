#include "identity/fingerprint.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "hostile/hostile_paths.h"
#include "identity/elf_file.h"
#include "identity/test_programs.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {

Fingerprint SampleFingerprint() {
  Fingerprint fp;
  fp.workgate_version = "0.1.0";
  fp.backend = "callgrind";
  fp.event = "Ir";
  fp.cpu_model = "Intel(R) Xeon(R) CPU";
  fp.kernel = "6.1.0-13-amd64";
  fp.valgrind_version = "3.19.0";
  fp.valgrind_path = "/usr/bin/valgrind";
  fp.binary_sha256 = std::string(64, 'a');
  fp.libraries = {{"/lib/x86_64-linux-gnu/libc.so.6", std::string(64, 'b')}};
  fp.ld_so_cache_sha256 = std::string(64, 'c');
  fp.argv = {"./exe", "--n", "10"};
  fp.env = {{"PATH", "/usr/bin:/bin"}, {"WORKGATE_FIXED_CLOCK", "1"}};
  fp.suite_sha256 = std::string(64, 'd');
  return fp;
}

std::string ProblemOf(const Fingerprint& a, const Fingerprint& b) {
  std::optional<std::string> p = CompatibilityProblem(a, b);
  return p ? *p : "";
}

TEST(FingerprintTest, IdenticalFingerprintsAreCompatible) {
  EXPECT_EQ(CompatibilityProblem(SampleFingerprint(), SampleFingerprint()), std::nullopt);
}

TEST(FingerprintTest, TheChangeUnderTestAndTheKernelAreNotProblems) {
  Fingerprint b = SampleFingerprint();
  b.binary_sha256 = std::string(64, 'e');
  b.libraries["/usr/lib/libextra.so"] = std::string(64, 'f');
  b.kernel = "6.5.0";
  b.cpu_model = "AMD EPYC";  // not compared under Valgrind
  EXPECT_EQ(CompatibilityProblem(SampleFingerprint(), b), std::nullopt);
}

TEST(FingerprintTest, EachPartThatMovesACountIsAProblem) {
  struct Case {
    void (*change)(Fingerprint*);
    const char* expected;
  };
  const Case cases[] = {
      {[](Fingerprint* f) { f->backend = "perf"; },
       "counting backend differs (baseline callgrind, candidate perf)"},
      {[](Fingerprint* f) { f->event = "instructions:u"; }, "event differs"},
      {[](Fingerprint* f) { f->valgrind_version = "3.20.0"; },
       "Valgrind version differs (baseline 3.19.0, candidate 3.20.0)"},
      {[](Fingerprint* f) { f->valgrind_path = "/home/ci/bin/valgrind"; },
       "Valgrind path differs (baseline /usr/bin/valgrind, candidate /home/ci/bin/valgrind)"},
      {[](Fingerprint* f) { f->workgate_version = "0.2.0"; }, "workgate version differs"},
      {[](Fingerprint* f) { f->suite_sha256 = std::string(64, '0'); },
       "the workload's definition differs"},
      {[](Fingerprint* f) { f->argv.back() = "11"; }, "argv differs"},
      {[](Fingerprint* f) { f->env["LANG"] = "C"; }, "environment differs in LANG"},
      {[](Fingerprint* f) { f->env["PATH"] = "/bin"; }, "environment differs in PATH"},
      {[](Fingerprint* f) { f->ld_so_cache_sha256 = std::string(64, '1'); },
       "dynamic loader cache (/etc/ld.so.cache) differs"},
  };
  for (const Case& c : cases) {
    Fingerprint b = SampleFingerprint();
    c.change(&b);
    std::string problem = ProblemOf(SampleFingerprint(), b);
    EXPECT_NE(problem.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in '" << problem << "'";
  }
}

TEST(FingerprintTest, CpuModelMattersUnderPerf) {
  Fingerprint a = SampleFingerprint(), b = SampleFingerprint();
  a.backend = b.backend = "perf";
  a.valgrind_version = b.valgrind_version = "";
  a.valgrind_path = b.valgrind_path = "";
  b.cpu_model = "AMD EPYC";
  EXPECT_NE(ProblemOf(a, b).find("CPU model differs"), std::string::npos);
}

TEST(FingerprintTest, AllProblemsAreListed) {
  Fingerprint b = SampleFingerprint();
  b.event = "Ir2";
  b.argv = {"./other"};
  std::string problem = ProblemOf(SampleFingerprint(), b);
  EXPECT_NE(problem.find("event differs"), std::string::npos) << problem;
  EXPECT_NE(problem.find("; argv differs"), std::string::npos) << problem;
}

TEST(FingerprintTest, SharedLibrariesOfTrueIncludeLibc) {
  std::map<std::string, std::string> libs;
  std::string err;
  ASSERT_TRUE(SharedLibrariesOf("/bin/true", &libs, &err)) << err;
  bool libc = false;
  for (const auto& [path, digest] : libs) {
    EXPECT_EQ(path[0], '/') << path;
    EXPECT_EQ(digest.size(), 64u) << path;
    if (path.find("/libc.so") != std::string::npos) libc = true;
  }
  EXPECT_TRUE(libc) << "no libc among " << libs.size() << " libraries";
}

class FingerprintDir {
 public:
  FingerprintDir() {
    std::string tmpl = ::testing::TempDir() + "/wg_fp_XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~FingerprintDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(FingerprintTest, ScriptsAndStaticProgramsHaveNoLibraries) {
  FingerprintDir dir;
  const std::string script = dir.path() + "/script.sh";
  std::ofstream(script) << "#!/bin/sh\necho ran > " << dir.path() << "/ran\n";
  chmod(script.c_str(), 0755);
  std::map<std::string, std::string> libs = {{"stale", "x"}};
  std::string err;
  ASSERT_TRUE(SharedLibrariesOf(script, &libs, &err)) << err;
  EXPECT_TRUE(libs.empty());
  EXPECT_NE(access((dir.path() + "/ran").c_str(), F_OK), 0) << "the script must not be run";

  // Debian's ldconfig is statically linked: no loader, no libraries.
  if (access("/sbin/ldconfig", X_OK) == 0) {
    FileSource file;
    ElfFile elf;
    ASSERT_TRUE(file.Open("/sbin/ldconfig", &err) && ReadElfFile(file, &elf, &err)) << err;
    if (elf.interpreter.empty()) {
      ASSERT_TRUE(SharedLibrariesOf("/sbin/ldconfig", &libs, &err)) << err;
      EXPECT_TRUE(libs.empty());
    }
  }
}

TEST(FingerprintTest, SharedLibrariesOfRunsNothing) {
  // tests/hostile/hostile_interp.c: a program interpreter that, when run,
  // leaves a daemon and records its pid in $HOSTILE_PIDS. (A script cannot be
  // an interpreter at all: the kernel refuses to start the program.)
  const std::string exe = testing::BuildPath("tests/hostile_interpreted");
  const std::string interp = testing::BuildPath("tests/hostile_interp");
#ifndef WORKGATE_HOSTILE_INTERP_BUILT
  GTEST_SKIP() << "the hostile interpreter is built for x86-64 and aarch64 only";
#endif
  WORKGATE_ASSERT_BUILT(exe);
  FingerprintDir dir;
  const std::string pids = dir.path() + "/pids";
  std::map<std::string, std::string> libs;
  std::string err;
  const bool listed = SharedLibrariesOf(exe, {{"HOSTILE_PIDS", pids}}, &libs, &err);
  EXPECT_TRUE(testing::RecordedPids(pids).empty()) << "the program's interpreter was run";
  ASSERT_TRUE(listed) << err;
  ASSERT_EQ(libs.count(interp), 1u) << "the interpreter is listed with its digest";
  EXPECT_EQ(libs[interp].size(), 64u);
  // The control: started, the program does run its interpreter.
  LaunchSpec spec;
  spec.argv = {exe};
  spec.env = {{"HOSTILE_PIDS", pids}};
  spec.timeout_seconds = 30;
  spec.grace_seconds = 0;  // its daemon is killed at once
  Launch(spec);
  EXPECT_EQ(testing::RecordedPids(pids).size(), 1u) << "the hostile interpreter does not work";
  EXPECT_TRUE(testing::Survivors(pids).empty());
}

TEST(FingerprintTest, LdLibraryPathComesFromTheGivenEnvironment) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  FingerprintDir dir;
  const std::string lib = dir.path() + "/lib/libwgfp.so", exe = dir.path() + "/prog";
  std::system(("mkdir -p '" + dir.path() + "/lib'").c_str());
  ASSERT_TRUE(testing::CompileC("int wg_fp(void) { return 0; }\n", lib,
                                "-shared -fPIC -Wl,-soname,libwgfp.so"));
  ASSERT_TRUE(testing::CompileC("int wg_fp(void);\nint main(void) { return wg_fp(); }\n", exe,
                                "-L'" + dir.path() + "/lib' -lwgfp"));
  std::map<std::string, std::string> libs;
  std::string err;
  ASSERT_TRUE(SharedLibrariesOf(exe, {{"LD_LIBRARY_PATH", dir.path() + "/lib"}}, &libs, &err))
      << err;
  EXPECT_EQ(libs.count(lib), 1u);
  EXPECT_EQ(libs.count("libwgfp.so"), 0u);
  // workgate's own LD_LIBRARY_PATH is not the workload's.
  const char* saved = getenv("LD_LIBRARY_PATH");
  const std::string old = saved ? saved : "";
  setenv("LD_LIBRARY_PATH", (dir.path() + "/lib").c_str(), 1);
  ASSERT_TRUE(SharedLibrariesOf(exe, {{"PATH", "/usr/bin:/bin"}}, &libs, &err)) << err;
  if (saved) {
    setenv("LD_LIBRARY_PATH", old.c_str(), 1);
  } else {
    unsetenv("LD_LIBRARY_PATH");
  }
  EXPECT_EQ(libs.count(lib), 0u);
  EXPECT_EQ(libs["libwgfp.so"], "not found");
}

TEST(FingerprintTest, LdPreloadComesFromTheGivenEnvironment) {
  const std::string shim = testing::BuildPath("libworkgate-clock.so");
  WORKGATE_ASSERT_BUILT(shim);
  std::map<std::string, std::string> libs;
  std::string err;
  ASSERT_TRUE(SharedLibrariesOf("/bin/true", {{"LD_PRELOAD", shim}}, &libs, &err)) << err;
  EXPECT_EQ(libs[shim].size(), 64u);
  ASSERT_TRUE(SharedLibrariesOf("/bin/true", {}, &libs, &err)) << err;
  EXPECT_EQ(libs.count(shim), 0u);
}

TEST(FingerprintTest, AMissingProgramIsAnError) {
  std::map<std::string, std::string> libs;
  std::string err;
  EXPECT_FALSE(SharedLibrariesOf("/nonexistent/workgate-exe", &libs, &err));
  EXPECT_NE(err.find("/nonexistent/workgate-exe"), std::string::npos) << err;
}

TEST(FingerprintTest, LoaderCacheDigest) {
  std::string err;
  std::optional<std::string> missing = LdSoCacheSha256("/nonexistent/ld.so.cache", &err);
  ASSERT_TRUE(missing) << err;
  EXPECT_EQ(*missing, "");
  if (access("/etc/ld.so.cache", R_OK) != 0) GTEST_SKIP() << "no /etc/ld.so.cache here";
  std::optional<std::string> digest = LdSoCacheSha256(&err);
  ASSERT_TRUE(digest) << err;
  EXPECT_EQ(digest->size(), 64u);
}

}  // namespace
}  // namespace workgate
