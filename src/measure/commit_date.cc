#include "measure/commit_date.h"

#include <algorithm>
#include <charconv>

#include "measure/git_objects.h"
#include "measure/source_lines.h"
#include "store/result_store.h"

namespace workgate {

std::optional<std::string> CommitDate(const std::string& dir, const std::string& ref) {
  const SourceView checkout = MakeSourceView(dir, "none");
  if (checkout.root.empty()) return std::nullopt;
  const std::string commit = CommitNamed(checkout.root, ref);
  if (commit.empty()) return std::nullopt;
  GitObjects objects(checkout.objects, checkout.format);
  const std::optional<std::string> text = objects.Read("commit", commit);
  return text ? CommitterDate(*text) : std::nullopt;
}

std::optional<std::string> CommitterDate(std::string_view commit) {
  // The headers end at the first empty line; the message after it may hold
  // a line that looks like one.
  for (size_t at = 0; at < commit.size() && commit[at] != '\n';) {
    const size_t end = std::min(commit.find('\n', at), commit.size());
    const std::string_view line = commit.substr(at, end - at);
    at = end + 1;
    if (line.rfind("committer ", 0) != 0) continue;
    // "committer NAME <EMAIL> SECONDS ZONE": the time follows the last '>'.
    const size_t close = line.rfind('>');
    if (close == std::string_view::npos || close + 1 >= line.size() || line[close + 1] != ' ') {
      return std::nullopt;
    }
    const std::string_view time = line.substr(close + 2);
    int64_t seconds = 0;
    const auto [next, ec] = std::from_chars(time.data(), time.data() + time.size(), seconds);
    if (ec != std::errc() || next == time.data() || next == time.data() + time.size() ||
        *next != ' ') {
      return std::nullopt;
    }
    const std::string utc = UtcTime(seconds);
    return utc.empty() ? std::nullopt : std::optional<std::string>(utc);
  }
  return std::nullopt;
}

}  // namespace workgate
