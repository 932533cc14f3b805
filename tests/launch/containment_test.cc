// What the launcher does with a workload that will not stay in its tree:
// daemons, a tree left running, a killed supervisor, output that never ends.
// Every test checks by pid that nothing of the tree survived.

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "hostile/hostile_paths.h"
#include "launch/launch.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::HostileWorkload;
using testing::LaunchUntilRecorded;
using testing::LaunchWithin;
using testing::RecordedPids;
using testing::Survivors;

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Runs with and without a PID namespace: the supervisor differs (a subreaper
// or the namespace's init), the promises do not.
class ContainmentTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam() && !PidNamespaceAvailable()) {
      GTEST_SKIP() << "PID namespaces need root or user namespaces";
    }
    testing::CollectPids(pids());
  }
  LaunchSpec Spec(std::vector<std::string> args) {
    LaunchSpec spec;
    spec.argv = {HostileWorkload()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = MinimalEnvironment(dir_.path());
    spec.env["HOSTILE_PIDS"] = pids();
    spec.timeout_seconds = 60;
    spec.new_pid_namespace = GetParam();
    return spec;
  }
  std::string pids() const { return dir_.path() + "/pids"; }
  TempDir dir_;
};

TEST_P(ContainmentTest, ADaemonIsKilledWhenTheWorkloadEnds) {
  LaunchResult r = Launch(Spec({"daemon"}));
  ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
  ASSERT_EQ(RecordedPids(pids()).size(), 1u);
  EXPECT_TRUE(Survivors(pids()).empty());
  EXPECT_EQ(r.leftover_processes, 1);
  EXPECT_EQ(r.LeftoverNote(), "the workload left 1 process running; it was killed");
  EXPECT_EQ(r.out, "score: 1\n");
}

TEST_P(ContainmentTest, ADaemonHoldingStdoutDelaysTheEndOnlyByTheGrace) {
  LaunchSpec spec = Spec({"daemon-holding-stdout"});
  spec.grace_seconds = 0.5;
  auto start = std::chrono::steady_clock::now();
  // Without containment this waits for EOF, which the daemon never gives.
  std::optional<LaunchResult> r = LaunchWithin(spec, pids());
  const double seconds = SecondsSince(start);
  ASSERT_TRUE(r.has_value()) << "Launch waited for the daemon";
  ASSERT_TRUE(r->ok()) << r->Describe() << r->err;
  EXPECT_TRUE(Survivors(pids()).empty());
  EXPECT_EQ(r->leftover_processes, 1);
  // wall_seconds is the workload's own time: the grace, which begins when
  // the workload has ended, comes on top of it (a lower bound on the
  // monotonic clock, which load can only make longer).
  EXPECT_GE(seconds - r->wall_seconds, spec.grace_seconds)
      << seconds << " s in all, " << r->wall_seconds << " s of workload";
}

TEST_P(ContainmentTest, EveryProcessOfATreeLeftRunningIsKilledAndCounted) {
  LaunchResult r = Launch(Spec({"fork-tree", "4"}));
  ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
  EXPECT_EQ(RecordedPids(pids()).size(), 15u);
  EXPECT_TRUE(Survivors(pids()).empty());
  EXPECT_EQ(r.leftover_processes, 15);
  EXPECT_EQ(r.LeftoverNote(), "the workload left 15 processes running; they were killed");
}

TEST_P(ContainmentTest, TheDeadlineCoversTheWholeTree) {
  LaunchSpec spec = Spec({"spin-with-daemon"});
  spec.timeout_seconds = 0.5;
  std::optional<LaunchResult> r = LaunchUntilRecorded(&spec, pids(), 2);
  ASSERT_TRUE(r.has_value()) << "Launch waited for the daemon";
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(RecordedPids(pids()).size(), 2u);
  EXPECT_TRUE(Survivors(pids()).empty());
  EXPECT_EQ(r->Describe(spec.timeout_seconds),
            fmt::format("timed out after {:g} s (process tree killed)", spec.timeout_seconds));
}

TEST_P(ContainmentTest, AWorkloadThatIgnoresSignalsStillEnds) {
  LaunchSpec spec = Spec({"ignore-signals"});
  spec.timeout_seconds = 0.3;
  std::optional<LaunchResult> r = LaunchUntilRecorded(&spec, pids(), 1);
  ASSERT_TRUE(r.has_value()) << "Launch waited for a workload that ignores SIGTERM";
  EXPECT_TRUE(r->timed_out);
  ASSERT_EQ(RecordedPids(pids()).size(), 1u);
  EXPECT_TRUE(Survivors(pids()).empty());
}

TEST_P(ContainmentTest, OutputIsStreamedAndOnlyItsEndsKept) {
  const uint64_t bytes = 80ULL * 4000000;  // 320 MB of 80-byte lines
  LaunchSpec spec = Spec({"flood", std::to_string(bytes)});
  uint64_t lines = 0;
  std::string last;
  spec.stdout_line = [&](std::string_view line) {
    ++lines;
    last = line;
  };
  LaunchResult r = Launch(spec);
  ASSERT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.out_bytes, bytes + 9);  // and "score: 1\n"
  EXPECT_LT(r.out.size(), 200u * 1024);
  EXPECT_NE(r.out.find("bytes of output not kept ...]"), std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.size() - 9), "score: 1\n");
  EXPECT_EQ(last, "score: 1");
  EXPECT_EQ(lines, bytes / 80 + 1);
}

