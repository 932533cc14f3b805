#pragma once
// What a candidate build could reach of its own count and of workgate's
// files, given how this machine lets workgate launch it: the report says it
// beside the verdict, so that a pass is read knowing what the candidate
// could have done to it (docs/security.md, "What the candidate can and cannot do").

#include <string>
#include <vector>

namespace workgate {

/// What decides the candidate's reach on a machine (launch/launch.h).
struct ContainmentFacts {
  bool root = false;           // workgate runs as root
  bool pid_namespace = false;  // PidNamespaceAvailable
  bool read_only = false;      // ReadOnlyFileSystemAvailable
  /// SharedTemporaryDirectories: the temporary directories a contained run
  /// shares with the others.
  std::vector<std::string> shared_temporary;
};

/// This machine's facts, as workgate's launches find them.
ContainmentFacts ThisMachine();

/// Each thing the candidate could reach, with why, in words ("its own
/// count: callgrind writes its output files where the workload can write
/// them; ..."). `backend` is the counter's name; `as_is` whether the
/// workloads run as they are (--as-is: no namespaces). Empty: nothing.
std::vector<std::string> CandidateReach(const std::string& backend, bool as_is,
                                        const ContainmentFacts& facts);
/// The same on this machine.
std::vector<std::string> CandidateReach(const std::string& backend, bool as_is);

}  // namespace workgate
