#include "workload/shard.h"

#include <fmt/format.h>

#include <charconv>

namespace workgate {
namespace {

// A plain decimal integer in [1, kMaxShards]: no sign, no spaces, no hex.
bool ReadCount(std::string_view text, int* out) {
  if (text.empty() || text.size() > 4 || text[0] < '1' || text[0] > '9') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out <= kMaxShards;
}

}  // namespace

bool ParseShard(std::string_view text, ShardSpec* shard, std::string* err) {
  const size_t slash = text.find('/');
  ShardSpec read;
  if (slash != std::string_view::npos && ReadCount(text.substr(0, slash), &read.index) &&
      ReadCount(text.substr(slash + 1), &read.count) && read.index <= read.count) {
    *shard = read;
    return true;
  }
  *err = fmt::format("must be I/N with 1 <= I <= N <= {}, not {}", kMaxShards, text);
  return false;
}

std::vector<std::string> ShardNames(const std::vector<std::string>& all, const ShardSpec& shard) {
  std::vector<std::string> names;
  for (size_t p = 0; p < all.size(); ++p) {
    if (InShard(p, shard)) names.push_back(all[p]);
  }
  return names;
}

}  // namespace workgate
