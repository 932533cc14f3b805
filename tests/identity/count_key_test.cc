// The count cache's key: every part of what a count depends on moves it,
// and nothing else does.

#include "identity/count_key.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "doc_lists.h"
#include "util/paths.h"

namespace workgate {
namespace {

Fingerprint SomeFingerprint() {
  Fingerprint fp;
  fp.workgate_version = "0.1.0-240-gabcdef0";
  fp.backend = "vgcount";
  fp.event = "Ir";
  fp.cpu_model = "AMD EPYC";
  fp.kernel = "6.1.0-18-amd64";
  fp.valgrind_version = "valgrind-3.19.0";
  fp.valgrind_path = "/usr/bin/valgrind.bin";
  fp.binary_sha256 = std::string(64, 'b');
  fp.libraries = {{"/lib/x86_64-linux-gnu/libc.so.6", std::string(64, 'c')},
                  {"/work/build/libinterp.so", std::string(64, 'i')}};
  fp.ld_so_cache_sha256 = std::string(64, 'l');
  fp.argv = {"/tmp/workgate-0/w0123/exe", "/src/workloads/scripts/fib.wg"};
  fp.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/tmp/workgate-0/w0123"}};
  fp.suite_sha256 = std::string(64, 's');
  return fp;
}

CountContext SomeContext() {
  return {"build-id:0011", "build-id:2233", "AuthenticAMD avx2 bmi2", "/tmp/workgate-0/w0123"};
}

TEST(CountKeyTest, TheSameInputsGiveTheSameKeyOf64HexDigits) {
  const std::string key = CountKey(SomeFingerprint(), SomeContext());
  EXPECT_EQ(key, CountKey(SomeFingerprint(), SomeContext()));
  ASSERT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos) << key;
}

TEST(CountKeyTest, ChangingAnySinglePartMissesTheCache) {
  const std::string key = CountKey(SomeFingerprint(), SomeContext());
  using FpChange = std::function<void(Fingerprint*)>;
  const std::vector<std::pair<std::string, FpChange>> fingerprint_changes = {
      {"build digest", [](Fingerprint* f) { f->binary_sha256[0] = 'x'; }},
      {"library digests: a library's digest", [](Fingerprint* f) { f->libraries.begin()->second[5] = 'x'; }},
      {"library digests: a library more", [](Fingerprint* f) { f->libraries["/lib/libm.so.6"] = "m"; }},
      {"library digests: a library's path",
       [](Fingerprint* f) {
         f->libraries["/usr/lib/libc.so.6"] = f->libraries.begin()->second;
         f->libraries.erase(f->libraries.begin());
       }},
      {"loader cache", [](Fingerprint* f) { f->ld_so_cache_sha256[1] = 'x'; }},
      {"argv", [](Fingerprint* f) { f->argv.push_back("--fast"); }},
      {"argv: their order", [](Fingerprint* f) { std::swap(f->argv[0], f->argv[1]); }},
      {"environment: a value", [](Fingerprint* f) { f->env["PATH"] = "/bin"; }},
      {"environment: a variable more", [](Fingerprint* f) { f->env["LC_ALL"] = "C"; }},
      {"workload definition", [](Fingerprint* f) { f->suite_sha256[2] = 'x'; }},
      {"backend", [](Fingerprint* f) { f->backend = "callgrind"; }},
      {"event", [](Fingerprint* f) { f->event = "Dr"; }},
      {"Valgrind version", [](Fingerprint* f) { f->valgrind_version = "valgrind-3.20.0"; }},
      {"Valgrind path", [](Fingerprint* f) { f->valgrind_path = "/opt/valgrind/bin/valgrind"; }},
      {"workgate commit", [](Fingerprint* f) { f->workgate_version = "0.1.0-241-g1234567"; }},
      {"kernel", [](Fingerprint* f) { f->kernel = "6.1.0-19-amd64"; }},
  };
  for (const auto& [part, change] : fingerprint_changes) {
    Fingerprint fp = SomeFingerprint();
    change(&fp);
    EXPECT_NE(CountKey(fp, SomeContext()), key) << part;
  }
  using ContextChange = std::function<void(CountContext*)>;
  const std::vector<std::pair<std::string, ContextChange>> context_changes = {
      {"workgate build", [](CountContext* c) { c->workgate_build = "build-id:0012"; }},
      {"Valgrind tool build", [](CountContext* c) { c->tool_build = "sha256:ff"; }},
      {"guest CPU", [](CountContext* c) { c->guest_cpu = "AuthenticAMD avx2"; }},
      {"working directory", [](CountContext* c) { c->cwd = "/home/ci"; }},
      {"metric", [](CountContext* c) { c->metric = "estimated-cycles"; }},
  };
  for (const auto& [part, change] : context_changes) {
    CountContext context = SomeContext();
    change(&context);
    EXPECT_NE(CountKey(SomeFingerprint(), context), key) << part;
  }
  // docs/store.md lists the key's parts: each is changed above, and
  // nothing is changed above that the list leaves out.
  std::set<std::string> changed;
  for (const auto& change : fingerprint_changes) changed.insert(change.first.substr(0, change.first.find(':')));
  for (const auto& change : context_changes) changed.insert(change.first);
  EXPECT_EQ(changed, testing::DocumentedItems("docs/store.md", "key-parts"));
}

TEST(CountKeyTest, TheCpuModelCountsOnPerfOnly) {
  // Valgrind's guest CPU comes from the host's features (the context), not
  // its model name; a PMU's count is the host CPU's own.
  Fingerprint fp = SomeFingerprint();
  Fingerprint other = fp;
  other.cpu_model = "Intel Xeon";
  EXPECT_EQ(CountKey(fp, SomeContext()), CountKey(other, SomeContext()));
  fp.backend = other.backend = "perf";
  EXPECT_NE(CountKey(fp, SomeContext()), CountKey(other, SomeContext()));
}

TEST(GuestCpuFeaturesTest, KeepsTheFeaturesValgrindsGuestCpuIsMadeFrom) {
  const std::string x86 =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel Xeon\n"
      "flags\t\t: fpu vme avx2 sse2 pni hypervisor bmi2 avx constant_tsc rdrand avx2\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\nflags\t\t: fpu avx512f\n";
  EXPECT_EQ(GuestCpuFeatures(x86), "GenuineIntel avx avx2 bmi2 pni rdrand");
  // A flag VEX ignores (the hypervisor bit, the TSC's constancy) does not
  // split the cache between two runners.
  std::string same = x86;
  same.replace(same.find("hypervisor"), 10, "tsc_known_freq");
  EXPECT_EQ(GuestCpuFeatures(same), GuestCpuFeatures(x86));

  const std::string arm =
      "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm crc32 atomics\n"
      "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
  EXPECT_EQ(GuestCpuFeatures(arm), "0x41 asimd atomics crc32 evtstrm fp");
  EXPECT_EQ(GuestCpuFeatures(""), "");
}

TEST(FileIdentityTest, ABuildIdWhereThereIsOneElseTheFilesDigest) {
  std::string err;
  // Debian links its programs with a GNU build ID.
  EXPECT_EQ(FileIdentity("/bin/true", &err).rfind("build-id:", 0), 0u) << err;
  TempDir dir;
  const std::string script = dir.path() + "/script";
  std::ofstream(script) << "#!/bin/sh\n";
  const std::string identity = FileIdentity(script, &err);
  EXPECT_EQ(identity.rfind("sha256:", 0), 0u) << identity;
  EXPECT_EQ(identity.size(), 7u + 64u);
  EXPECT_EQ(FileIdentity(dir.path() + "/missing", &err), "");
  EXPECT_NE(err.find("missing"), std::string::npos) << err;
}

TEST(HistoryConditionsTest, TheBuildsOwnFilesAreNoConditionTheSystemsAre) {
  const Fingerprint fp = SomeFingerprint();
  const auto parts = HistoryConditionParts(fp, "/work/build");
  const std::string digest = HistoryConditionsDigest(parts);

  // Another commit: another binary and another library of its own.
  Fingerprint next = fp;
  next.binary_sha256[0] = 'x';
  next.libraries["/work/build/libinterp.so"][0] = 'x';
  EXPECT_EQ(HistoryConditionsDigest(HistoryConditionParts(next, "/work/build")), digest);

  // A new C library on the runner, another Valgrind: the counts do not compare.
  Fingerprint libc = fp;
  libc.libraries["/lib/x86_64-linux-gnu/libc.so.6"][0] = 'x';
  const auto libc_parts = HistoryConditionParts(libc, "/work/build");
  EXPECT_NE(HistoryConditionsDigest(libc_parts), digest);
  EXPECT_NE(libc_parts.at("system libraries"), parts.at("system libraries"));
  Fingerprint valgrind = fp;
  valgrind.valgrind_version = "valgrind-3.20.0";
  EXPECT_NE(HistoryConditionParts(valgrind, "/work/build").at("valgrind"), parts.at("valgrind"));
  EXPECT_EQ(parts.count("cpu"), 0u);  // Valgrind: the model name does not matter
}

}  // namespace
}  // namespace workgate
