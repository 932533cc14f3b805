// What the report says the candidate could reach, from the machine's facts:
// each shared thing named with why, and nothing where the launch contains it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "measure/containment.h"

namespace workgate {
namespace {

// The item of `reach` that starts with `start`, or "".
std::string Item(const std::vector<std::string>& reach, const std::string& start) {
  for (const std::string& item : reach) {
    if (item.rfind(start, 0) == 0) return item;
  }
  return "";
}

constexpr char kTemporary[] = "what the steps before workgate and the earlier runs left in ";

TEST(CandidateReachTest, AContainedRunOnVgcountReachesNothing) {
  const ContainmentFacts contained{false, true, true, {}};
  EXPECT_TRUE(CandidateReach("vgcount", false, contained).empty());
  // Callgrind's own files are the one thing left.
  const std::vector<std::string> callgrind = CandidateReach("callgrind", false, contained);
  ASSERT_EQ(callgrind.size(), 1u);
  EXPECT_EQ(callgrind[0].rfind("its own count: callgrind writes", 0), 0u) << callgrind[0];
}

TEST(CandidateReachTest, TemporaryDirectoriesWithoutAFreshTmpfsAreNamed) {
  // A chroot whose /dev/shm alone is a mount point of its own.
  const ContainmentFacts chroot{true, true, false, {"/tmp", "/var/tmp"}};
  const std::vector<std::string> reach = CandidateReach("vgcount", false, chroot);
  EXPECT_EQ(Item(reach, kTemporary),
            std::string(kTemporary) +
                "/tmp, /var/tmp, and what it leaves there for the runs after it: workgate cannot "
                "mount a fresh tmpfs there for each run (in a chroot, where / is no mount point, "
                "only on a directory that is a mount point of its own; before Linux 5.12, "
                "nowhere)");
  EXPECT_NE(Item(reach, "the files root can write"), "");
}

TEST(CandidateReachTest, WithoutANamespaceEveryTemporaryDirectoryIsShared) {
  const ContainmentFacts contained{false, true, true, {}};
  const ContainmentFacts none{false, false, false, {"/tmp", "/var/tmp", "/dev/shm"}};
  const std::string expected = std::string(kTemporary) +
                               "/tmp, /var/tmp, /dev/shm, and what it leaves there for the runs "
                               "after it: the workload runs in no mount namespace of its own";
  // --as-is shares them whatever the machine allows.
  EXPECT_EQ(Item(CandidateReach("vgcount", true, contained), kTemporary), expected);
  EXPECT_EQ(Item(CandidateReach("vgcount", false, none), kTemporary), expected);
}

}  // namespace
}  // namespace workgate
