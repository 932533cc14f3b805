#include "identity/shared_libraries.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "identity/elf_file.h"
#include "identity/loader_paths.h"
#include "identity/test_programs.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::CompileC;
using testing::LddObjects;

// What the resolver lists for `exe`: each object's path, or its name when
// it is not found (the shape of LddObjects).
std::set<std::string> Resolved(const std::string& exe, const LoaderInputs& inputs = {}) {
  std::vector<LoadedObject> objects;
  std::string err;
  EXPECT_TRUE(ResolveSharedLibraries(exe, inputs, &objects, &err)) << exe << ": " << err;
  std::set<std::string> out;
  for (const LoadedObject& o : objects) {
    EXPECT_TRUE(out.insert(o.path.empty() ? o.name : o.path).second) << "twice: " << o.name;
  }
  return out;
}

TEST(SharedLibrariesTest, SystemProgramsResolveAsLddLists) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("ldd"), "ldd is not installed");
  WORKGATE_ASSERT_BUILT(testing::BuildPath("workloads/wgi-baseline"));
  WORKGATE_ASSERT_BUILT(testing::KnownLoop());
  for (const std::string& exe :
       {std::string("/bin/ls"), std::string("/usr/bin/python3"), std::string("/usr/bin/lua5.4"),
        testing::BuildPath("workloads/wgi-baseline"), testing::KnownLoop()}) {
    // python3 and lua5.4 are checked where ci/setup installed them.
    if (access(exe.c_str(), X_OK) != 0) {
      if (testing::InCi())
        ADD_FAILURE() << exe << " is missing, but ci/setup installs it (CI=true)";
      continue;
    }
    std::set<std::string> ldd = LddObjects(exe);
    EXPECT_GE(ldd.size(), 2u) << exe;  // at least libc and the interpreter
    EXPECT_EQ(Resolved(exe), ldd) << exe;
  }
}

TEST(SharedLibrariesTest, PreloadedClockShimResolvesAsLddLists) {
  const std::string shim = testing::BuildPath("libworkgate-clock.so");
  WORKGATE_ASSERT_BUILT(shim);
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("ldd"), "ldd is not installed");
  for (const std::string& exe : {std::string("/bin/ls"), testing::KnownLoop()}) {
    LoaderInputs inputs;
    inputs.ld_preload = shim;
    std::set<std::string> resolved = Resolved(exe, inputs);
    EXPECT_EQ(resolved.count(shim), 1u);
    EXPECT_EQ(resolved, LddObjects(exe, "LD_PRELOAD=" + shim)) << exe;
  }
  // A preload that cannot be found is dropped, as the loader drops it.
  LoaderInputs missing;
  missing.ld_preload = "/nonexistent/libx.so libnonexistent.so";
  EXPECT_EQ(Resolved("/bin/ls", missing), Resolved("/bin/ls"));
}

TEST(SharedLibrariesTest, EtcLdSoPreloadIsRead) {
  const std::string shim = testing::BuildPath("libworkgate-clock.so");
  WORKGATE_ASSERT_BUILT(shim);
  const std::string file = ::testing::TempDir() + "/wg_ld_so_preload";
  std::ofstream(file) << "\n" << shim << " /nonexistent/libgone.so\n";
  LoaderInputs inputs;
  inputs.preload_path = file;
  EXPECT_EQ(Resolved("/bin/ls", inputs).count(shim), 1u);
  unlink(file.c_str());
}

