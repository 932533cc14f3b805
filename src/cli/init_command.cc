// `workgate init`: a suite file for the user's own program, from one
// command line: what the program did decides the clock mode and the score
// (measure/suite_init.h); the file says why for each, and the command to
// run next.

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "measure/suite_init.h"
#include "report/format.h"
#include "report/report_output.h"
#include "report/report_paths.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "workload/number_range.h"

namespace workgate {

namespace {

namespace fs = std::filesystem;

struct InitArgs {
  std::string exe;
  std::string name;
  std::string output = "workgate.toml";
  bool force = false;
  bool append = false;
  std::vector<std::string> each;
  double timeout = 600;
  LaunchArgs launch;
  std::vector<std::string> command;
};

std::string Plural(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// What init says on stdout of one workload it wrote.
std::string WorkloadSummary(const InitResult& result, const std::string& backend) {
  const SuiteDraft& draft = result.draft;
  const InitRun& first = result.pinned[0];
  std::string out = fmt::format("  workload {}:\n", TerminalSafe(draft.name, LineBreaks::kToSpace));
  out += fmt::format("    one count took {:.2f} s with {}: {} instructions\n", first.seconds,
                     backend, FormatCount(first.count, Minus::kAscii));
  out += fmt::format("    clock = \"{}\": ", ClockModeName(draft.clock));
  if (result.inputs_seen) {
    out += fmt::format("it read the time {} and entropy {}",
                       Plural(TimeReads(first.pinned), "time", "times"),
                       Plural(EntropyReads(first.pinned), "time", "times"));
  } else {
    out += "callgrind cannot see its reads";
  }
  if (!result.real.empty()) {
    out += fmt::format("; on the real ones its count {}",
                       draft.clock == ClockMode::kNone ? "stayed the same" : "moved");
  }
  out += "\n";
  if (draft.score) {
    out += fmt::format("    score: {} (line {}, printed the same in every run{})\n",
                       TerminalSafe(draft.score->value, LineBreaks::kToSpace),
                       draft.score->line_number,
                       draft.score->clock_free ? ", on the real clock too" : "");
  } else {
    out += "    score: none asserted: no number was printed the same in every run\n";
  }
  return out;
}

// What init says on stdout of the suite it wrote to `output`.
std::string SummaryText(const InitSuite& suite, const std::string& output, bool append) {
  const std::string file = TerminalSafe(output, LineBreaks::kToSpace);
  std::string out = fmt::format("{} {} ({}):\n", append ? "Added to" : "Wrote", file,
                                Plural(suite.measured.size(), "workload", "workloads"));
  for (const InitResult& result : suite.measured) out += WorkloadSummary(result, suite.backend);
  out += fmt::format("Next: workgate compare --baseline OLD --candidate NEW --suite {}\n", file);
  return out;
}

// The build and its arguments: --exe's, or, without it, the command's first
// word (`init -- ./prog ARGS`), the rest being its arguments.
void TakeTheBuild(InitArgs* args) {
  if (!args->exe.empty()) return;
  if (args->command.empty()) {
    throw UsageError(
        "name the build to measure: --exe BUILD, or a command after -- whose first word is the "
        "build (workgate init -- ./prog ARGS)");
  }
  for (const std::string& arg : args->command) {
    if (arg.find("{exe}") != std::string::npos) {
      throw UsageError(
          "{exe} stands for --exe's build, and no --exe was given: give --exe BUILD, or write the "
          "build itself as the command's first word");
    }
  }
  args->exe = args->command.front();
  args->command.erase(args->command.begin());
}

int RunInit(InitArgs args) {
  if (args.launch.as_is) {
    throw UsageError("workgate init measures the launch the gate uses; --as-is has no place here");
  }
  TakeTheBuild(&args);
  CheckReportPaths({{"--output", args.output}}, {{"--exe", args.exe}});
  if (args.append && args.force) {
    throw UsageError("--append adds to the suite and --force replaces it: give one");
  }
  if (!args.force && !args.append && fs::exists(fs::symlink_status(args.output))) {
    throw UsageError(fmt::format(
        "{} exists; --append adds to it, --force replaces it, --output FILE writes elsewhere",
        args.output));
  }
  InitOptions options;
  options.exe = args.exe;
  options.name = args.name;
  options.output = args.output;
  options.timeout_seconds = args.timeout;
  options.launch = args.launch.ToOptions();
  options.command = args.command;
  options.each = args.each;
  options.append = args.append;
  Progress progress;
  const InitSuite suite = MakeInitSuite(options, [&](const std::string& t) { progress.Show(t); });
  progress.Done();
  if (!suite.error.empty()) throw Error(suite.exit_code, suite.error);
  if (std::string err; !WriteTextFile(args.output, suite.text, "the suite", &err)) {
    throw EnvironmentError(err);
  }
  WriteText(SummaryText(suite, args.output, args.append), stdout, "the summary of workgate init");
  return kExitPass;
}

}  // namespace

void AddInitCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<InitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "init", "Write a suite for a program: measure its clock use and find its score");
  cmd->add_option("--exe", args->exe,
                  "The build to measure ({exe} in the command) [default: the command's first "
                  "word]")
      ->type_name("EXE");
  AddWorkloadName(cmd, &args->name, nullptr,
                  "The workload's name [default: the build's file name]");
  cmd->add_option("--output,-o", args->output, "The suite file to write")
      ->type_name("FILE")
      ->capture_default_str();
  cmd->add_flag("--force", args->force, "Replace the suite file if it exists");
  cmd->add_flag("--append", args->append,
                "Add the workloads to the suite file, which must exist and read as a suite");
  cmd->add_option("--each", args->each,
                  "One workload per file GLOB matches (repeatable), named after the file; "
                  "{file} in the command is the file (default: after the last argument)")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  cmd->add_option("--timeout", args->timeout, "Seconds each run may take")
      ->type_name("SECONDS")
      ->transform(InRange(kTimeoutSeconds))
      ->capture_default_str();
  args->launch.Register(cmd);
  cmd->add_option("command", args->command,
                  "The command's arguments, after --; {exe} is the build (default: the build "
                  "is argv[0]; no arguments: the build alone)")
      ->type_name("ARGS");
  cmd->footer(HelpFooter(
      {kExitPass, kExitUsage, kExitInvalid, kExitEnvironment},
      {"workgate init -- build/prog --size 1000",
       "workgate init --exe /usr/bin/lua5.4 --each 'bench/*.lua' -o bench/suite.toml",
       "workgate init --exe build/prog -- {exe} --size 1000",
       "workgate init --exe /usr/bin/python3 --name bench -o bench.toml -- {exe} bench.py"}));
  cmd->callback([args, run] { *run = [args] { return RunInit(*args); }; });
}

}  // namespace workgate
