#include "counter/vgcount_install.h"

#include <filesystem>
#include <map>
#include <sstream>

#include "util/input_file.h"
#include "util/paths.h"

namespace workgate {

bool ParseVgcountRecord(const std::string& text, VgcountValgrind* out, std::string* err) {
  std::map<std::string, std::string> fields;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    const std::string key = colon == std::string::npos ? line : line.substr(0, colon);
    if (colon == std::string::npos || (key != "version" && key != "launcher")) {
      *err = "it has a line it should not: \"" + line + "\"";
      return false;
    }
    if (!fields.emplace(key, line.substr(colon + 2)).second) {
      *err = "it gives " + key + " twice";
      return false;
    }
  }
  for (const char* key : {"version", "launcher"}) {
    if (fields[key].empty()) {
      *err = std::string("it gives no ") + key;
      return false;
    }
  }
  *out = {fields["version"], fields["launcher"]};
  return true;
}

std::string VgcountValgrindMismatch(const std::string& lib, const VgcountValgrind& built,
                                    const ValgrindInstall& running) {
  if (running.version == built.version) return "";
  return "vgcount in " + lib + " was built against " + built.version + " (" + built.launcher +
         "), but the Valgrind that workgate runs is " + running.version + " (" + running.path +
         "): set WORKGATE_VALGRIND=" + built.launcher + ", or rebuild vgcount against " +
         running.version;
}

VgcountStatus CheckVgcount() {
  VgcountStatus status;
  status.lib = FindVgcountLib();
  status.built = !status.lib.empty();
  if (!status.built) {
    status.unusable =
        "the vgcount Valgrind tool is not built (it needs Valgrind's tool-building files "
        "from the valgrind package): no valgrind-lib holding it at " +
        CompanionPlaces("valgrind-lib");
    return status;
  }
  if (FindValgrind().path.empty()) {
    status.unusable = FindValgrind().missing;
    return status;
  }
  const std::string record = status.lib + "/" + kVgcountRecordName;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(record, ec))) return status;
  std::string text, err;
  VgcountValgrind built;
  if (!ReadInputFile(record, "vgcount's record of its Valgrind", 4096, &text, &err)) {
    status.unusable = err;
  } else if (!ParseVgcountRecord(text, &built, &err)) {
    status.unusable = "vgcount's record of its Valgrind, " + record + ", is not one: " + err;
  } else {
    status.unusable = VgcountValgrindMismatch(status.lib, built, FindValgrind());
  }
  return status;
}

}  // namespace workgate