// Programs and libraries built here, in the layouts the loader's search
// order tells apart; each is checked against ldd.
class BuiltPrograms : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::HaveTool("cc") || !testing::HaveTool("ldd")) {
      missing_tool_ = "cc or ldd is not installed";
      return;
    }
    std::string tmpl = ::testing::TempDir() + "/wg_shlib_XXXXXX";
    // Canonical: ldd (ld.so run as a command) takes the program's $ORIGIN
    // from the path it is given, a started program from its real path.
    dir_ = fs::canonical(mkdtemp(tmpl.data())).string();
    const std::string b = dir_ + "/build";
    fs::create_directories(b + "/runpath");
    built_ =
        CompileC("int wg_dep(void) { return 7; }\n", b + "/libwgdep.so",
                 "-shared -fPIC -Wl,-soname,libwgdep.so") &&
        CompileC(kMid, b + "/libwgmid.so",
                 "-shared -fPIC -Wl,-soname,libwgmid.so -L'" + b + "' -lwgdep") &&
        // The same library with a DT_RUNPATH of its own.
        CompileC(kMid, b + "/runpath/libwgmid.so",
                 "-shared -fPIC -Wl,-soname,libwgmid.so -L'" + b +
                     "' -lwgdep -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/elsewhere'") &&
        Program("runpath", kUsesDep, "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/lib'",
                {"lib/libwgdep.so"}) &&
        Program("rpath", kUsesMid, "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/lib'",
                {"lib/libwgmid.so", "lib/libwgdep.so"}) &&
        Program("rpath_over_runpath", kUsesMid, "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/lib'",
                {"lib/libwgdep.so", "lib/libwgmid.so=runpath/libwgmid.so"}) &&
        Program("runpath_chain", kUsesMid, "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/lib'",
                {"lib/libwgmid.so", "lib/libwgdep.so"}) &&
        Program("order_rpath", kUsesDep, "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/a'",
                {"a/libwgdep.so", "b/libwgdep.so"}) &&
        Program("order_runpath", kUsesDep, "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/a'",
                {"a/libwgdep.so", "b/libwgdep.so"}) &&
        Program("libtoken", kUsesDep, "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/${LIB}'",
                {LibDir() + "/libwgdep.so"}) &&
        Program("nodefaultlib", kUsesDep,
                "-Wl,-z,nodefaultlib -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/lib'",
                {"lib/libwgdep.so"}) &&
        Program("plain", kUsesDep, "", {"lib/libwgdep.so"});
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(missing_tool_.empty(), missing_tool_);
    ASSERT_TRUE(built_) << "cc failed to build the test programs";
  }

  static constexpr const char* kMid =
      "int wg_dep(void);\nint wg_mid(void) { return wg_dep() + 1; }\n";
  static constexpr const char* kUsesDep =
      "int wg_dep(void);\nint main(void) { return wg_dep() == 7 ? 0 : 1; }\n";
  static constexpr const char* kUsesMid =
      "int wg_mid(void);\nint main(void) { return wg_mid() == 8 ? 0 : 1; }\n";

  // $LIB for this machine's programs: "lib/x86_64-linux-gnu".
  static std::string LibDir() {
    FileSource file;
    ElfFile elf;
    std::string err;
    if (!file.Open("/bin/ls", &err) || !ReadElfHeader(file, &elf, &err)) return "";
    std::optional<LoaderArch> arch = LoaderArchFor(elf);
    return arch ? arch->lib : "";
  }

  // Builds DIR/<name>/prog from `source`, linked against the build's
  // libraries, and copies each library named in `libs` ("to" relative to
  // DIR/<name>, or "to=from" with "from" relative to the build directory)
  // from the build directory there.
  static bool Program(const std::string& name, const char* source, const std::string& flags,
                      const std::vector<std::string>& libs) {
    const fs::path at = fs::path(dir_) / name;
    fs::create_directories(at);
    for (const std::string& lib : libs) {
      const size_t eq = lib.find('=');
      const std::string to = lib.substr(0, eq);
      const std::string from =
          eq == std::string::npos ? fs::path(lib).filename().string() : lib.substr(eq + 1);
      fs::create_directories((at / to).parent_path());
      fs::copy_file(fs::path(dir_) / "build" / from, at / to);
    }
    const std::string b = dir_ + "/build";
    return CompileC(source, (at / "prog").string(),
                    flags + " -Wl,--as-needed -L'" + b + "' -lwgmid -lwgdep");
  }

  static std::string Prog(const std::string& name) { return dir_ + "/" + name + "/prog"; }

  static inline std::string missing_tool_, dir_;
  static inline bool built_ = false;
};

TEST_F(BuiltPrograms, RunpathOriginFindsTheLibraryBesideTheProgram) {
  std::set<std::string> resolved = Resolved(Prog("runpath"));
  EXPECT_EQ(resolved.count(dir_ + "/runpath/lib/libwgdep.so"), 1u);
  EXPECT_EQ(resolved, LddObjects(Prog("runpath")));
}

