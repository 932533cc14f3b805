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
//   everywhere. A test learns it by asking the machine directly (for
//   example SoftwareEventRefusal), never from workgate's own exit code: a
//   regression that makes workgate fail that way would turn into a skip.

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace workgate::testing {

/// Whether the tests run where ci/setup has installed everything (CI=true).
inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0);
}

/// Whether the shell finds `tool` on PATH.
inline bool HaveTool(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

/// Whether `path` is a file this process may execute (or load).
inline bool IsBuilt(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

/// A disabled user-space software perf event (a PERF_COUNT_SW_* `config`)
/// on this process, straight from perf_event_open(2), counting its children
/// too where `inherit`: the descriptor, or -1 with errno set where the kernel
/// refuses. Not close-on-exec: a child may need to inherit it.
inline int OpenSoftwareEvent(unsigned long long config, bool inherit) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.disabled = 1;
  attr.inherit = inherit ? 1 : 0;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
}

/// Why this machine refuses a software perf event (OpenSoftwareEvent);
/// empty when it grants one. A test of the perf backend's plumbing checks
/// this before it runs workgate, instead of reading workgate's own exit
/// code, which a regression could produce.
inline std::string SoftwareEventRefusal(unsigned long long config) {
  const int fd = OpenSoftwareEvent(config, false);
  if (fd >= 0) {
    close(fd);
    return {};
  }
  return std::string("perf_event_open of a software event: ") + std::strerror(errno);
}

/// The Valgrind backends this build counts with: vgcount where CMake built
/// it (WORKGATE_VGCOUNT_BUILT), then callgrind.
inline std::vector<std::string> ValgrindBackends() {
#ifdef WORKGATE_VGCOUNT_BUILT
  return {"vgcount", "callgrind"};
#else
  return {"callgrind"};
#endif
}

}  // namespace workgate::testing

/// Fails (and returns) unless the build product `path` exists.
#define WORKGATE_ASSERT_BUILT(path)                                          \
  ASSERT_TRUE(::workgate::testing::IsBuilt(path))                            \
      << (path)                                                              \
      << " is missing, but CMake builds it with the test binary: the build " \
         "is broken"

/// The vgcount tool: CMake builds it only where it finds Valgrind's
/// tool-building pieces (tests/CMakeLists.txt says whether it did). Where it
/// was built, `tool` (its path) must be there; where not, as a missing tool.
#ifdef WORKGATE_VGCOUNT_BUILT
#define WORKGATE_REQUIRE_VGCOUNT(tool) WORKGATE_ASSERT_BUILT(tool)
#else
#define WORKGATE_REQUIRE_VGCOUNT(tool)                                               \
  WORKGATE_REQUIRE_TOOL(false,                                                       \
                        "CMake did not build vgcount (it needs the Debian valgrind " \
                        "package's tool headers and archives)")
#endif

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

// Whether AddressSanitizer is on (the sanitized build): GCC says so with
// __SANITIZE_ADDRESS__, clang (before 16) only through __has_feature. Such a
// build's programs cannot run under Valgrind, nor measure memory as a plain
// build does.
#if defined(__SANITIZE_ADDRESS__)
#define WORKGATE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WORKGATE_TEST_ASAN 1
#endif
#endif
#ifndef WORKGATE_TEST_ASAN
#define WORKGATE_TEST_ASAN 0
#endif
