#pragma once
// The simulated events in words and table rows, for the terminal and
// Markdown renderers alike (model/simulated_events.h): a workload's figures
// beside its Δ instructions, and the explanation's rows' and lines' events.

#include <string>
#include <vector>

#include "model/model.h"
#include "report/format.h"

namespace workgate {

/// One figure's change as the sentence says it: "+2.58%", "−40.00%"; the
/// signed count where the baseline's is 0 ("+12"), "unchanged" for none.
std::string FigureChange(const SimulatedFigure& f, Minus minus);

/// A workload's simulated events, "" without: "instructions +2.58%,
/// mispredicted branches −40.00%, L1 misses unchanged, last-level misses
/// unchanged, estimated cycles −5.12% (simulated by callgrind; context, not
/// the verdict)", or for a workload gated on estimated cycles "(simulated by
/// callgrind; the verdict is on estimated cycles)"; where they are not shown,
/// "simulated events not shown: NOTE" (the note is untrusted text: the
/// renderer escapes the whole sentence).
std::string SimulatedEventsSentence(const WorkloadResult& w, Minus minus);

/// A workload's hardware events on perf (WorkloadResult::hardware), "" without:
/// "hardware events (perf, one more run of each side on this machine;
/// context, not the verdict): branch-misses:u −40.12%, cache-misses:u
/// +1.20%"; an event the kernel multiplexed on either side is "not compared
/// (multiplexed; never scaled)"; where there are none, "hardware events not
/// shown: NOTE" (untrusted: the renderer escapes the whole sentence).
std::string HardwareEventsSentence(const WorkloadResult& w, Minus minus);

/// For a workload gated on estimated cycles: "gated on estimated cycles
/// (docs/counting.md, \"Simulated events\"): the counts, Δ and margin are
/// estimated cycles"; "" for instructions.
std::string MetricSentence(const WorkloadResult& w);

/// One row of the explanation's simulated events: a function (or, with
/// `line`, one of its lines: "↳ vm.c:12") and the deltas of the figures
/// after instructions, in SimulatedFigures' order.
struct SimulatedRowText {
  std::string place;  // untrusted: the renderer escapes it
  bool line = false;
  std::vector<int64_t> deltas;
};

/// The figures' column names after the place: "Δ mispredicted branches",
/// "Δ L1 misses", "Δ last-level misses", "Δ estimated cycles".
std::vector<std::string> SimulatedColumnNames();

/// The rows of `e`'s simulated events, each row's function then its lines
/// with events; empty where the explanation has none (Explanation::simulated).
std::vector<SimulatedRowText> SimulatedRows(const Explanation& e);

}  // namespace workgate
