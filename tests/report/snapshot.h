#pragma once
// Snapshot comparison for the renderer tests: rendered text against a file
// kept in tests/report/testdata/.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace workgate::testing_report {

/// Compares `actual` with the file `name` in `dir`. With
/// WORKGATE_UPDATE_SNAPSHOTS=1 in the environment it rewrites the file and
/// then fails all the same: an update run must never read as a passing run,
/// and the new file is only right once someone has read its diff.
inline void ExpectSnapshotIn(const std::string& dir, const std::string& name,
                             const std::string& actual) {
  const std::string path = dir + "/" + name;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream expected;
  if (in) expected << in.rdbuf();
  if (const char* update = std::getenv("WORKGATE_UPDATE_SNAPSHOTS"); update && *update == '1') {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    out.close();
    ASSERT_TRUE(out) << "could not rewrite snapshot " << path;
    ADD_FAILURE() << "snapshot " << path << " was rewritten ("
                  << (in && expected.str() == actual ? "unchanged" : "changed")
                  << "): review its diff, then run again without WORKGATE_UPDATE_SNAPSHOTS";
    return;
  }
  ASSERT_TRUE(in) << path << " is missing; run with WORKGATE_UPDATE_SNAPSHOTS=1 to create it";
  EXPECT_EQ(actual, expected.str()) << "snapshot " << path << " differs";
}

/// Compares `actual` with tests/report/testdata/`name` (see ExpectSnapshotIn).
inline void ExpectSnapshot(const std::string& name, const std::string& actual) {
  ExpectSnapshotIn(std::string(WORKGATE_SOURCE_DIR) + "/tests/report/testdata", name, actual);
}

}  // namespace workgate::testing_report
