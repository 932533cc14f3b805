#pragma once
// A workload result with the given counts and margin, not yet decided: the
// input of the decision and stability tests.

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace workgate::testing {

inline WorkloadResult MakeWorkload(std::vector<uint64_t> base, std::vector<uint64_t> cand,
                                   double margin = 0.01) {
  WorkloadResult w;
  w.name = "w";
  w.max_work_added = margin;
  w.baseline.counts = std::move(base);
  w.candidate.counts = std::move(cand);
  return w;
}

}  // namespace workgate::testing
