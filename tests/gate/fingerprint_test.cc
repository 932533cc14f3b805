#include "gate/fingerprint.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace workgate {
namespace {

Fingerprint Sample() {
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
  EXPECT_EQ(CompatibilityProblem(Sample(), Sample()), std::nullopt);
}

TEST(FingerprintTest, TheChangeUnderTestAndTheKernelAreNotProblems) {
  Fingerprint b = Sample();
  b.binary_sha256 = std::string(64, 'e');
  b.libraries["/usr/lib/libextra.so"] = std::string(64, 'f');
  b.kernel = "6.5.0";
  b.cpu_model = "AMD EPYC";  // not compared under Valgrind
  EXPECT_EQ(CompatibilityProblem(Sample(), b), std::nullopt);
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
    Fingerprint b = Sample();
    c.change(&b);
    std::string problem = ProblemOf(Sample(), b);
    EXPECT_NE(problem.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in '" << problem << "'";
  }
}

TEST(FingerprintTest, CpuModelMattersUnderPerf) {
  Fingerprint a = Sample(), b = Sample();
  a.backend = b.backend = "perf";
  a.valgrind_version = b.valgrind_version = "";
  a.valgrind_path = b.valgrind_path = "";
  b.cpu_model = "AMD EPYC";
  EXPECT_NE(ProblemOf(a, b).find("CPU model differs"), std::string::npos);
}

TEST(FingerprintTest, AllProblemsAreListed) {
  Fingerprint b = Sample();
  b.event = "Ir2";
  b.argv = {"./other"};
  std::string problem = ProblemOf(Sample(), b);
  EXPECT_NE(problem.find("event differs"), std::string::npos) << problem;
  EXPECT_NE(problem.find("; argv differs"), std::string::npos) << problem;
}

TEST(FingerprintTest, ParsesTheLoaderTrace) {
  const std::string trace =
      "\tlinux-vdso.so.1 (0x00007ffc3a7e5000)\n"
      "\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f0d1a000000)\n"
      "\tlibmissing.so.1 => not found\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007f0d1a5f4000)\n";
  auto objects = ParseLoadedObjects(trace);
  ASSERT_EQ(objects.size(), 3u);
  EXPECT_EQ(objects[0].first, "libstdc++.so.6");
  EXPECT_EQ(objects[0].second, "/lib/x86_64-linux-gnu/libstdc++.so.6");
  EXPECT_EQ(objects[1].first, "libmissing.so.1");
  EXPECT_EQ(objects[1].second, "");
  EXPECT_EQ(objects[2].second, "/lib64/ld-linux-x86-64.so.2");
  EXPECT_TRUE(ParseLoadedObjects("\tstatically linked\n").empty());
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

class TempDir {
 public:
  TempDir() {
    std::string tmpl = testing::TempDir() + "/wg_fp_XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(FingerprintTest, ScriptsAndStaticProgramsHaveNoLibraries) {
  TempDir dir;
  const std::string script = dir.path() + "/script.sh";
  std::ofstream(script) << "#!/bin/sh\necho ran > " << dir.path() << "/ran\n";
  chmod(script.c_str(), 0755);
  std::map<std::string, std::string> libs = {{"stale", "x"}};
  std::string err;
  ASSERT_TRUE(SharedLibrariesOf(script, &libs, &err)) << err;
  EXPECT_TRUE(libs.empty());
  EXPECT_NE(access((dir.path() + "/ran").c_str(), F_OK), 0) << "the script must not be run";

  // Debian's ldconfig is statically linked; it must be left alone, not run.
  if (access("/sbin/ldconfig", X_OK) == 0) {
    std::optional<std::string> interp = ElfInterpreter("/sbin/ldconfig", &err);
    ASSERT_TRUE(interp) << err;
    if (interp->empty()) {
      ASSERT_TRUE(SharedLibrariesOf("/sbin/ldconfig", &libs, &err)) << err;
      EXPECT_TRUE(libs.empty());
    }
  }
}

TEST(FingerprintTest, ElfInterpreterOfADynamicProgram) {
  std::string err;
  std::optional<std::string> interp = ElfInterpreter("/bin/true", &err);
  ASSERT_TRUE(interp) << err;
  EXPECT_NE(interp->find("ld-linux"), std::string::npos) << *interp;
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
