// Packing a run's profile for a stored baseline and unpacking it for an
// explanation: what comes back is the profile that went in, and what was
// changed in the file on the way is refused, never unpacked.

#include "measure/profile_pack.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "measure/stability_runs.h"
#include "store/result_store.h"
#include "test_paths.h"
#include "util/compression.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// Two processes' profiles, in callgrind's format: 100 + 23 instructions.
constexpr char kFirst[] = "events: Ir\nfl=a.c\nfn=main\n1 100\ntotals: 100\n";
constexpr char kSecond[] = "events: Ir\nfl=b.c\nfn=child\n2 23\ntotals: 23\n";

class ProfilePackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kept_ = dir_.path() + "/kept";
    fs::create_directory(kept_);
    std::ofstream(kept_ + "/vgcount.profile.1") << kFirst;
    std::ofstream(kept_ + "/vgcount.profile.2") << kSecond;
    build_ = dir_.path() + "/wgi";
    std::ofstream(build_) << "#!/bin/sh\n";
    copy_ = dir_.path() + "/copy-of-wgi";
    fs::copy_file(build_, copy_);
  }

  PackedProfile Pack() {
    std::string why;
    std::optional<PackedProfile> p = PackProfile(kept_, {"vgcount", build_, copy_}, &why);
    EXPECT_TRUE(p) << why;
    return p.value_or(PackedProfile());
  }

  // Unpacks `p` into a new directory: its files' contents, or `*err`.
  std::vector<std::string> Unpack(const PackedProfile& p, std::string* err) {
    const std::string out = dir_.path() + "/out" + std::to_string(unpacked_++);
    if (!UnpackProfile(p, out, err)) {
      EXPECT_TRUE(ProfileFiles(out).empty()) << "a refused profile left files behind";
      return {};
    }
    std::vector<std::string> contents;
    for (const std::string& f : ProfileFiles(out)) contents.push_back(*ReadFile(f, 1 << 20));
    return contents;
  }

  TempDir dir_{"wg-profile-pack"};
  std::string kept_, build_, copy_;
  int unpacked_ = 0;
};

TEST_F(ProfilePackTest, WhatIsUnpackedIsWhatWasPacked) {
  const PackedProfile p = Pack();
  EXPECT_EQ(p.profiler, "vgcount");
  EXPECT_EQ(p.total, 123u);
  // The copy ran, so its name is the object the build's code is under; the
  // build is the file a person fixes.
  EXPECT_EQ(p.object, "copy-of-wgi");
  EXPECT_EQ(p.ran, RealPath(copy_));
  EXPECT_EQ(p.build, RealPath(build_));
  ASSERT_EQ(p.gzip_files.size(), 2u);
  EXPECT_EQ(p.gzip_files[0].first, "vgcount.profile.1");
  std::string err;
  EXPECT_EQ(Unpack(p, &err), (std::vector<std::string>{kFirst, kSecond})) << err;
}

TEST_F(ProfilePackTest, NoProfileSaysWhy) {
  std::string why;
  EXPECT_FALSE(PackProfile(dir_.path() + "/empty", {"vgcount", build_, ""}, &why));
  EXPECT_EQ(why, "its run kept no profile");
  std::ofstream(kept_ + "/vgcount.profile.3") << "not a profile\n";
  EXPECT_FALSE(PackProfile(kept_, {"vgcount", build_, ""}, &why));
  EXPECT_NE(why.find("vgcount.profile.3"), std::string::npos) << why;
  std::ofstream(kept_ + "/vgcount.profile.3") << std::string(kMaxStoredProfileBytes, '#');
  EXPECT_FALSE(PackProfile(kept_, {"vgcount", build_, ""}, &why));
  EXPECT_EQ(why.rfind("its profile is larger than a stored baseline keeps (32 MiB", 0), 0u) << why;
}

TEST_F(ProfilePackTest, AChangedFileIsRefused) {
  std::string err;
  PackedProfile p = Pack();
  p.total = 124;  // a count the files do not add up to
  EXPECT_TRUE(Unpack(p, &err).empty());
  EXPECT_EQ(err, "the stored profile adds up to 123, its count is 124");

  p = Pack();
  p.gzip_files[1].first = "../escape";
  EXPECT_TRUE(Unpack(p, &err).empty());
  EXPECT_EQ(err, "a stored profile has a file name that is no plain name");
  EXPECT_FALSE(fs::exists(dir_.path() + "/escape"));

  p = Pack();
  p.gzip_files[1].second = "not gzip";
  EXPECT_TRUE(Unpack(p, &err).empty());
  EXPECT_EQ(err.rfind("its file vgcount.profile.2: not a whole gzip stream", 0), 0u) << err;

  p = Pack();
  p.gzip_files[1].second = GzipCompress("this is no callgrind output\n");
  EXPECT_TRUE(Unpack(p, &err).empty());
  EXPECT_NE(err.find("vgcount.profile.2"), std::string::npos) << err;
}

TEST_F(ProfilePackTest, NothingUnpacksBeyondTheStoresBounds) {
  // Each file alone is within the bound; together they are not.
  PackedProfile p = Pack();
  const std::string half = GzipCompress(std::string(kMaxStoredProfileBytes / 2 + 1, '#'));
  p.gzip_files = {{"a", half}, {"b", half}};
  std::string err;
  EXPECT_TRUE(Unpack(p, &err).empty());
  EXPECT_EQ(err.rfind("its file b: not a whole gzip stream: it expands to more than", 0), 0u)
      << err;
  p.gzip_files.assign(kMaxStoredProfileFiles + 1, {"a", GzipCompress(kFirst)});
  EXPECT_TRUE(Unpack(p, &err).empty());
  EXPECT_EQ(err, "it has 4097 files, more than 4096");
}

}  // namespace
}  // namespace workgate
