// Which parts of the source tree may include which: util is the lowest layer
// (every module uses it, it uses none), and only the probe's known-loop
// interface sees the probe programs in probes/.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "test_paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// The quoted includes of every source file under `dir`, as "file: include".
std::vector<std::pair<std::string, std::string>> QuotedIncludes(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, include)) {
        out.emplace_back(entry.path().lexically_relative(dir).string(), m[1]);
      }
    }
  }
  return out;
}

TEST(LayeringTest, UtilIncludesOnlyUtil) {
  const auto includes = QuotedIncludes(testing::SourcePath("src/util"));
  ASSERT_FALSE(includes.empty());
  for (const auto& [file, header] : includes) {
    EXPECT_EQ(header.rfind("util/", 0), 0u) << "src/util/" << file << " includes " << header;
  }
}

TEST(LayeringTest, OnlyTheKnownLoopInterfaceSeesTheProbePrograms) {
  size_t seen = 0;
  for (const auto& [file, header] : QuotedIncludes(testing::SourcePath("src"))) {
    if (header.find("two_instruction_loop.h") == std::string::npos &&
        header.find("probes/") == std::string::npos) {
      continue;
    }
    EXPECT_EQ(file, "probe/known_loop.cc") << file << " includes " << header;
    ++seen;
  }
  EXPECT_EQ(seen, 1u);
}

}  // namespace
}  // namespace workgate
