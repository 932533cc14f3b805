#pragma once
// Shards: `compare --shard I/N` runs a deterministic share of a suite's
// selected workloads, so that a CI matrix of N runners can count a suite
// together; `workgate merge` joins the parts (decision/merge.h).
//
// Shard I of N holds the workloads whose position p (0-based, in suite order
// after --workload selection) has p % N == I - 1. A position rather than a
// hash of the name: every shard gets floor(W/N) or ceil(W/N) of W workloads
// (a matrix takes as long as its slowest runner), and no shard is empty
// unless N > W. Which shard counted a workload matters to nothing else: each
// shard counts both sides itself, a stored baseline is looked up by workload
// name, and merge takes the full list from the parts. So the shifts a new
// workload causes in the assignment of the others cost nothing.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace workgate {

struct ShardSpec {
  int index = 1;  // I, 1-based
  int count = 1;  // N
};

/// Reads "I/N": plain decimal integers with 1 <= I <= N <= kMaxShards. False
/// with `*err` ("must be I/N with 1 <= I <= N <= 1000, not 4/3") otherwise.
bool ParseShard(std::string_view text, ShardSpec* shard, std::string* err);

/// Whether the workload at `position` of the selected workloads is in `shard`.
inline bool InShard(size_t position, const ShardSpec& shard) {
  return position % static_cast<size_t>(shard.count) == static_cast<size_t>(shard.index - 1);
}

/// The names at the positions of `all` that are in `shard`, in order.
std::vector<std::string> ShardNames(const std::vector<std::string>& all, const ShardSpec& shard);

}  // namespace workgate
