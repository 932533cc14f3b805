#pragma once
// The process trees workgate has started and not yet seen end. An
// interruption (launch/interrupt.h) ends them all through this registry, and
// a tree whose supervisor died leaves orphans that come back to workgate,
// itself a child subreaper: KillEscapees finds and ends them.

#include <sys/types.h>

#include <mutex>

namespace workgate {

/// Makes this process a child subreaper (prctl(2) PR_SET_CHILD_SUBREAPER):
/// orphans of the trees it starts come back to it instead of init. Once.
void BecomeSubreaper();

/// Held across forking a child and registering it, so an escapee scan never
/// mistakes a new child for an orphan. Every fork in workgate takes it.
std::unique_lock<std::mutex> LockSpawning();

/// With LockSpawning held: a tree started; `supervisor` is its direct child,
/// `control` the socket that asks it to kill the tree (launch/supervisor.h).
void RegisterTree(pid_t supervisor, int control);
/// The tree ended and its supervisor was reaped.
void UnregisterTree(pid_t supervisor);

/// Kills and reaps every child of workgate that is no registered supervisor:
/// processes that outlived the supervisor of their tree. Returns how many.
int KillEscapees();

/// True once an interruption began: no new tree may start.
bool LaunchesInterrupted();

/// Stops new launches, asks every tree's supervisor to kill its tree, waits
/// up to `patience_ms` for them to end, kills the rest outright, and kills
/// the escapees. Returns how many trees were running.
int EndAllTrees(int patience_ms);

}  // namespace workgate
