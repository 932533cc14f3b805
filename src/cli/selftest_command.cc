// `workgate selftest --timed`: whether this machine's timed context resolves
// a delay of known size (measure/timed_selftest.h); its JSON is the probe's
// (`probe --selftest-timed --json FILE`).

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "measure/timed_selftest.h"
#include "report/report_output.h"
#include "report/selftest_report.h"
#include "util/error.h"
#include "util/paths.h"

namespace workgate {

namespace {

struct SelftestArgs {
  bool timed = false;
  int pairs = kSelftestPairs;
  double delay_percent = 100 * kSelftestDelay;
  uint64_t iterations = kSelftestIterations;
  uint64_t seed = 20261129;
};

// 0 resolves, 4 does not resolve (or sees an effect between identical runs),
// 5 a run failed.
int ExitCodeOf(const TimedSelftest& result) {
  switch (result.outcome) {
    case SelftestOutcome::kResolves:
      return kExitPass;
    case SelftestOutcome::kMisses:
    case SelftestOutcome::kFalseEffect:
      return kExitInconclusive;
    case SelftestOutcome::kFailed:
      return kExitEnvironment;
  }
  return kExitEnvironment;
}

int RunSelftest(const SelftestArgs& args) {
  if (!args.timed) throw UsageError("name the self-test to run: --timed (the only one so far)");
  TimedSelftestPlan plan;
  plan.known_loop = FindCompanion("probes/known_loop");
  if (plan.known_loop.empty()) {
    throw EnvironmentError("probes/known_loop not found beside workgate (looked for " +
                           CompanionPlaces("probes/known_loop") + ")");
  }
  plan.pairs = args.pairs;
  plan.delay_fraction = args.delay_percent / 100;
  plan.iterations = args.iterations;
  plan.seed = args.seed;
  Progress progress;
  const TimedSelftest result =
      RunTimedSelftest(plan, [&progress](const std::string& text) { progress.Show(text); });
  progress.Done();
  std::string err;
  if (!PrintText(SelftestText(result), stdout, "the self-test", &err)) throw EnvironmentError(err);
  return ExitCodeOf(result);
}

}  // namespace

void AddSelftestCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<SelftestArgs>();
  CLI::App* cmd = app.add_subcommand(
      "selftest", "Check what this machine can resolve: --timed, a known delay on the real clock");
  cmd->add_flag("--timed", args->timed,
                "Time the known loop against itself, then against itself with a known delay, "
                "and say whether the timed context resolves it");
  cmd->add_option("--pairs", args->pairs, "Timed pairs per phase")
      ->type_name("N")
      ->transform(InRange(kSelftestPairsRange))
      ->capture_default_str();
  cmd->add_option("--delay", args->delay_percent,
                  "The delay injected in the candidate's runs, in percent of the run time")
      ->type_name("PERCENT")
      ->transform(InRange(kDelayPercentRange))
      ->capture_default_str();
  cmd->add_option("--iterations", args->iterations, "Iterations of the known loop per run")
      ->type_name("N")
      ->transform(InRange(kIterationsRange))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the timed bootstrap and sampled sign flips")
      ->type_name("N")
      ->transform(InRange(kSeedRange))
      ->capture_default_str();
  cmd->footer(
      "Exit 0 when the timed context resolves the delay (and finds no effect between\n"
      "identical runs), 4 when it does not, 5 when a run failed.\n" +
      HelpFooter({kExitPass, kExitUsage, kExitInconclusive, kExitEnvironment},
                 {"workgate selftest --timed", "workgate selftest --timed --delay 2 --pairs 30",
                  "workgate probe --selftest-timed --json probe.json"}));
  cmd->callback([args, run] { *run = [args] { return RunSelftest(*args); }; });
}

}  // namespace workgate
