#pragma once
// What workgate does when it is interrupted (SIGINT from ctrl-c, SIGTERM or
// SIGHUP from a cancelled CI job): it ends every workload tree it started,
// removes its temporary and work directories, publishes nothing that could
// read as a pass, and exits with 128 + the signal. A second signal while it
// cleans up ends it at once.

#include <mutex>
#include <optional>

namespace workgate {

/// Blocks SIGINT, SIGTERM and SIGHUP in every thread and takes them on a
/// thread of its own. Call first thing in main(), before any other thread
/// exists (threads inherit the blocked set). One that workgate was started
/// with ignored stays ignored all along, as its starter asked: SIGHUP under
/// `nohup`, SIGINT in a non-interactive shell's background job. (Blocked, an
/// ignored signal would be kept pending and taken.)
void HandleInterruptions();

/// Returns at once unless an interruption has begun; then never returns: the
/// thread that ends everything exits the process with 128 + the signal.
/// Whatever the main thread would do next (report an error that the
/// clean-up caused, such as a temporary directory gone from under it, or
/// return the exit code of a run whose workload was killed) must wait for
/// it, or the exit code races the interruption's.
void AwaitInterruption();

/// Held while results are printed and reports written. Empty once an
/// interruption has begun: the caller publishes nothing. An interruption that
/// arrives meanwhile waits for the lock, so a report is either written whole
/// by a run that finished, or not at all.
std::optional<std::unique_lock<std::mutex>> BeginPublishing();

}  // namespace workgate
