#pragma once
// A seccomp filter that answers one system call for the process that installs
// it and everything it starts (filters survive fork and exec): gives a test
// the machine it needs on any machine, one whose PID namespaces ran out or
// whose perf_event_open fails, and catches code that makes a call it must not.

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#include <cstdint>
#include <iterator>

#include "launch/launch.h"

namespace workgate::testing {

/// Answers system call `nr` with `action` (SECCOMP_RET_ERRNO | an errno,
/// SECCOMP_RET_KILL_PROCESS) from now on. 0, or the errno of the failure.
inline int FilterSyscall(int nr, uint32_t action) {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, action),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
  // Without no_new_privs only a privileged process may install a filter.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return errno;
  return 0;
}

/// A launch whose tree runs under FilterSyscall(nr, action).
class SyscallFilterSetup : public ChildSetup {
 public:
  SyscallFilterSetup(int nr, uint32_t action) : nr_(nr), action_(action) {}
  int InChild(int*, int* nfds) override {
    *nfds = 0;
    return FilterSyscall(nr_, action_);
  }

 private:
  int nr_;
  uint32_t action_;
};

}  // namespace workgate::testing
