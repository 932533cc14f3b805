#include "identity/ld_so_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace workgate {
namespace {

constexpr int32_t kX8664 = 0x0303;
constexpr int32_t kI386 = 0x0003;

struct Entry {
  int32_t flags;
  std::string name, path;
  uint64_t hwcap = 0;
};

template <typename T>
void Append(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof v);
}

// A cache in the new format: header, entries, then the strings, whose
// offsets count from the header's start.
std::string NewCache(const std::vector<Entry>& entries, uint8_t byte_order = 0) {
  const size_t strings_at = 48 + 24 * entries.size();
  std::string strings, table;
  for (const Entry& e : entries) {
    Append<int32_t>(&table, e.flags);
    Append<uint32_t>(&table, strings_at + strings.size());
    strings += e.name + '\0';
    Append<uint32_t>(&table, strings_at + strings.size());
    strings += e.path + '\0';
    Append<uint32_t>(&table, 0);
    Append<uint64_t>(&table, e.hwcap);
  }
  std::string out = "glibc-ld.so.cache1.1";
  Append<uint32_t>(&out, entries.size());
  Append<uint32_t>(&out, strings.size());
  out += static_cast<char>(byte_order);
  out.append(19, '\0');
  return out + table + strings;
}

// A cache in the old format: header, entries, then the strings, whose
// offsets count from the end of the entries.
std::string OldCache(const std::vector<Entry>& entries) {
  std::string strings, table;
  for (const Entry& e : entries) {
    Append<int32_t>(&table, e.flags);
    Append<uint32_t>(&table, strings.size());
    strings += e.name + '\0';
    Append<uint32_t>(&table, strings.size());
    strings += e.path + '\0';
  }
  std::string out = "ld.so-1.7.0";
  out += '\0';
  Append<uint32_t>(&out, entries.size());
  return out + table + strings;
}

std::vector<LdSoCacheEntry> ParsedCache(const std::string& bytes) {
  std::vector<LdSoCacheEntry> entries;
  std::string err;
  EXPECT_TRUE(ParseLdSoCache(bytes, &entries, &err)) << err;
  return entries;
}

const std::vector<Entry> kSample = {
    // A glibc-hwcaps entry comes first in a real cache; it is passed over.
    {kX8664, "libz.so.1", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libz.so.1",
     (1ull << 62) | 1},
    {kI386, "libz.so.1", "/lib/i386-linux-gnu/libz.so.1"},
    {kX8664, "libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"},
    {kX8664, "libz.so.1", "/usr/local/lib/libz.so.1"},
    {1, "libold.so", "/lib/libold.so"},
};