TEST_F(BuiltPrograms, RpathIsInheritedByWhatTheProgramLoads) {
  std::set<std::string> resolved = Resolved(Prog("rpath"));
  EXPECT_EQ(resolved.count(dir_ + "/rpath/lib/libwgmid.so"), 1u);
  EXPECT_EQ(resolved.count(dir_ + "/rpath/lib/libwgdep.so"), 1u);
  EXPECT_EQ(resolved, LddObjects(Prog("rpath")));
}

TEST_F(BuiltPrograms, ARequesterWithRunpathDoesNotUseItsLoadersRpath) {
  std::set<std::string> resolved = Resolved(Prog("rpath_over_runpath"));
  EXPECT_EQ(resolved.count(dir_ + "/rpath_over_runpath/lib/libwgmid.so"), 1u);
  EXPECT_EQ(resolved.count("libwgdep.so"), 1u) << "libwgdep.so should not be found";
  EXPECT_EQ(resolved, LddObjects(Prog("rpath_over_runpath")));
}

TEST_F(BuiltPrograms, RunpathIsNotInherited) {
  std::set<std::string> resolved = Resolved(Prog("runpath_chain"));
  EXPECT_EQ(resolved.count(dir_ + "/runpath_chain/lib/libwgmid.so"), 1u);
  EXPECT_EQ(resolved.count("libwgdep.so"), 1u) << "libwgdep.so should not be found";
  EXPECT_EQ(resolved, LddObjects(Prog("runpath_chain")));
}

TEST_F(BuiltPrograms, LdLibraryPathComesAfterRpathAndBeforeRunpath) {
  LoaderInputs inputs;
  for (const char* name : {"order_rpath", "order_runpath"}) {
    inputs.ld_library_path = dir_ + "/" + name + "/b";
    std::set<std::string> resolved = Resolved(Prog(name), inputs);
    const char* winner = std::string(name) == "order_rpath" ? "/a/" : "/b/";
    EXPECT_EQ(resolved.count(dir_ + "/" + name + winner + "libwgdep.so"), 1u) << name;
    EXPECT_EQ(resolved, LddObjects(Prog(name), "LD_LIBRARY_PATH=" + inputs.ld_library_path))
        << name;
  }
}

TEST_F(BuiltPrograms, LibTokenExpandsToTheMultiarchDirectory) {
  std::set<std::string> resolved = Resolved(Prog("libtoken"));
  EXPECT_EQ(resolved.count(dir_ + "/libtoken/" + LibDir() + "/libwgdep.so"), 1u);
  EXPECT_EQ(resolved, LddObjects(Prog("libtoken")));
}

TEST_F(BuiltPrograms, NoDefaultLibSkipsTheCacheAndTheSystemDirectories) {
  std::set<std::string> resolved = Resolved(Prog("nodefaultlib"));
  EXPECT_EQ(resolved.count("libc.so.6"), 1u) << "libc.so.6 should not be found";
  // ldd leaves the interpreter out when nothing found asks for it (libc
  // does, by its soname); the kernel maps it all the same, so it is listed.
  std::set<std::string> ldd = LddObjects(Prog("nodefaultlib"));
  FileSource file;
  ElfFile elf;
  std::string err;
  ASSERT_TRUE(file.Open(Prog("nodefaultlib"), &err) && ReadElfFile(file, &elf, &err)) << err;
  ldd.insert(elf.interpreter);
  EXPECT_EQ(resolved, ldd);
}

TEST_F(BuiltPrograms, AMissingLibraryIsNotFound) {
  std::set<std::string> resolved = Resolved(Prog("plain"));
  EXPECT_EQ(resolved.count("libwgdep.so"), 1u);
  EXPECT_EQ(resolved, LddObjects(Prog("plain")));
  LoaderInputs inputs;
  inputs.ld_library_path = "/nonexistent:" + dir_ + "/plain/lib";
  resolved = Resolved(Prog("plain"), inputs);
  EXPECT_EQ(resolved.count(dir_ + "/plain/lib/libwgdep.so"), 1u);
  EXPECT_EQ(resolved, LddObjects(Prog("plain"), "LD_LIBRARY_PATH=" + inputs.ld_library_path));
}

}  // namespace
}  // namespace workgate
