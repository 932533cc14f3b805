#pragma once
// Paths the tests use: the source tree, the build tree and the programs the
// build made (compile definitions from tests/CMakeLists.txt).

#include <string>

namespace workgate::testing {

inline std::string SourcePath(const std::string& rel) {
  return std::string(WORKGATE_SOURCE_DIR) + "/" + rel;
}
inline std::string BuildPath(const std::string& rel) {
  return std::string(WORKGATE_BUILD_DIR) + "/" + rel;
}
inline std::string KnownLoop() { return BuildPath("probes/known_loop"); }
inline std::string WorkgateBin() { return WORKGATE_BIN; }

}  // namespace workgate::testing
