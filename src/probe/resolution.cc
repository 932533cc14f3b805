#include "probe/resolution.h"

#include <fmt/format.h>

#include <algorithm>

#include "counter/perf_counter.h"
#include "launch/launch.h"
#include "machine/known_loop.h"
#include "model/backend.h"

namespace workgate {
namespace {

uint64_t Spread(const std::vector<uint64_t>& sorted) { return sorted.back() - sorted.front(); }

double Median(const std::vector<uint64_t>& sorted) {
  return static_cast<double>(sorted[sorted.size() / 2]);
}

Resolution Failed(const std::string& backend, const std::string& error) {
  Resolution r;
  r.backend = backend;
  r.error = error;
  return r;
}

}  // namespace

bool Resolution::exact() const {
  return ok && per_iteration == kKnownLoopInstructionsPerIteration && spread == 0;
}

Resolution ResolutionFromCounts(const std::string& backend, std::vector<uint64_t> small,
                                std::vector<uint64_t> large) {
  if (small.empty() || large.empty()) return Failed(backend, "no counts of the known loop");
  std::sort(small.begin(), small.end());
  std::sort(large.begin(), large.end());
  Resolution r;
  r.backend = backend;
  r.per_iteration =
      (Median(large) - Median(small)) / static_cast<double>(kResolutionLarge - kResolutionSmall);
  r.spread = std::max(Spread(small), Spread(large));
  r.small = std::move(small);
  r.large = std::move(large);
  r.ok = true;
  return r;
}

bool SplitForkedCounts(std::vector<uint64_t> per_process, std::vector<uint64_t>* small,
                       std::vector<uint64_t>* large, std::string* err) {
  constexpr size_t kChildren = 2 * kResolutionRepeats;
  if (per_process.size() != 1 + kChildren) {
    *err = fmt::format("expected {} processes, {} counted", 1 + kChildren, per_process.size());
    return false;
  }
  // The parent comes first (CountedRun::per_process) and runs no loop. The
  // children come in no useful order; each small loop counts
  // 2 * (kResolutionLarge - kResolutionSmall) instructions fewer than a large
  // one, far more than any backend's spread, so the order by count is the
  // order by size.
  std::sort(per_process.begin() + 1, per_process.end());
  small->assign(per_process.begin() + 1, per_process.begin() + 1 + kResolutionRepeats);
  large->assign(per_process.begin() + 1 + kResolutionRepeats, per_process.end());
  return true;
}

Resolution MeasurePerfResolution(const std::string& known_loop, const std::string& events) {
  PerfCounter counter(events);
  std::vector<uint64_t> small, large;
  for (int i = 0; i < kResolutionRepeats; ++i) {
    for (unsigned long n : {kResolutionSmall, kResolutionLarge}) {
      LaunchSpec spec;
      spec.argv = {known_loop, std::to_string(n)};
      spec.env = MinimalEnvironment("/");
      spec.timeout_seconds = 30;
      CountedRun run = counter.Run(spec, {});
      if (!run.valid()) return Failed(std::string(BackendName(Backend::kPerf)), run.error);
      (n == kResolutionSmall ? small : large).push_back(*run.instructions());
    }
  }
  return ResolutionFromCounts(std::string(BackendName(Backend::kPerf)), std::move(small),
                              std::move(large));
}

Resolution MeasureValgrindResolution(const std::string& known_loop, ValgrindCounter::Tool tool) {
  ValgrindCounter counter(tool);
  LaunchSpec spec;
  spec.argv = {known_loop, "--region-fork"};
  for (int i = 0; i < kResolutionRepeats; ++i) {
    spec.argv.push_back(std::to_string(kResolutionSmall));
    spec.argv.push_back(std::to_string(kResolutionLarge));
  }
  spec.env = MinimalEnvironment("/");
  spec.timeout_seconds = 60;
  // Region markers: a forked child would otherwise carry its parent's cost
  // so far, and each child's count comes from its own output file.
  CountOptions options;
  options.region = true;
  CountedRun run = counter.Run(spec, options);
  if (!run.valid()) return Failed(counter.name(), run.error);
  std::vector<uint64_t> small, large;
  std::string err;
  if (!SplitForkedCounts(run.per_process, &small, &large, &err)) {
    return Failed(counter.name(), err);
  }
  return ResolutionFromCounts(counter.name(), std::move(small), std::move(large));
}

}  // namespace workgate
