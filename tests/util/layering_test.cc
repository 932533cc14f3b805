// The layers of src/ as CMakeLists.txt declares them (workgate_layer(NAME
// USES ...), cmake/WorkgateLayers.cmake), checked against the code: every
// folder of src/ is a declared layer, the declarations form a reduced
// acyclic graph, every include of a layer names a layer it can see, and
// every declared edge is one the layer's own files use. The build enforces
// the same through each layer's include directory; this test says which
// file and which include broke it, and also catches an edge that is declared
// but no longer needed.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

struct Layer {
  std::string name;
  std::vector<std::string> uses;
};

// The workgate_layer() calls of CMakeLists.txt, in order.
std::vector<Layer> DeclaredLayers() {
  std::ifstream in(testing::SourcePath("CMakeLists.txt"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string cmake = text.str();
  std::vector<Layer> layers;
  const std::regex call(R"re(\nworkgate_layer\(([^)]*)\))re");
  for (std::sregex_iterator it(cmake.begin(), cmake.end(), call), end; it != end; ++it) {
    std::istringstream words((*it)[1].str());
    Layer layer;
    words >> layer.name;
    std::string word;
    bool in_uses = false;
    while (words >> word) {
      if (word == "USES" || word == "LIBS") {
        in_uses = word == "USES";
      } else if (in_uses) {
        layer.uses.push_back(word);
      }
    }
    layers.push_back(layer);
  }
  return layers;
}

// The quoted includes of every file of src/<layer>, as (file, include).
std::vector<std::pair<std::string, std::string>> QuotedIncludes(const std::string& layer) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& entry : fs::directory_iterator(testing::SourcePath("src/" + layer))) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, include)) {
        out.emplace_back(layer + "/" + entry.path().filename().string(), m[1]);
      }
    }
  }
  return out;
}

// The layer an include names ("model/model.h": model), or "" for an include
// with no folder (a header of the file's own folder, or a library's).
std::string LayerOf(const std::string& include) {
  const size_t slash = include.find('/');
  return slash == std::string::npos ? "" : include.substr(0, slash);
}

class LayeringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    layers_ = DeclaredLayers();
    ASSERT_GE(layers_.size(), 10u) << "CMakeLists.txt declares too few layers to be read right";
    for (const Layer& layer : layers_) uses_[layer.name] = layer.uses;
  }
  // `name` and every layer it reaches through its declarations.
  std::set<std::string> Visible(const std::string& name, const std::string& skip_use = "") const {
    std::set<std::string> seen{name};
    std::vector<std::string> todo;
    for (const std::string& use : uses_.at(name)) {
      if (use != skip_use) todo.push_back(use);
    }
    while (!todo.empty()) {
      const std::string next = todo.back();
      todo.pop_back();
      if (!seen.insert(next).second) continue;
      for (const std::string& use : uses_.at(next)) todo.push_back(use);
    }
    return seen;
  }
  std::vector<Layer> layers_;
  std::map<std::string, std::vector<std::string>> uses_;
};

TEST_F(LayeringTest, EveryFolderOfSrcIsADeclaredLayer) {
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(testing::SourcePath("src"))) {
    // src/shim is C, built by its own CMakeLists.txt, and includes nothing
    // of workgate's C++.
    if (entry.is_directory() && entry.path().filename() != "shim") {
      folders.insert(entry.path().filename().string());
    }
  }
  std::set<std::string> declared;
  for (const Layer& layer : layers_) declared.insert(layer.name);
  EXPECT_EQ(folders, declared);
}

TEST_F(LayeringTest, EachLayerUsesOnlyLayersDeclaredBeforeIt) {
  std::set<std::string> before;
  for (const Layer& layer : layers_) {
    for (const std::string& use : layer.uses) {
      EXPECT_TRUE(before.count(use)) << layer.name << " uses " << use
                                     << ", which is not declared before it (a cycle or a typo)";
    }
    before.insert(layer.name);
  }
}

TEST_F(LayeringTest, EveryIncludeNamesALayerItCanSee) {
  size_t checked = 0;
  for (const Layer& layer : layers_) {
    const std::set<std::string> visible = Visible(layer.name);
    for (const auto& [file, include] : QuotedIncludes(layer.name)) {
      EXPECT_EQ(include.find(".."), std::string::npos)
          << "src/" << file << " includes " << include << " by a relative path";
      const std::string target = LayerOf(include);
      if (target.empty() || !uses_.count(target)) continue;
      ++checked;
      EXPECT_TRUE(visible.count(target))
          << "src/" << file << " includes " << include << ": " << layer.name << " does not use "
          << target << " (CMakeLists.txt, workgate_layer(" << layer.name << "))";
    }
  }
  EXPECT_GT(checked, 100u);
}

// A declared edge is needed: the layer's own files include the layer it
// names, which nothing else it declares brings. Deleting it from
// CMakeLists.txt then fails the build.
TEST_F(LayeringTest, EveryDeclaredUseIsDirectAndNotRedundant) {
  for (const Layer& layer : layers_) {
    std::set<std::string> included;
    for (const auto& [file, include] : QuotedIncludes(layer.name)) {
      included.insert(LayerOf(include));
    }
    for (const std::string& use : layer.uses) {
      EXPECT_TRUE(included.count(use))
          << layer.name << " declares " << use << " but none of its files includes it";
      EXPECT_FALSE(Visible(layer.name, use).count(use))
          << layer.name << " declares " << use << ", which another of its uses already brings";
    }
  }
}

TEST_F(LayeringTest, OnlyTheKnownLoopInterfaceSeesTheProbePrograms) {
  size_t seen = 0;
  for (const Layer& layer : layers_) {
    for (const auto& [file, include] : QuotedIncludes(layer.name)) {
      if (include.find("two_instruction_loop.h") == std::string::npos &&
          include.find("probes/") == std::string::npos) {
        continue;
      }
      EXPECT_EQ(file, "machine/known_loop.cc") << file << " includes " << include;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 1u);
}

}  // namespace
}  // namespace workgate
