#include "measure/containment.h"

#include <unistd.h>

#include "launch/launch.h"
#include "model/backend.h"

namespace workgate {

std::vector<std::string> CandidateReach(const std::string& backend, bool as_is) {
  std::vector<std::string> reach;
  if (IsBackend(backend, Backend::kCallgrind)) {
    reach.push_back(
        "its own count: callgrind writes its output files where the workload can write them "
        "(vgcount sends its counts on a channel out of the workload's reach: --backend vgcount)");
  }
  if (as_is) {
    reach.push_back(
        "workgate's processes and environment through /proc: --as-is runs the workloads as "
        "they are, without namespaces");
  } else if (!PidNamespaceAvailable()) {
    reach.push_back(
        "workgate's processes and environment through /proc: this machine lets workgate make "
        "no PID namespace (as root) or user namespace (as a user) for the workloads");
  }
  const std::string who = geteuid() == 0 ? "root" : "workgate's user";
  if (as_is || !PidNamespaceAvailable()) {
    reach.push_back("the files " + who +
                    " can write (the result store, the reports, the builds): the workload runs "
                    "as " +
                    (geteuid() == 0 ? "root" : "that user") + ", in no namespace of its own");
  } else if (!ReadOnlyFileSystemAvailable()) {
    reach.push_back("the files " + who +
                    " can write (the result store, the reports, the builds): workgate cannot make "
                    "the file system read-only for the workload here (/ is no mount point, as in "
                    "a chroot, or the kernel predates mount_setattr)");
  }
  return reach;
}

}  // namespace workgate
