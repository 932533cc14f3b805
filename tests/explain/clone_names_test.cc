// SplitCloneName: which suffixes are a compiler's clones, and which dotted
// names must stay whole.

#include "explain/clone_names.h"

#include <gtest/gtest.h>

#include <string>

#include "explain/callgrind_profile.h"

namespace workgate {
namespace {

std::string Base(const std::string& name) { return SplitCloneName(name).base; }
std::string Suffix(const std::string& name) { return SplitCloneName(name).suffix; }

TEST(CloneNames, GccSuffixesAreRemoved) {
  const struct {
    const char* name;
    const char* base;
    const char* suffix;
  } cases[] = {
      {"sqlite3BtreeNext.constprop.0", "sqlite3BtreeNext", ".constprop.0"},
      {"releaseMemArray.part.0", "releaseMemArray", ".part.0"},
      {"foo.cold", "foo", ".cold"},
      {"foo.cold.12", "foo", ".cold.12"},  // GCC 8 numbered its cold parts
      {"foo.isra.0", "foo", ".isra.0"},
      {"foo.lto_priv.0", "foo", ".lto_priv.0"},
      {"foo.localalias", "foo", ".localalias"},
      {"foo.localalias.3", "foo", ".localalias.3"},
      {"foo.part.0.cold", "foo", ".part.0.cold"},
      {"foo.constprop.0.isra.0", "foo", ".constprop.0.isra.0"},
      {"foo.isra.0.part.1.constprop.12.cold", "foo", ".isra.0.part.1.constprop.12.cold"},
      {"foo.lto_priv.0.constprop.0", "foo", ".lto_priv.0.constprop.0"},
      {"x.constprop.1234567", "x", ".constprop.1234567"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Base(c.name), c.base) << c.name;
    EXPECT_EQ(Suffix(c.name), c.suffix) << c.name;
  }
}

TEST(CloneNames, ClangSuffixesAreRemoved) {
  EXPECT_EQ(Base("helper.llvm.10650195578168450516"), "helper");
  EXPECT_EQ(Base("helper.llvm.9C3A1F"), "helper");  // hex hash of older LLVM releases
  EXPECT_EQ(Base("helper.cold.1"), "helper");
  EXPECT_EQ(Base("helper.specialized.2"), "helper");
  EXPECT_EQ(Base("func4.__uniq.140291095734751150107370763113257199296"), "func4");
  EXPECT_EQ(Suffix("f.__uniq.1402.llvm.1065"), ".__uniq.1402.llvm.1065");
}

TEST(CloneNames, DemangledCloneBracketsAreRemoved) {
  // As DisplayFunctionName demangles them.
  EXPECT_EQ(DisplayFunctionName("_Z3fooi.constprop.0.isra.0"),
            "foo(int) [clone .constprop.0] [clone .isra.0]");
  CloneName c = SplitCloneName(DisplayFunctionName("_Z3fooi.constprop.0.isra.0"));
  EXPECT_EQ(c.base, "foo(int)");
  EXPECT_EQ(c.suffix, ".constprop.0.isra.0");
  EXPECT_EQ(Base(DisplayFunctionName("_ZN2ns1S4stepEv.part.0.cold")), "ns::S::step()");
  EXPECT_EQ(Base("ns::f(char const*, ...) [clone .cold]"), "ns::f(char const*, ...)");
  EXPECT_EQ(Base("f() [clone .llvm.123]"), "f()");
  // The demangler refuses a hex ThinLTO hash; the base demangles once the
  // suffix is off, and matches the other build's demangled name.
  EXPECT_EQ(DisplayFunctionName("_ZL3barv.llvm.A1B2"), "_ZL3barv.llvm.A1B2");
  EXPECT_EQ(Base("_ZL3barv.llvm.A1B2"), "bar()");
  EXPECT_EQ(Suffix("_ZL3barv.llvm.A1B2"), ".llvm.A1B2");
}

TEST(CloneNames, OtherDottedNamesStayWhole) {
  for (const char* name : {
           "main",
           "memcpy@@GLIBC_2.14",  // a symbol version
           "_IO_file_xsputn@@GLIBC_2.2.5",
           "printf(char const*, ...)",  // C++ varargs
           "runtime.mallocgc",          // Go
           "github.com/x/y.part.0",     // a dot stays in the base
           "github.com/x/y.cold",
           "a.b.cold",
           "java.lang.String.hashCode",
           "foo.1",     // LLVM's renaming of a duplicate
           "foo.part",  // the kind needs its number
           "foo.constprop",
           "foo.isra.x",
           "foo.llvm.",
           "foo.part.0x1",
           "foo.cold.-1",
           "foo.avx2.0",     // a target clone is another function
           "foo._omp_fn.0",  // an OpenMP body likewise
           "foo.resolver",
           "foo.",
           ".cold",  // nothing left
           ".part.0",
           "cold",
           "part.0",
           "(code without a symbol)",
           "0x0000000000001370",
           "f() [clone .avx2.0]",
           "f() [clone .part]",
           "[clone .cold]",
           " [clone .cold]",
           "f() [clone .cold] x",
           "",
       }) {
    EXPECT_EQ(Base(name), name) << name;
    EXPECT_EQ(Suffix(name), "") << name;
  }
}

TEST(CloneNames, OnlyTrailingClonesOfABracketedNameAreRemoved) {
  // An unknown bracket stops the walk from the end; what is before it stays.
  EXPECT_EQ(Base("f() [clone .cold] [clone .avx2.0]"), "f() [clone .cold] [clone .avx2.0]");
  EXPECT_EQ(Base("f() [clone .avx2.0] [clone .cold]"), "f() [clone .avx2.0]");
}

TEST(CloneNames, LongHostileNamesSplitInLinearTime) {
  // 200,000 suffixes: quadratic work would take minutes here.
  std::string name = "f";
  for (int i = 0; i < 200000; ++i) name += ".cold";
  CloneName c = SplitCloneName(name);
  EXPECT_EQ(c.base, "f");
  EXPECT_EQ(c.suffix.size(), name.size() - 1);
  std::string dotted(400000, '.');
  EXPECT_EQ(Base(dotted), dotted);
}

}  // namespace
}  // namespace workgate
