#include "util/sha256.h"

#include <gtest/gtest.h>

#include <fstream>

namespace workgate {
namespace {

// Test vectors from FIPS 180-2, appendix B.
TEST(Sha256Test, KnownStrings) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// FIPS 180-2, appendix A; and git's name of the empty blob.
TEST(Sha256Test, Sha1OfKnownStrings) {
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Sha1Hex(std::string("blob 0\0", 7)), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

TEST(Sha256Test, FileReadInChunks) {
  // One million 'a' spans several read chunks.
  const std::string path = ::testing::TempDir() + "/wg_sha256_million_a";
  std::ofstream(path, std::ios::binary) << std::string(1000000, 'a');
  std::string err;
  std::optional<std::string> digest = Sha256OfFile(path, &err);
  ASSERT_TRUE(digest) << err;
  EXPECT_EQ(*digest, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  std::remove(path.c_str());
}

TEST(Sha256Test, MissingAndUnreadableFiles) {
  std::string err;
  EXPECT_FALSE(Sha256OfFile("/nonexistent/file", &err));
  EXPECT_NE(err.find("/nonexistent/file"), std::string::npos) << err;
  EXPECT_FALSE(Sha256OfFile("/", &err));  // a directory opens but cannot be read
  EXPECT_NE(err.find("read error"), std::string::npos) << err;
}

}  // namespace
}  // namespace workgate
