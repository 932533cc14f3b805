// compare_profiles VGCOUNT_PROFILE... -- CALLGRIND_OUTPUT...: vgcount's
// profile of a run against callgrind's of the same run, for
// ci/profile-exactness. Both are read by workgate's callgrind reader and
// compared as tests/vgcount/profile_match.h does. Prints the totals, the
// number of functions and every function whose figures differ, then every
// source line and every call edge whose figures differ beyond the last
// blocks, and exits 0 when the only differences, by function, by line and
// by call edge, are each thread's
// last block (THREADS, default
// 1, given as --threads N before the files), 1 when others remain, 2 on a
// file it cannot read.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "vgcount/profile_match.h"

int main(int argc, char** argv) {
  using namespace workgate;
  std::vector<std::string> files[2];
  int side = 0, threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--") {
      side = 1;
    } else {
      files[side].push_back(arg);
    }
  }
  if (files[0].empty() || files[1].empty() || threads < 1) {
    std::fprintf(stderr, "usage: compare_profiles [--threads N] VGCOUNT... -- CALLGRIND...\n");
    return 2;
  }
  Profile profiles[2];
  for (int s = 0; s < 2; ++s) {
    std::string err;
    if (!LoadProfiles(files[s], &profiles[s], &err)) {
      std::fprintf(stderr, "compare_profiles: %s\n", err.c_str());
      return 2;
    }
  }
  const auto gaps = testing::ProfileGaps(profiles[0], profiles[1]);
  const auto unexplained = testing::UnexplainedGaps(profiles[0], profiles[1], threads);
  std::printf("vgcount: %llu instructions in %zu functions; callgrind: %llu in %zu\n",
              static_cast<unsigned long long>(profiles[0].total), profiles[0].self.size(),
              static_cast<unsigned long long>(profiles[1].total), profiles[1].self.size());
  for (const auto& gap : gaps) {
    std::printf("  %s in %s: vgcount %lld, callgrind %lld (%+lld)\n", gap.function.name.c_str(),
                gap.function.object.c_str(), static_cast<long long>(gap.vgcount),
                static_cast<long long>(gap.callgrind), static_cast<long long>(gap.difference()));
  }
  std::printf("%zu functions differ, %zu of them beyond the last block of %d thread%s\n",
              gaps.size(), unexplained.size(), threads, threads == 1 ? "" : "s");
  size_t lines[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    for (const auto& [function, costs] : profiles[s].lines) lines[s] += costs.size();
  }
  const auto line_gaps = testing::LineGaps(profiles[0], profiles[1]);
  const auto unexplained_lines = testing::UnexplainedLineGaps(profiles[0], profiles[1], threads);
  for (const auto& gap : unexplained_lines) {
    std::printf("  %s in %s, %s:%llu: vgcount %lld, callgrind %lld (%+lld)\n",
                gap.function.name.c_str(), gap.function.object.c_str(), gap.line.file.c_str(),
                static_cast<unsigned long long>(gap.line.line), static_cast<long long>(gap.vgcount),
                static_cast<long long>(gap.callgrind), static_cast<long long>(gap.difference()));
  }
  std::printf("lines: vgcount %zu, callgrind %zu; %zu differ, %zu of them beyond the last block\n",
              lines[0], lines[1], line_gaps.size(), unexplained_lines.size());
  const auto call_gaps = testing::CallGaps(profiles[0], profiles[1]);
  const auto unexplained_calls = testing::UnexplainedCallGaps(profiles[0], profiles[1], threads);
  for (const auto& gap : unexplained_calls) {
    std::printf("  %s (%s) -> %s (%s): vgcount %llu calls, %llu inclusive; callgrind %llu, %llu\n",
                gap.edge.first.name.c_str(), gap.edge.first.object.c_str(),
                gap.edge.second.name.c_str(), gap.edge.second.object.c_str(),
                static_cast<unsigned long long>(gap.vgcount.calls),
                static_cast<unsigned long long>(gap.vgcount.inclusive),
                static_cast<unsigned long long>(gap.callgrind.calls),
                static_cast<unsigned long long>(gap.callgrind.inclusive));
  }
  std::printf(
      "call edges: vgcount %zu, callgrind %zu; %zu differ, %zu of them beyond the last block\n",
      profiles[0].calls.size(), profiles[1].calls.size(), call_gaps.size(),
      unexplained_calls.size());
  return unexplained.empty() && unexplained_lines.empty() && unexplained_calls.empty() ? 0 : 1;
}
