#include <fmt/format.h>
#include <stdio.h>

#include <exception>

#include "cli/commands.h"
#include "launch/interrupt.h"
#include "util/error.h"
#include "util/exit_codes.h"
#include "util/text.h"

namespace workgate {

namespace {

// Messages can quote a name, a path or a program's stderr.
int Report(const char* message, int code) {
  AwaitInterruption();
  fmt::print(stderr, "Error: {}\n", TerminalSafe(message, LineBreaks::kKeep));
  return code;
}

}  // namespace

int RunCommand(const CommandRunner& run) {
  int code = 0;
  try {
    code = run();
  } catch (const Error& e) {
    return Report(e.what(), e.exit_code());
  } catch (const std::exception& e) {
    return Report(e.what(), kExitEnvironment);
  }
  AwaitInterruption();
  return code;
}

}  // namespace workgate
