#pragma once
// What a test may skip, and what it must not:
//
// - A program this build makes with the test binary (the probes, the bundled
//   workloads, the clock shim, the test programs of tests/CMakeLists.txt):
//   missing means the build is broken, so the test FAILS, naming the path
//   (WORKGATE_ASSERT_BUILT). vgcount is built only where CMake finds
//   Valgrind's tool-building pieces; the build says whether it did
//   (WORKGATE_VGCOUNT_BUILT), and only where it did not is vgcount a missing
//   tool as below.
// - A tool of the machine that ci/setup installs (Valgrind, a C compiler,
//   binutils, setarch, python3, lua5.4, cmark-gfm): under ci/test, which has
//   just run ci/setup and sets CI=true, a missing one is a FAILURE; elsewhere
//   (a developer's machine: workgate works with perf alone, without
//   Valgrind) the test is skipped with the reason (WORKGATE_REQUIRE_TOOL).
// - What the machine itself cannot do (no PMU, perf_event_paranoid, no PID
//   or mount namespaces, another architecture): skipped with the reason,
//   everywhere.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace workgate::testing {

/// Whether the tests run where ci/setup has installed everything (CI=true).
inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0);
}

/// Whether `path` is a file this process may execute (or load).
inline bool IsBuilt(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

}  // namespace workgate::testing

/// Fails (and returns) unless the build product `path` exists.
#define WORKGATE_ASSERT_BUILT(path)                                          \
  ASSERT_TRUE(::workgate::testing::IsBuilt(path))                            \
      << (path)                                                              \
      << " is missing, but CMake builds it with the test binary: the build " \
         "is broken"

/// Unless `present`, fails under CI=true and skips elsewhere, with `what`
/// (streamable) as the reason; returns from the calling function either way.
#define WORKGATE_REQUIRE_TOOL(present, what)                                         \
  do {                                                                               \
    if (!(present)) {                                                                \
      if (::workgate::testing::InCi()) {                                             \
        FAIL() << what << " (CI=true: ci/setup installs it, so it must be here)";    \
      } else {                                                                       \
        GTEST_SKIP() << what << " (ci/setup installs it; under CI=true this fails)"; \
      }                                                                              \
    }                                                                                \
  } while (0)
