#pragma once
// Whether vgcount can count here. The tool is built against one Valgrind: it
// carries that Valgrind's coregrind (static), and its valgrind-lib links to
// that Valgrind's preload libraries and suppressions. The build records
// which Valgrind beside the tool (tools/vgcount/CMakeLists.txt), and vgcount
// runs only under a launcher of that version: another launcher still starts
// the tool, but the count's fingerprint would name the other Valgrind, not
// the one whose core counted.

#include <optional>
#include <string>

#include "counter/valgrind_counter.h"

namespace workgate {

/// The file beside the tool that names its Valgrind.
inline constexpr const char* kVgcountRecordName = "vgcount.valgrind";

/// The Valgrind a vgcount build belongs to, as its record names it:
///   version: valgrind-3.22.0
///   launcher: /opt/valgrind-3.22/bin/valgrind
struct VgcountValgrind {
  std::string version;   // as `valgrind --version` prints it
  std::string launcher;  // the installation's bin/valgrind
};

/// Parses a record's text. False with `*err` for a line it does not know, a
/// key given twice, or a key missing.
bool ParseVgcountRecord(const std::string& text, VgcountValgrind* out, std::string* err);

/// Why vgcount in `lib`, built against `built`, cannot run under `running`
/// (its version differs), saying how to run it; empty when it can.
std::string VgcountValgrindMismatch(const std::string& lib, const VgcountValgrind& built,
                                    const ValgrindInstall& running);

/// vgcount on this machine.
struct VgcountStatus {
  bool built = false;    // a valgrind-lib holding the tool was found
  std::string lib;       // that directory
  std::string unusable;  // why vgcount cannot count here; empty when it can
};

/// Looks for the tool (FindVgcountLib) and checks it against Valgrind
/// (FindValgrind): not built, no Valgrind, a record that cannot be read, or
/// another Valgrind's version make it unusable. A valgrind-lib without a
/// record (built before builds wrote one) is taken as it is.
VgcountStatus CheckVgcount();

}  // namespace workgate
