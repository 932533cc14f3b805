// The loading every suite command shares, and the digest of what a workload
// runs (workload.h).

#include <fmt/format.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/sha256.h"
#include "workload/workload.h"

namespace workgate {

Suite LoadSuiteSelecting(const std::string& path, const std::vector<std::string>& names) {
  Suite suite;
  std::string err;
  if (!LoadSuite(path, &suite, &err) || !SelectWorkloads(&suite, names, &err)) {
    throw UsageError(err);
  }
  return suite;
}

bool WorkloadDigest(const Workload& w, const std::string& suite_dir, std::string* digest,
                    std::string* err) {
  constexpr std::string_view kPlaceholder = "{suite_dir}";
  std::string text = w.Canonical();
  for (const std::string& arg : w.command) {
    const size_t at = arg.find(kPlaceholder);
    if (at == std::string::npos || suite_dir.empty()) continue;
    const std::string relative = arg.substr(at + kPlaceholder.size());
    const std::string path = suite_dir + relative;
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      text += fmt::format("input={}: not a file\n", relative);
      continue;
    }
    std::optional<std::string> sha = Sha256OfFile(path, err);
    if (!sha) return false;
    text += fmt::format("input={}: {}\n", relative, *sha);
  }
  *digest = Sha256Hex(text);
  return true;
}

}  // namespace workgate
