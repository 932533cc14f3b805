#pragma once
// The probes' two-instruction loop (probes/two_instruction_loop.h), run
// inside workgate itself: the perf check counts it in-process. Only
// known_loop.cc sees probes/; it is built as an object library of its own
// (CMakeLists.txt), so the rest of the core cannot include probe programs.

namespace workgate {

/// Instructions the known loop retires per iteration, on every architecture
/// workgate builds for.
extern const int kKnownLoopInstructionsPerIteration;

/// Runs the known loop n times (not at all for 0).
void RunKnownLoop(unsigned long n);

}  // namespace workgate
