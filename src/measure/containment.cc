#include "measure/containment.h"

#include <unistd.h>

#include "launch/launch.h"

namespace workgate {

std::vector<std::string> CandidateReach(const std::string& backend, bool as_is) {
  std::vector<std::string> reach;
  if (backend == "callgrind") {
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
  reach.push_back(
      geteuid() == 0
          ? "the files root can write (the result store, the reports, the builds): the workload "
            "runs as root"
          : "the files workgate's user can write (the result store, the reports, the builds): "
            "the workload runs as that user");
  return reach;
}

}  // namespace workgate
