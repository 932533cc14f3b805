#pragma once
// The fixture of the end-to-end tests: the real workgate binary, run in a
// private directory with a fixed environment, as a user would run it.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FindValgrind().path.empty()) GTEST_SKIP() << FindValgrind().missing;
  }
  LaunchResult Run(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    LaunchSpec spec;
    spec.argv = {testing::WorkgateBin()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = env.empty() ? MinimalEnvironment(dir_.path()) : env;
    spec.cwd = dir_.path();
    spec.timeout_seconds = 240;
    return Launch(spec);
  }
  nlohmann::json ReadJson(const std::string& name) {
    auto text = ReadFile(dir_.path() + "/" + name);
    EXPECT_TRUE(text.has_value()) << name;
    return nlohmann::json::parse(text.value_or("null"));
  }
  std::string Path(const std::string& name) { return dir_.path() + "/" + name; }
  TempDir dir_;
};

}  // namespace workgate
