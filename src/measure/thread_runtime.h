#pragma once
// Which program a threaded workload runs, as far as the reports can say how
// it runs on one thread (report/summary.h ThreadHintSentence), and the hint
// an unstable workload whose runs met threads gets.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "measure/measure.h"
#include "model/model.h"

namespace workgate {

/// The program `file` (the executable a workload's command runs, as
/// executed; `argv0` as the command names it): zstd and the interpreters
/// (python, java, node) by their names, a Go program by its build ID note or
/// .go.buildinfo section, an OpenMP program by the libraries the loader
/// would map for it with the workload's environment `env` (libgomp, libomp,
/// libiomp5). Unknown where none fits or the file cannot be read.
ThreadRuntime ThreadRuntimeOf(const std::string& file, const std::string& argv0,
                              const std::map<std::string, std::string>& env);

/// The most threads one of `runs` met (CountedRun::unpinned, vgcount's);
/// 0 where none met more than one.
uint64_t MostThreads(const std::vector<CountedRun>& runs);

/// ThreadRuntimeOf for the program `c`, a count of `w` for the build `exe`,
/// ran: the build where the command runs {exe}, else the command's program
/// as the run's PATH finds it.
ThreadRuntime RuntimeOfWorkload(const Workload& w, const CountedWorkload& c,
                                const LaunchOptions& options, const std::string& exe);

}  // namespace workgate