void ExpectSampleLookups(const std::vector<LdSoCacheEntry>& entries) {
  EXPECT_EQ(LookUpLdSoCache(entries, "libz.so.1", kX8664, false),
            "/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_EQ(LookUpLdSoCache(entries, "libz.so.1", kI386, true), "/lib/i386-linux-gnu/libz.so.1");
  EXPECT_EQ(LookUpLdSoCache(entries, "libold.so", kI386, true), "/lib/libold.so");
  EXPECT_EQ(LookUpLdSoCache(entries, "libold.so", kX8664, false), "");
  EXPECT_EQ(LookUpLdSoCache(entries, "libz.so", kX8664, false), "");
}

TEST(LdSoCacheTest, NewFormat) {
  std::vector<LdSoCacheEntry> entries = ParsedCache(NewCache(kSample));
  ASSERT_EQ(entries.size(), kSample.size());
  EXPECT_EQ(entries[0].hwcap, (1ull << 62) | 1);
  ExpectSampleLookups(entries);
}

TEST(LdSoCacheTest, NewFormatAfterTheOldOne) {
  // The old part names other paths: the loader reads the new part.
  std::vector<Entry> stale = {{kX8664, "libz.so.1", "/stale/libz.so.1"}};
  for (size_t old_entries : {1, 2}) {  // 28 and 40 bytes: padded to 32 and 40
    std::vector<Entry> old(old_entries, stale[0]);
    std::string bytes = OldCache(old);
    bytes.resize(16 + 12 * old_entries);  // the old strings are not read
    bytes.resize((bytes.size() + 7) / 8 * 8, '\0');
    ExpectSampleLookups(ParsedCache(bytes + NewCache(kSample)));
  }
}

TEST(LdSoCacheTest, OldFormatAlone) {
  std::vector<Entry> old = {{kI386, "libz.so.1", "/lib/i386-linux-gnu/libz.so.1"},
                            {1, "libold.so", "/lib/libold.so"}};
  std::vector<LdSoCacheEntry> entries = ParsedCache(OldCache(old));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(LookUpLdSoCache(entries, "libz.so.1", kI386, true), "/lib/i386-linux-gnu/libz.so.1");
  EXPECT_EQ(LookUpLdSoCache(entries, "libold.so", kI386, true), "/lib/libold.so");
}

TEST(LdSoCacheTest, MalformedCachesAreRefusedOrTrimmed) {
  std::vector<LdSoCacheEntry> entries;
  std::string err;
  EXPECT_FALSE(ParseLdSoCache("", &entries, &err));
  EXPECT_FALSE(ParseLdSoCache("not a cache at all, just text", &entries, &err));
  std::string other_order = NewCache(kSample, /*byte_order=*/1);
  EXPECT_FALSE(ParseLdSoCache(other_order, &entries, &err));
  const uint8_t foreign = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ? 3 : 2;
  EXPECT_FALSE(ParseLdSoCache(NewCache(kSample, foreign), &entries, &err));
  std::string huge_count = NewCache(kSample);
  uint32_t count = 0x7fffffff;
  std::memcpy(huge_count.data() + 20, &count, sizeof count);
  EXPECT_FALSE(ParseLdSoCache(huge_count, &entries, &err));
  EXPECT_NE(err.find("more entries than bytes"), std::string::npos) << err;
  std::string old_huge = OldCache(kSample);
  std::memcpy(old_huge.data() + 12, &count, sizeof count);
  EXPECT_FALSE(ParseLdSoCache(old_huge, &entries, &err));
  // An entry whose strings lie outside the file is dropped, the rest kept.
  std::string bad_offset = NewCache(kSample);
  uint32_t outside = 0xfffffff0;
  std::memcpy(bad_offset.data() + 48 + 24 * 2 + 8, &outside, sizeof outside);
  entries = ParsedCache(bad_offset);
  EXPECT_EQ(entries.size(), kSample.size() - 1);
  EXPECT_EQ(LookUpLdSoCache(entries, "libz.so.1", kX8664, false), "/usr/local/lib/libz.so.1");
  // Every prefix: an answer, never a read past the end.
  const std::string whole = NewCache(kSample);
  for (size_t n = 0; n <= whole.size(); ++n) {
    ParseLdSoCache(std::string_view(whole).substr(0, n), &entries, &err);
    EXPECT_LE(entries.size(), kSample.size());
  }
  EXPECT_TRUE(LoadLdSoCache("/nonexistent/ld.so.cache").empty());
}

// Every x86-64 name in this machine's cache resolves to the path ldconfig
// lists first for it.
TEST(LdSoCacheTest, AgreesWithLdconfigOnThisMachine) {
#if defined(__x86_64__)
  const std::string kind = "(libc6,x86-64)";
  const int32_t flags = kX8664;
#elif defined(__aarch64__)
  const std::string kind = "(libc6,AArch64)";
  const int32_t flags = 0x0a03;
#endif
  if (access("/etc/ld.so.cache", R_OK) != 0 || access("/sbin/ldconfig", X_OK) != 0) {
    GTEST_SKIP() << "no /etc/ld.so.cache or ldconfig";
  }
  std::vector<LdSoCacheEntry> entries = LoadLdSoCache("/etc/ld.so.cache");
  ASSERT_FALSE(entries.empty());
  FILE* p = popen("/sbin/ldconfig -p", "r");
  ASSERT_NE(p, nullptr);
  std::string listing;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) listing.append(buf, n);
  pclose(p);
  std::map<std::string, std::string> first;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    // "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6"
    size_t kind_at = line.find(" " + kind + " => ");
    if (kind_at == std::string::npos) continue;
    std::string name = line.substr(line.find_first_not_of('\t'));
    name = name.substr(0, name.find(' '));
    first.emplace(name, line.substr(line.find(" => ") + 4));
  }
  ASSERT_GT(first.size(), 10u);
  for (const auto& [name, path] : first) {
    EXPECT_EQ(LookUpLdSoCache(entries, name, flags, false), path) << name;
  }
}

}  // namespace
}  // namespace workgate
