#include "util/compression.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace workgate {
namespace {

std::string Bytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(gen());
  return out;
}

TEST(CompressionTest, GzipRoundTripsEveryKindOfInput) {
  // Empty, short, compressible, incompressible, and longer than one of
  // zlib's 32-bit pieces would take at once in the encoder's loop.
  const std::string inputs[] = {"", "x", std::string(5 << 20, 'a'), Bytes(3 << 20, 7),
                                "fn=main\n" + std::string(100000, '1')};
  for (const std::string& in : inputs) {
    const std::string gz = GzipCompress(in);
    ASSERT_GE(gz.size(), 18u);  // a gzip header and trailer at least
    EXPECT_EQ(gz.substr(0, 2), "\x1f\x8b");
    std::string out, err;
    ASSERT_TRUE(GzipDecompress(gz, in.size(), &out, &err)) << err;
    EXPECT_EQ(out, in);
  }
  EXPECT_LT(GzipCompress(std::string(5 << 20, 'a')).size(), 20000u);
}

TEST(CompressionTest, DecompressionStopsAtTheBound) {
  // 64 MiB of zeros in about 64 KiB: a file that would expand into a
  // gigabyte stops at the caller's bound instead.
  const std::string bomb = GzipCompress(std::string(64 << 20, '\0'));
  ASSERT_LT(bomb.size(), 100u << 10);
  std::string out, err;
  EXPECT_FALSE(GzipDecompress(bomb, 1 << 20, &out, &err));
  EXPECT_EQ(err, "not a whole gzip stream: it expands to more than 1048576 bytes");
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(GzipDecompress(bomb, 64 << 20, &out, &err)) << err;
  EXPECT_EQ(out.size(), 64u << 20);
}

TEST(CompressionTest, WhatIsNotOneWholeGzipStreamIsRefused) {
  const std::string gz = GzipCompress("profile text");
  std::string out, err;
  EXPECT_FALSE(GzipDecompress("", 100, &out, &err));
  EXPECT_EQ(err, "not a whole gzip stream: it is cut short");
  EXPECT_FALSE(GzipDecompress(gz.substr(0, gz.size() - 3), 100, &out, &err));
  EXPECT_EQ(err, "not a whole gzip stream: it is cut short");
  EXPECT_FALSE(GzipDecompress(gz + "junk", 100, &out, &err));
  EXPECT_EQ(err, "not a whole gzip stream: it has bytes after its end");
  EXPECT_FALSE(GzipDecompress("plain text, not gzip", 100, &out, &err));
  EXPECT_EQ(err.rfind("not a whole gzip stream: it is damaged (", 0), 0u) << err;
  std::string flipped = gz;
  flipped[flipped.size() - 6] ^= 0x40;  // the CRC-32 of the contents
  EXPECT_FALSE(GzipDecompress(flipped, 100, &out, &err));
  EXPECT_EQ(err, "not a whole gzip stream: it is damaged (incorrect data check)");
  EXPECT_TRUE(out.empty());
}

TEST(CompressionTest, Base64IsRfc4648AndStrict) {
  // RFC 4648, section 10.
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), encoded);
    std::string out, err;
    ASSERT_TRUE(Base64Decode(encoded, &out, &err)) << encoded << ": " << err;
    EXPECT_EQ(out, plain);
  }
  // Every byte value, and more than one of the encoder's pieces.
  for (const std::string& bytes : {Bytes(256, 1), Bytes((3 << 20) + 2, 2)}) {
    std::string out, err;
    ASSERT_TRUE(Base64Decode(Base64Encode(bytes), &out, &err)) << err;
    EXPECT_EQ(out, bytes);
  }
  std::string out, err;
  EXPECT_FALSE(Base64Decode("Zm9", &out, &err));
  EXPECT_EQ(err, "not base64: its length is not a multiple of 4");
  for (const char* bad : {"Zm9v\n", " Zm9", "Zm-v", "Z===", "=Zm9", "Zm9v\x80\x80\x80\x80"}) {
    EXPECT_FALSE(Base64Decode(bad, &out, &err)) << bad;
    EXPECT_TRUE(out.empty());
  }
}

}  // namespace
}  // namespace workgate
