#pragma once
// Validating JSON documents against workgate's schemas from a C++ test:
// tests/schemas/validate.py, run by Debian's python3 with Debian's
// python3-jsonschema, which ci/setup installs.

#include <string>
#include <utility>
#include <vector>

#include "launch/launch.h"
#include "test_paths.h"
#include "util/paths.h"

namespace workgate::testing {

class SchemaCheck {
 public:
  /// Runs Python in `dir`, where relative file names are read.
  explicit SchemaCheck(std::string dir)
      : dir_(std::move(dir)), python_(SearchPath("python3", "/usr/bin:/bin")) {}

  /// Whether python3 and its jsonschema module are here.
  bool Available() const { return !python_.empty() && Python({"-c", "import jsonschema"}).ok(); }

  /// validate.py on `files` against schemas/`schema`: exit status 0 when
  /// every file is valid (`valid`), or every file is invalid (!`valid`);
  /// its output names each file and the first error.
  LaunchResult Validate(bool valid, const std::string& schema,
                        const std::vector<std::string>& files) const {
    std::vector<std::string> args = {SourcePath("tests/schemas/validate.py")};
    if (!valid) args.push_back("--invalid");
    args.push_back(SourcePath("schemas/" + schema));
    args.insert(args.end(), files.begin(), files.end());
    return Python(args);
  }

 private:
  LaunchResult Python(const std::vector<std::string>& args) const {
    LaunchSpec spec;
    spec.argv = {python_};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = MinimalEnvironment(dir_);
    spec.cwd = dir_;
    spec.timeout_seconds = 120;
    return Launch(spec);
  }

  std::string dir_;
  std::string python_;
};

}  // namespace workgate::testing