// Opens /dev/zero in the child, as the perf backend opens its counters, and
// hands it back to workgate; the workload keeps it only when `keep` says.
class OpensADescriptor : public ChildSetup {
 public:
  explicit OpensADescriptor(bool keep) : keep_(keep) {}
  int InChild(int* fds, int* nfds) override {
    fds[0] = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (fds[0] < 0) return errno;
    *nfds = 1;
    return 0;
  }
  bool WorkloadKeepsFds() const override { return keep_; }

 private:
  bool keep_;
};

TEST_P(ContainmentTest, TheWorkloadSeesOnlyStdioAndTheDescriptorsItIsMeantToHave) {
  // Between fork and exec the child holds the launch socket, the namespace's
  // report and control pipes and the setup's descriptors; none may reach the
  // workload unless it is meant to have it.
  int inherited = open("/dev/null", O_RDONLY);  // no O_CLOEXEC
  ASSERT_GE(inherited, 0);
  for (bool keep : {false, true}) {
    OpensADescriptor setup(keep);
    LaunchSpec spec = Spec({"fds"});
    spec.setup = &setup;
    spec.inherit_fds = {inherited};
    LaunchResult r = Launch(spec);
    ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
    ASSERT_EQ(r.fds.size(), 1u);
    // A kept descriptor has the number it had in the child: any free one.
    std::map<int, std::string> expected = {
        {0, "/dev/null"}, {1, "pipe"}, {2, "pipe"}, {inherited, "/dev/null"}};
    std::map<int, std::string> seen;
    std::istringstream lines(r.out);
    std::string word, file;
    int fd = -1;
    while (lines >> word >> fd >> file && word == "fd") {
      // In a chroot, a link read inside the workload's mount namespace can
      // name a device by its path outside the chroot (/srv/root/dev/null):
      // the device is what is checked.
      const size_t dev = file.rfind("/dev/");
      seen[fd] = dev != std::string::npos && dev > 0 ? file.substr(dev) : file;
    }
    if (keep) {
      auto kept = std::find_if(seen.begin(), seen.end(),
                               [](const auto& entry) { return entry.second == "/dev/zero"; });
      ASSERT_NE(kept, seen.end()) << "the kept descriptor is missing:\n" << r.out;
      expected[kept->first] = kept->second;
    }
    EXPECT_EQ(seen, expected) << "keep " << keep << ":\n" << r.out;
    EXPECT_EQ(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1), "score: 1\n") << r.out;
    for (int handed_back : r.fds) close(handed_back);
  }
  close(inherited);
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutPidNamespace, ContainmentTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Namespace" : "NoNamespace"; });

TEST(ContainmentEscapeTest, AWorkloadThatKillsItsSupervisorLeavesNothingBehind) {
  // Without a namespace the supervisor is the workload's parent, which it
  // can kill; its daemon then comes back to workgate, itself a subreaper.
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {HostileWorkload(), "kill-supervisor"};
  spec.env = MinimalEnvironment(dir.path());
  spec.env["HOSTILE_PIDS"] = dir.path() + "/pids";
  spec.timeout_seconds = 30;
  // Its daemon holds stdout: a launch that waited for EOF would not return.
  std::optional<LaunchResult> r = LaunchWithin(spec, dir.path() + "/pids");
  ASSERT_TRUE(r.has_value()) << "Launch waited for the daemon";
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(RecordedPids(dir.path() + "/pids").size(), 1u);
  EXPECT_TRUE(Survivors(dir.path() + "/pids").empty());
  EXPECT_EQ(r->leftover_processes, -1);
}

TEST(ContainmentFdTest, ConcurrentLaunchesStartWithTheSameDescriptors) {
  // Each launch's pipes exist in workgate while the others fork; none of
  // them may reach another workload.
  std::vector<std::string> outputs(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    threads.emplace_back([i, &outputs] {
      LaunchSpec spec;
      spec.argv = {HostileWorkload(), "fds"};
      spec.env = MinimalEnvironment("/tmp");
      spec.timeout_seconds = 30;
      outputs[i] = Launch(spec).out;
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& out : outputs) {
    EXPECT_EQ(out, "fd 0 /dev/null\nfd 1 pipe\nfd 2 pipe\nscore: 1\n");
  }
}

TEST(ContainmentFdTest, OnlyTheDescriptorsNamedAreInherited) {
  int a = open("/dev/null", O_RDONLY);  // no O_CLOEXEC
  int b = open("/dev/zero", O_RDONLY);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  LaunchSpec spec;
  spec.argv = {HostileWorkload(), "fds"};
  spec.env = MinimalEnvironment("/tmp");
  spec.inherit_fds = {b};
  LaunchResult r = Launch(spec);
  close(a);
  close(b);
  EXPECT_EQ(r.out, "fd 0 /dev/null\nfd 1 pipe\nfd 2 pipe\nfd " + std::to_string(b) +
                       " /dev/zero\nscore: 1\n");
}

}  // namespace
}  // namespace workgate
