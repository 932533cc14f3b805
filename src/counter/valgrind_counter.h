#pragma once
// The Valgrind backends: callgrind, and workgate's own counting tool
// (tools/vgcount) where it is built. Both follow children
// (--trace-children=yes), write one output file per process into a private
// directory that is always removed, and report the total over the tree.

#include <cstdint>
#include <string>
#include <vector>

#include "counter/counter.h"

namespace workgate {

/// Reads the Ir total of one callgrind output file ("events:" names the
/// columns; "totals:" or else "summary:" holds the total). False with a
/// message when the file has neither or is malformed.
bool ParseCallgrindTotal(const std::string& text, uint64_t* ir, std::string* err);

/// Reads the total of one vgcount output file (the "instructions: N" line).
bool ParseVgcountTotal(const std::string& text, uint64_t* total, std::string* err);

/// Where Valgrind is and which version ("valgrind-3.19.0"); empty path when
/// it is not installed. Looked up once, on workgate's own PATH.
struct ValgrindInstall {
  std::string path;
  std::string version;
};
const ValgrindInstall& FindValgrind();

/// Whether `dir` holds a built vgcount tool (a file named vgcount-<platform>).
bool HoldsVgcountTool(const std::string& dir);

/// The directory to use as VALGRIND_LIB for the vgcount tool (the build's
/// valgrind-lib/ or the installed one); empty when the tool is not built.
std::string FindVgcountLib();

class ValgrindCounter : public Counter {
 public:
  enum class Tool { kCallgrind, kVgcount };
  /// Throws Error(kExitEnvironment) when Valgrind (or the vgcount tool) is
  /// missing.
  explicit ValgrindCounter(Tool tool);
  std::string name() const override;
  std::string event() const override { return "Ir"; }
  std::string tool_version() const override { return FindValgrind().version; }
  CountedRun Run(const LaunchSpec& spec, const CountOptions& options) override;

 private:
  Tool tool_;
  std::string vgcount_lib_;
};

}  // namespace workgate
