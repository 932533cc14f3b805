// Every test process gets a result store of its own: XDG_CACHE_HOME points
// at a fresh directory for the process's life, so a workgate a test starts
// with this process's environment neither writes counts into the user's
// store ($HOME/.cache/workgate) nor takes an earlier test's counts from it.
// ctest runs each test in a process of its own (gtest_discover_tests), so
// no two tests share one. Tests that pass workgate an environment of their
// own set HOME (or --store, --no-store) themselves.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace {

class PrivateStore : public testing::Environment {
 public:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "/workgate-test-cache.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      FAIL() << "cannot make a private XDG_CACHE_HOME under " << testing::TempDir();
    }
    dir_ = pattern;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::string dir_;
};

// Registered before main runs the tests; gtest owns and deletes it.
[[maybe_unused]] testing::Environment* const kPrivateStore =
    testing::AddGlobalTestEnvironment(new PrivateStore);

}  // namespace
