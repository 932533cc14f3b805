#include "identity/loader_paths.h"

#include <elf.h>
#include <gtest/gtest.h>

namespace workgate {
namespace {

ElfFile Program(uint8_t elf_class, uint16_t machine, uint32_t flags = 0) {
  ElfFile elf;
  elf.elf_class = elf_class;
  elf.machine = machine;
  elf.flags = flags;
  return elf;
}

// The x86-64 layout, which the first test checks is known: value() throws,
// and so fails the test, where it is not.
LoaderArch X8664() { return LoaderArchFor(Program(ELFCLASS64, EM_X86_64)).value(); }

TEST(LoaderPathsTest, DebianMultiarchLayoutPerArchitecture) {
  std::optional<LoaderArch> x86 = LoaderArchFor(Program(ELFCLASS64, EM_X86_64));
  ASSERT_TRUE(x86);
  EXPECT_EQ(x86->lib, "lib/x86_64-linux-gnu");
  EXPECT_EQ(x86->cache_flags, 0x0303);
  EXPECT_EQ(x86->default_dirs,
            (std::vector<std::string>{"/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/",
                                      "/lib/", "/usr/lib/"}));
  std::optional<LoaderArch> arm64 = LoaderArchFor(Program(ELFCLASS64, EM_AARCH64));
  ASSERT_TRUE(arm64);
  EXPECT_EQ(arm64->lib, "lib/aarch64-linux-gnu");
  EXPECT_EQ(arm64->cache_flags, 0x0a03);
  EXPECT_EQ(arm64->default_dirs,
            (std::vector<std::string>{"/lib/aarch64-linux-gnu/", "/usr/lib/aarch64-linux-gnu/",
                                      "/lib/", "/usr/lib/"}));
  std::optional<LoaderArch> i386 = LoaderArchFor(Program(ELFCLASS32, EM_386));
  ASSERT_TRUE(i386);
  EXPECT_EQ(i386->default_dirs[0], "/lib/i386-linux-gnu/");
  EXPECT_TRUE(i386->cache_takes_plain_elf);
  std::optional<LoaderArch> armhf =
      LoaderArchFor(Program(ELFCLASS32, EM_ARM, EF_ARM_ABI_FLOAT_HARD));
  ASSERT_TRUE(armhf);
  EXPECT_EQ(armhf->lib, "lib/arm-linux-gnueabihf");
  std::optional<LoaderArch> armel = LoaderArchFor(Program(ELFCLASS32, EM_ARM));
  ASSERT_TRUE(armel);
  EXPECT_EQ(armel->lib, "lib/arm-linux-gnueabi");
  EXPECT_FALSE(LoaderArchFor(Program(ELFCLASS32, EM_X86_64)));  // x32: not known
  EXPECT_FALSE(LoaderArchFor(Program(ELFCLASS64, EM_RISCV)));
  EXPECT_FALSE(LoaderArchFor(ElfFile()));
}

TEST(LoaderPathsTest, ExpandsTheTokensTheLoaderKnows) {
  const LoaderArch arch = X8664();
  auto expand = [&](std::string_view text) {
    return ExpandDynamicTokens(text, "/opt/app", arch).value_or("(dropped)");
  };
  EXPECT_EQ(expand("$ORIGIN/lib"), "/opt/app/lib");
  EXPECT_EQ(expand("${ORIGIN}/../lib"), "/opt/app/../lib");
  EXPECT_EQ(expand("/x/$ORIGIN$ORIGIN"), "/x//opt/app/opt/app");
  EXPECT_EQ(expand("/usr/$LIB/app"), "/usr/lib/x86_64-linux-gnu/app");
  EXPECT_EQ(expand("/usr/${LIB}"), "/usr/lib/x86_64-linux-gnu");
  // Not tokens: kept as written.
  EXPECT_EQ(expand("$ORIGINAL/x"), "$ORIGINAL/x");
  EXPECT_EQ(expand("$LIB_DIR"), "$LIB_DIR");
  EXPECT_EQ(expand("${ORIGIN"), "${ORIGIN");
  EXPECT_EQ(expand("/a$/b$"), "/a$/b$");
  EXPECT_EQ(expand("$HOME/lib"), "$HOME/lib");
  // Known but not reproduced, or not expandable: the element is dropped.
  EXPECT_EQ(expand("/opt/$PLATFORM/lib"), "(dropped)");
  EXPECT_EQ(expand("/opt/${PLATFORM}"), "(dropped)");
  EXPECT_EQ(ExpandDynamicTokens("$ORIGIN/lib", "", arch), std::nullopt);
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "$ORIGIN";
  EXPECT_EQ(ExpandDynamicTokens(many, std::string(100, 'o'), arch), std::nullopt);
}

std::vector<std::string> Dirs(std::string_view list, std::string_view separators = ":") {
  std::vector<std::string> dirs;
  ForEachSearchDir(list, separators, "/opt/app", X8664(), [&](const std::string& d) {
    dirs.push_back(d);
    return true;
  });
  return dirs;
}

TEST(LoaderPathsTest, SplitsSearchListsAsTheLoaderDoes) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Dirs("/a:/b//:/"), (V{"/a/", "/b/", "/"}));
  EXPECT_EQ(Dirs("$ORIGIN/lib:$ORIGIN"), (V{"/opt/app/lib/", "/opt/app/"}));
  // An empty element is the current directory; an empty list is no list.
  EXPECT_EQ(Dirs("/a::/b:"), (V{"/a/", "", "/b/", ""}));
  EXPECT_EQ(Dirs(""), V{});
  EXPECT_EQ(Dirs("/a:/p/$PLATFORM:/b"), (V{"/a/", "/b/"}));
  EXPECT_EQ(Dirs("/a;/b:/c", ":;"), (V{"/a/", "/b/", "/c/"}));
  EXPECT_EQ(Dirs("/a;/b"), (V{"/a;/b/"}));
  std::vector<std::string> seen;
  ForEachSearchDir("/a:/b:/c", ":", "", X8664(), [&](const std::string& d) {
    seen.push_back(d);
    return seen.size() < 2;
  });
  EXPECT_EQ(seen, (V{"/a/", "/b/"}));
}

}  // namespace
}  // namespace workgate
