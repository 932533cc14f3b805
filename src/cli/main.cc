// workgate: gate pull requests on the work they add, counted in retired
// user-space instructions. See README.md.

#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "launch/interrupt.h"
#include "report/report_output.h"
#include "util/exit_codes.h"
#include "util/text.h"
#include "version.h"

namespace {

// What to do about an argument the command does not take (CLI11's
// "The following argument was not expected: --timed"): which command it
// is not an option of, which command it is an option of, and, where the
// command runs a program of the user's and no suite was given, that the
// program's own options go after --.
std::string ExtrasAdvice(CLI::App& app, const std::string& message) {
  const size_t colon = message.find(": ");
  std::string extra = colon == std::string::npos ? "" : message.substr(colon + 2);
  extra = extra.substr(0, extra.find(' '));
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  if (parsed.empty() || extra.empty()) return "";
  CLI::App* command = parsed.back();
  const std::string name = command->get_name();
  const std::string shown = workgate::TerminalSafe(extra, workgate::LineBreaks::kToSpace);
  std::string out;
  if (extra[0] == '-') {
    const std::string option = extra.substr(0, extra.find('='));
    out += fmt::format("workgate {} has no option {}; workgate {} --help lists its options.\n",
                       name, workgate::TerminalSafe(option, workgate::LineBreaks::kToSpace), name);
    for (CLI::App* other : app.get_subcommands({})) {
      if (other != command && other->get_option_no_throw(option) != nullptr) {
        out += fmt::format("{} is an option of workgate {}.\n",
                           workgate::TerminalSafe(option, workgate::LineBreaks::kToSpace),
                           other->get_name());
      }
    }
  }
  const bool runs_a_program = name == "count" || name == "compare";
  const CLI::Option* suite = command->get_option_no_throw("--suite");
  if (runs_a_program && (suite == nullptr || suite->count() == 0)) {
    out += fmt::format(
        "If {} is the program's own, it goes after --: workgate {} [OPTIONS] -- {} {}\n", shown,
        name, name == "count" ? "CMD" : "{exe}", shown);
  }
  return out;
}

// Parses the command line and runs the command; its exit code. `*what`
// names what the command writes to standard output, for the message when
// that is lost.
int ParseAndRun(CLI::App& app, const workgate::CommandRunner& run, int argc, char** argv,
                std::string* what) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 writes help and version itself, here into `out`, so that the
    // write to standard output is checked like a report's; its usage
    // errors exit with ours.
    std::ostringstream out;
    int code = app.exit(e, out, std::cerr);
    const bool version = dynamic_cast<const CLI::CallForVersion*>(&e) != nullptr;
    std::string err;
    if (!workgate::PrintText(out.str(), stdout, version ? "the version" : "the help", &err)) {
      fmt::print(stderr, "Error: {}\n", err);
      return workgate::kExitEnvironment;
    }
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      fmt::print(stderr, "{}", ExtrasAdvice(app, e.what()));
    }
    return code == 0 ? 0 : workgate::kExitUsage;
  }
  for (const CLI::App* command : app.get_subcommands()) {
    *what = "the output of workgate " + command->get_name();
  }
  return workgate::RunCommand(run);
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists, so that every thread leaves these signals to
  // the one that ends the workload trees and cleans up.
  workgate::HandleInterruptions();
  // A reader that goes away (`workgate probe --json - | head -1`) makes
  // writes fail with EPIPE, which every report write checks and turns into
  // exit 5 with the reason, instead of a silent death by SIGPIPE. Workloads
  // start with every signal at its default (launch/supervisor.cc).
  signal(SIGPIPE, SIG_IGN);
  CLI::App app{"workgate: gate pull requests on work added (retired user-space instructions)"};
  app.set_version_flag("--version", "workgate " WORKGATE_VERSION " (" WORKGATE_VERSION_DETAIL ")");
  app.require_subcommand(1);
  app.footer(
      "Run `workgate COMMAND --help` for a command's options, exit codes and examples.\n"
      "Exit codes: 0 pass, 1 work added, 2 usage, 3 invalid, 4 inconclusive, 5 environment,\n"
      "128+N interrupted by signal N. `man workgate` says what each means.");
  workgate::CommandRunner run;
  workgate::AddProbeCommand(app, &run);
  workgate::AddCountCommand(app, &run);
  workgate::AddCompareCommand(app, &run);
  workgate::AddExplainCommand(app, &run);
  workgate::AddMergeCommand(app, &run);
  workgate::AddSelftestCommand(app, &run);
  workgate::AddHistoryCommand(app, &run);
  workgate::AddInitCommand(app, &run);
  workgate::AddAcceptCommand(app, &run);
  workgate::RefuseOptionsAsValues(app);
  std::string what = "workgate's output";
  const int code = ParseAndRun(app, run, argc, argv, &what);
  // Whatever the command returned: output that did not reach standard
  // output (a full disk, a reader that went away) is exit 5, so that a
  // verdict nobody could read never passes, and the reason is said once.
  std::string lost;
  if (workgate::StandardOutputLost(what, &lost)) {
    if (!lost.empty()) fmt::print(stderr, "Error: {}\n", lost);
    return workgate::kExitEnvironment;
  }
  return code;
}
