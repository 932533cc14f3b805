#include "measure/containment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <iterator>

#include "launch/file_system.h"
#include "launch/launch.h"
#include "model/backend.h"

namespace workgate {

ContainmentFacts ThisMachine() {
  return ContainmentFacts{geteuid() == 0, PidNamespaceAvailable(), ReadOnlyFileSystemAvailable(),
                          SharedTemporaryDirectories()};
}

std::vector<std::string> CandidateReach(const std::string& backend, bool as_is,
                                        const ContainmentFacts& facts) {
  std::vector<std::string> reach;
  if (IsBackend(backend, Backend::kCallgrind)) {
    reach.push_back(
        "its own count: callgrind writes its output files where the workload can write them "
        "(vgcount sends its counts on a channel out of the workload's reach: --backend vgcount)");
  }
  const bool contained = !as_is && facts.pid_namespace;
  if (as_is) {
    reach.push_back(
        "workgate's processes and environment through /proc: --as-is runs the workloads as "
        "they are, without namespaces");
  } else if (!facts.pid_namespace) {
    reach.push_back(
        "workgate's processes and environment through /proc: this machine lets workgate make "
        "no PID namespace (as root) or user namespace (as a user) for the workloads");
  }
  const std::string who = facts.root ? "root" : "workgate's user";
  if (!contained) {
    reach.push_back("the files " + who +
                    " can write (the result store, the reports, the builds): the workload runs "
                    "as " +
                    (facts.root ? "root" : "that user") + ", in no namespace of its own");
  } else if (!facts.read_only) {
    reach.push_back("the files " + who +
                    " can write (the result store, the reports, the builds): workgate cannot make "
                    "the file system read-only for the workload here (/ is no mount point, as in "
                    "a chroot, or the kernel predates mount_setattr)");
  }
  // What one run leaves in a temporary directory another finds: a cache
  // that lets a counted run skip its work.
  const std::vector<std::string> shared =
      contained
          ? facts.shared_temporary
          : std::vector<std::string>(std::begin(kFreshDirectories), std::end(kFreshDirectories));
  if (!shared.empty()) {
    reach.push_back(fmt::format(
        "what the steps before workgate and the earlier runs left in {}, and what it leaves "
        "there for the runs after it: {}",
        fmt::join(shared, ", "),
        contained ? "workgate cannot mount a fresh tmpfs there for each run (in a chroot, where "
                    "/ is no mount point, only on a directory that is a mount point of its own; "
                    "before Linux 5.12, nowhere)"
                  : "the workload runs in no mount namespace of its own"));
  }
  return reach;
}

std::vector<std::string> CandidateReach(const std::string& backend, bool as_is) {
  return CandidateReach(backend, as_is, ThisMachine());
}

}  // namespace workgate
