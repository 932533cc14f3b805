// FindMissingSymbols: which objects' code without a symbol gets a hint, and
// which files are looked at, on real stripped and unstripped copies of
// tests/explain/testdata/unnamed_work.c (built with known GNU build IDs).

#include "explain/symbol_hints.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "explain/explain.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCandBuildId = "fedcba9876543210fedcba9876543210fedcba98";

// Code without a symbol in `object` costing `unnamed`, and `named` in main,
// loaded from `paths`.
Profile Side(const std::string& object, uint64_t unnamed, uint64_t named,
             std::set<std::string> paths) {
  Profile p;
  p.self[{"0x0000000000001040", object}] = unnamed;
  p.self[{"main", "other"}] = named;
  p.total = unnamed + named;
  p.object_paths[object] = std::move(paths);
  return p;
}

class SymbolHintsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plain_ = testing::BuildPath("tests/unnamed_work_cand");
    stripped_ = dir_.path() + "/stripped/unnamed_work";
    fs::create_directories(fs::path(stripped_).parent_path());
    fs::copy_file(plain_, stripped_);
    const std::string strip = std::string(WORKGATE_STRIP) + " " + stripped_;
    ASSERT_EQ(std::system(strip.c_str()), 0) << strip;
    debug_root_ = dir_.path() + "/debug";
  }
  TempDir dir_;
  std::string plain_, stripped_, debug_root_;
};

TEST_F(SymbolHintsTest, StrippedFileWithNotableUnnamedCodeIsNamed) {
  // 900 of a delta of 1,000 in unnamed code; the baseline's file has symbols.
  Profile base = Side("unnamed_work", 100, 5000, {plain_});
  Profile cand = Side("unnamed_work", 1000, 5100, {stripped_});
  std::vector<MissingSymbols> m = FindMissingSymbols(base, cand, debug_root_);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].object, "unnamed_work");
  EXPECT_EQ(m[0].delta, 900);
  ASSERT_EQ(m[0].files.size(), 1u);
  const StrippedFile& f = m[0].files[0];
  EXPECT_EQ(f.path, stripped_);
  EXPECT_EQ(f.side, "candidate");
  EXPECT_EQ(f.build_id, kCandBuildId);
  EXPECT_EQ(f.debug_file,
            debug_root_ + "/.build-id/fe/dcba9876543210fedcba9876543210fedcba98.debug");
  EXPECT_FALSE(f.debug_file_exists);
  // Once the debug file is there, the hint says so.
  fs::create_directories(fs::path(f.debug_file).parent_path());
  std::ofstream(f.debug_file) << "debug";
  m = FindMissingSymbols(base, cand, debug_root_);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m[0].files[0].debug_file_exists);
  // A file with symbols gets no hint: its unnamed code is PLT stubs and the like.
  cand.object_paths["unnamed_work"] = {plain_};
  EXPECT_TRUE(FindMissingSymbols(base, cand, debug_root_).empty());
}

TEST_F(SymbolHintsTest, SamePathOnBothSidesIsOneFile) {
  Profile base = Side("unnamed_work", 100, 5000, {stripped_});
  Profile cand = Side("unnamed_work", 40, 5000, {stripped_});
  std::vector<MissingSymbols> m = FindMissingSymbols(base, cand, debug_root_);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].delta, -60);
  ASSERT_EQ(m[0].files.size(), 1u);
  EXPECT_EQ(m[0].files[0].side, "both");
}

