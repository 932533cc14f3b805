#pragma once
// What a contained run still sees of its temporary directories. Each run
// gets a fresh tmpfs on /tmp, /var/tmp and /dev/shm (launch/file_system.h),
// which hides whatever workgate's own runs need from there: the copies of
// the builds (TMPDIR defaults to /tmp), a build that runs from its own path,
// the files the loader maps for it, the suite's folder. Those are bound back
// at their paths, read-only; nothing else of what lies there reaches the run.

#include <string>

#include "launch/launch.h"
#include "workload/run_plan.h"

namespace workgate {

/// Adds to `spec->readonly_dirs` the directory of the build copies the run
/// of `exe` executes from (`<dir>/<n>/exe`: read-only to the workload, as
/// workgate's other directories are), and, for a contained run
/// (LaunchSpec::new_pid_namespace), what of these lies in a fresh directory:
/// the build where it runs from its own path (a file, or a build directory),
/// the files the loader maps for it under the run's environment
/// (ResolveSharedLibraries), and `suite_dir`.
void BindWhatTheRunLoads(const LaunchOptions& options, const std::string& exe,
                         const std::string& suite_dir, LaunchSpec* spec);

}  // namespace workgate
