// What the store reads back from a row and where it lives: the exact
// timestamp form, the counts' text, the checksums, and the default path.
#include "store/store_codec.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <ctime>
#include <optional>

#include "scoped_env.h"
#include "store/result_store.h"

namespace workgate {
namespace {

TEST(ResultStoreCodecTest, TimestampsHaveOneExactForm) {
  EXPECT_TRUE(IsStoreTimestamp("2026-12-02T03:04:05Z"));
  EXPECT_TRUE(IsStoreTimestamp("2024-02-29T23:59:59Z"));
  for (const char* bad :
       {"2026-12-02T03:04:05", "2026-12-02 03:04:05Z", "2026-12-02T03:04:05.000Z",
        "2026-12-02T03:04:05+00:00", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-12-00T00:00:00Z", "2026-12-02T24:00:00Z", "2026-12-02T03:60:00Z",
        "2026-12-02T03:04:60Z", "2026-1a-02T03:04:05Z", "+026-12-02T03:04:05Z", ""}) {
    EXPECT_FALSE(IsStoreTimestamp(bad)) << bad;
  }
  EXPECT_TRUE(IsStoreTimestamp(UtcNow())) << UtcNow();
}

TEST(ResultStoreCodecTest, CountsAreDecimalNumbersThatFit64Bits) {
  std::vector<uint64_t> counts;
  std::string why;
  ASSERT_TRUE(ParseCounts(EncodeCounts({0, 7, UINT64_MAX}), &counts, &why)) << why;
  EXPECT_EQ(counts, (std::vector<uint64_t>{0, 7, UINT64_MAX}));
  EXPECT_FALSE(ParseCounts("18446744073709551616", &counts, &why));
  EXPECT_EQ(why, "a count does not fit 64 bits");
  for (const char* bad : {"", "1,,2", "1,", ",1", "+1", "-1", " 1", "1 ", "0x10", "1.5"}) {
    EXPECT_FALSE(ParseCounts(bad, &counts, &why)) << bad;
  }
  const std::vector<uint64_t> most(kMaxStoredCounts, 9);
  EXPECT_TRUE(ParseCounts(EncodeCounts(most), &counts, &why)) << why;
  std::vector<uint64_t> too_many = most;
  too_many.push_back(9);
  EXPECT_FALSE(ParseCounts(EncodeCounts(too_many), &counts, &why));
}

TEST(ResultStoreCodecTest, EveryFieldAndTheKeyAreInTheChecksum) {
  StoredCount e;
  e.counts = {1, 2};
  e.counted_at = "2026-12-02T03:04:05Z";
  const std::string key(64, 'a'), digest = ProfilesDigest({});
  const std::string sum = EntryChecksum(key, e, digest);
  std::vector<std::string> others = {EntryChecksum(std::string(64, 'b'), e, digest),
                                     EntryChecksum(key, e, ProfilesDigest({{"p", ""}}))};
  for (auto change : std::vector<void (*)(StoredCount*)>{
           [](StoredCount* c) { c->counts = {12}; }, [](StoredCount* c) { c->score = ""; },
           [](StoredCount* c) { c->counted_at = "2026-12-02T03:04:06Z"; },
           [](StoredCount* c) { c->ref = "r"; }, [](StoredCount* c) { c->label = "l"; },
           [](StoredCount* c) { c->workgate_version = "v"; }}) {
    StoredCount changed = e;
    change(&changed);
    others.push_back(EntryChecksum(key, changed, digest));
  }
  for (const std::string& other : others) EXPECT_NE(other, sum);
  // Field boundaries are part of the encoding: moving bytes between two
  // fields changes it.
  StoredCount a = e, b = e;
  a.ref = "xy";
  b.ref = "x";
  b.label = "y";
  EXPECT_NE(EntryChecksum(key, a, digest), EntryChecksum(key, b, digest));
  EXPECT_NE(ProfilesDigest({{"ab", "c"}}), ProfilesDigest({{"a", "bc"}}));
}

std::string DefaultPath(const char* xdg, const char* home, std::string* why) {
  ScopedEnv x("XDG_CACHE_HOME", xdg), h("HOME", home);
  why->clear();
  return DefaultStorePath(why);
}

TEST(ResultStoreDefaultPathTest, XdgCacheHomeFirstThenHome) {
  std::string why;
  EXPECT_EQ(DefaultPath("/x/cache", "/home/u", &why), "/x/cache/workgate/results.sqlite3");
  EXPECT_EQ(DefaultPath(nullptr, "/home/u", &why), "/home/u/.cache/workgate/results.sqlite3");
  // A relative or empty XDG_CACHE_HOME counts as unset.
  EXPECT_EQ(DefaultPath("rel/cache", "/home/u", &why), "/home/u/.cache/workgate/results.sqlite3");
  EXPECT_EQ(DefaultPath("", "/home/u", &why), "/home/u/.cache/workgate/results.sqlite3");
  EXPECT_EQ(why, "");
  EXPECT_EQ(DefaultPath("/x/cache", nullptr, &why), "/x/cache/workgate/results.sqlite3");
  for (const char* home : {static_cast<const char*>(nullptr), "", "home/u"}) {
    EXPECT_EQ(DefaultPath("rel", home, &why), "");
    EXPECT_NE(why.find("XDG_CACHE_HOME"), std::string::npos) << why;
  }
}

TEST(ResultStoreDefaultPathTest, UtcNowIsNow) {
  const time_t before = time(nullptr);
  const std::string now = UtcNow();
  struct tm utc = {};
  ASSERT_NE(strptime(now.c_str(), "%Y-%m-%dT%H:%M:%SZ", &utc), nullptr) << now;
  const time_t parsed = timegm(&utc);
  EXPECT_GE(parsed, before);
  EXPECT_LE(parsed, time(nullptr));
}

}  // namespace
}  // namespace workgate
