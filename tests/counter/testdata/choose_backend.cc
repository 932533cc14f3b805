// Runs the counting factory once, in a process of its own: Valgrind and the
// vgcount tool are looked up once per process (FindValgrind, FindVgcountLib),
// so each machine the factory tests describe needs a fresh one.
//
// Usage: choose_backend REQUEST EVENTS SYSTEM
//   REQUEST  auto, perf, callgrind or vgcount
//   SYSTEM   a name for testing::SyntheticSystem (synthetic_systems.h)
// Prints three lines: the backend chosen ("" for none), the reason, and what
// MakeCounter made of the choice: "made NAME", or "error CODE: MESSAGE".

#include <cstdio>
#include <string>

#include "counter/factory.h"
#include "counter/synthetic_systems.h"
#include "util/error.h"

int main(int argc, char** argv) {
  using namespace workgate;
  BackendRequest request;
  if (argc != 4 || !ParseBackendRequest(argv[1], &request)) {
    std::fprintf(stderr, "usage: choose_backend REQUEST EVENTS SYSTEM\n");
    return 2;
  }
  const std::string events = argv[2];
  const BackendChoice choice = ChooseBackend(request, events, testing::SyntheticSystem(argv[3]));
  std::string made;
  try {
    made = "made " + MakeCounter(choice, events)->name();
  } catch (const Error& e) {
    made = "error " + std::to_string(e.exit_code()) + ": " + e.what();
  }
  std::printf("%s\n%s\n%s\n", choice.backend.c_str(), choice.reason.c_str(), made.c_str());
  return 0;
}
