#pragma once
// The child side of a launch: everything between Boost.Process's fork and
// the workload's exec, and the small supervisor process that stays behind.
//
//   workgate ── P (supervisor, own process group, child subreaper)
//                └─ W (the workload, exec'd by Boost.Process)
//   or, with a PID namespace:
//   workgate ── P (stand-in) ── init (pid 1, the supervisor) ── W (pid 2)
//
// The supervisor waits for W, reaps the orphans W leaves (they come back to
// it: a subreaper, or a namespace's init), and when W has ended and a short
// grace has passed, or when workgate asks over the launch socket (timeout,
// interruption) or goes away, kills whatever is left of the tree and says
// how many processes that was. Then P ends as W did and sends workgate the
// outcome. All of it runs in a forked copy of a multi-threaded process, so
// it uses async-signal-safe calls only and never allocates.

#include <sys/types.h>

#include <cstdint>

#include "launch/file_system.h"

namespace workgate {

class ChildSetup;

/// What P tells workgate over the launch socket (SOCK_SEQPACKET, one message
/// each): the setup outcome before W starts, and the final outcome.
struct LaunchMessage {
  enum Kind : int32_t { kSetup = 1, kFinal = 2 };
  int32_t kind;
  int32_t error;      // kSetup: 0, or the errno that stopped the ChildSetup
  int32_t namespace_error;  // kSetup: 0, or the errno of the PID namespace asked for
  int32_t nfds;       // kSetup: descriptors attached (SCM_RIGHTS)
  int32_t status;     // kFinal: W's wait status, or -1 when unknown
  int32_t leftovers;  // kFinal: processes still running after W ended, killed
  int32_t killed_on_request;  // kFinal: workgate asked for the tree to be killed
  int64_t wall_ns;    // kFinal: from W's fork to its end, as its parent saw it
};

/// The byte workgate sends P to have the whole tree killed now.
inline constexpr char kKillRequest = 'k';

/// Everything the child side needs, prepared before the fork.
struct ChildPlan {
  int sock = -1;  // P's end of the launch socket (close-on-exec)
  bool no_aslr = true;
  bool new_pid_namespace = false;
  /// With the PID namespace: enter a user namespace first (not root).
  bool user_namespace = false;
  int fd_limit = 0;  // > 0: RLIMIT_NOFILE's soft and hard limits for W
  /// With the PID namespace: the paths bound for W (ContainFileSystem).
  const BoundPath* bound = nullptr;
  int n_bound = 0;
  ChildSetup* setup = nullptr;
  const int* inherit_fds = nullptr;  // descriptors W keeps across exec
  int n_inherit_fds = 0;
  int grace_ms = 1000;  // how long descendants may outlive W before they are killed
};

/// Enters a user namespace in which the caller's user and group map to
/// themselves (setgroups denied, as unprivileged mappings require): what
/// lets a process that is not root make PID and mount namespaces. 0, or an
/// errno value. Async-signal-safe.
int EnterUserNamespace();

/// Empties the capability sets, the bounding and ambient sets included, so
/// that the caller, root or not, holds no capability now or after any exec.
/// 0, or an errno value. Async-signal-safe.
int DropCapabilities();

/// Runs in the forked child. Sets up the process group, ASLR, the counters
/// and the supervisor, and returns only in W, ready for exec: its signal
/// mask cleared and every descriptor but stdin, stdout, stderr and the ones
/// it must inherit marked close-on-exec.
void BecomeWorkload(const ChildPlan& plan);

}  // namespace workgate
