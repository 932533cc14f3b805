#pragma once
// The one error type that stops a run. Modules return errors as values where
// the caller can go on; a condition that ends the command becomes an Error,
// caught in main() and mapped to its documented exit code.

#include <stdexcept>
#include <string>

#include "util/exit_codes.h"

namespace workgate {

class Error : public std::runtime_error {
 public:
  Error(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

inline Error UsageError(const std::string& m) { return Error(kExitUsage, m); }
inline Error EnvironmentError(const std::string& m) { return Error(kExitEnvironment, m); }

}  // namespace workgate
