#pragma once
// workgate's exit codes, stable and documented (docs/cli.md, "Exit codes"). They
// live in util, the lowest layer, because every layer can end a run with one
// (util/error.h) and the result model records one (model/model.h).

namespace workgate {

enum ExitCode : int {
  kExitPass = 0,
  kExitWorkAdded = 1,
  kExitUsage = 2,
  kExitInvalid = 3,
  kExitInconclusive = 4,
  kExitEnvironment = 5,
};

}  // namespace workgate