TEST_F(SymbolHintsTest, NotableMeansATenthOfTheWholeDelta) {
  auto hinted = [this](uint64_t unnamed_delta, uint64_t named_delta) {
    Profile base = Side("unnamed_work", 1000, 100000, {stripped_});
    Profile cand = Side("unnamed_work", 1000 + unnamed_delta, 100000 + named_delta, {stripped_});
    return !FindMissingSymbols(base, cand, debug_root_).empty();
  };
  EXPECT_TRUE(hinted(100, 900));   // 10% of 1,000
  EXPECT_FALSE(hinted(99, 900));   // 99 of 999: under a tenth
  EXPECT_FALSE(hinted(100, 901));  // 100 of 1,001: just under a tenth
  EXPECT_TRUE(hinted(101, 909));   // 101 of 1,010
  EXPECT_FALSE(hinted(0, 1000));   // no change at all
  EXPECT_TRUE(hinted(5000, 0));    // all of it
  // The whole program did not change but unnamed code did.
  Profile base = Side("unnamed_work", 1000, 5000, {stripped_});
  Profile cand = Side("unnamed_work", 1001, 4999, {stripped_});
  EXPECT_EQ(FindMissingSymbols(base, cand, debug_root_).size(), 1u);
}

TEST_F(SymbolHintsTest, PathsACandidateCouldAbuseAreNotOpened) {
  const std::string fifo = dir_.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string relative = fs::relative(stripped_, fs::current_path()).string();
  // Each but the FIFO, the device and the directory would reach the stripped
  // file if it were opened: relative to the working directory, through
  // /proc, or cut at the NUL by the C library.
  for (const std::string& path :
       {relative, std::string("/proc/self/root") + stripped_, fifo, std::string("/dev/zero"),
        dir_.path(), dir_.path() + "/missing", stripped_ + std::string(1, '\0') + "x"}) {
    Profile base = Side("unnamed_work", 0, 5000, {path});
    Profile cand = Side("unnamed_work", 1000, 5000, {path});
    // Opening the FIFO for reading would block until a writer came.
    EXPECT_TRUE(FindMissingSymbols(base, cand, debug_root_).empty()) << path;
  }
}

TEST_F(SymbolHintsTest, FilesAndObjectsAreBounded) {
  // Six stripped copies on the candidate side: the first four, by path.
  std::set<std::string> copies;
  for (int i = 0; i < 6; ++i) {
    const std::string copy = dir_.path() + "/copy" + std::to_string(i);
    fs::copy_file(stripped_, copy);
    copies.insert(copy);
  }
  Profile base = Side("unnamed_work", 0, 5000, {});
  Profile cand = Side("unnamed_work", 1000, 5000, copies);
  std::vector<MissingSymbols> m = FindMissingSymbols(base, cand, debug_root_);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].files.size(), kMaxHintFilesPerSide);
  EXPECT_EQ(m[0].files[0].path, dir_.path() + "/copy0");
  EXPECT_EQ(m[0].files[3].path, dir_.path() + "/copy3");
  // Ten objects with notable unnamed code: the eight largest, then by name.
  Profile many_base, many_cand;
  // Work moved out of named code, so the whole delta is small.
  many_base.self[{"main", "other"}] = many_base.total = 1000;
  for (int i = 0; i < 10; ++i) {
    const std::string object = "lib" + std::to_string(i) + ".so";
    many_cand.self[{"0x10", object}] = 100 + (i < 5 ? 0 : 1);
    many_cand.total += 100 + (i < 5 ? 0 : 1);
    many_cand.object_paths[object] = {stripped_};
  }
  m = FindMissingSymbols(many_base, many_cand, debug_root_);
  ASSERT_EQ(m.size(), kMaxHintObjects);
  EXPECT_EQ(m[0].object, "lib5.so");
  EXPECT_EQ(m[4].object, "lib9.so");
  EXPECT_EQ(m[5].object, "lib0.so");
  EXPECT_EQ(m[7].object, "lib2.so");
}

TEST_F(SymbolHintsTest, ExplainProfilesAddsTheHints) {
  Profile base = Side("unnamed_work", 100, 5000, {plain_});
  Profile cand = Side("unnamed_work", 1000, 5100, {stripped_});
  Explanation e = ExplainProfiles(base, cand, 10, debug_root_);
  ASSERT_EQ(e.missing_symbols.size(), 1u);
  EXPECT_EQ(e.missing_symbols[0].files[0].build_id, kCandBuildId);
  ASSERT_FALSE(e.rows.empty());
  EXPECT_EQ(e.rows[0].function, kUnnamedCode);
}

}  // namespace
}  // namespace workgate
