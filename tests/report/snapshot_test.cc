// The snapshot helper itself: an update run rewrites the file and still
// fails, so it can never be taken for a passing run.
#include "report/snapshot.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <optional>
#include <string>

#include "util/paths.h"

namespace workgate {
namespace {

using testing_report::ExpectSnapshotIn;

// Sets WORKGATE_UPDATE_SNAPSHOTS for one scope (ctest runs each test in a
// process of its own) and restores what was there.
class UpdateSnapshots {
 public:
  explicit UpdateSnapshots(const char* value) {
    if (const char* old = getenv(kName)) old_ = old;
    if (value != nullptr) {
      setenv(kName, value, 1);
    } else {
      unsetenv(kName);
    }
  }
  ~UpdateSnapshots() {
    if (old_) {
      setenv(kName, old_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }

 private:
  static constexpr const char* kName = "WORKGATE_UPDATE_SNAPSHOTS";
  std::optional<std::string> old_;
};

TEST(SnapshotTest, AnUpdateRunRewritesTheFileAndFails) {
  TempDir dir;
  std::ofstream(dir.path() + "/a.txt") << "old\n";
  {
    UpdateSnapshots update("1");
    EXPECT_NONFATAL_FAILURE(ExpectSnapshotIn(dir.path(), "a.txt", "new\n"),
                            "was rewritten (changed): review its diff");
    // Rewriting what is already there fails too: the run was an update.
    EXPECT_NONFATAL_FAILURE(ExpectSnapshotIn(dir.path(), "a.txt", "new\n"),
                            "was rewritten (unchanged)");
  }
  EXPECT_EQ(ReadFile(dir.path() + "/a.txt"), "new\n");
  // Without the variable the rewritten file is the expectation.
  UpdateSnapshots compare(nullptr);
  ExpectSnapshotIn(dir.path(), "a.txt", "new\n");
  EXPECT_NONFATAL_FAILURE(ExpectSnapshotIn(dir.path(), "a.txt", "other\n"), "differs");
}

}  // namespace
}  // namespace workgate
