#pragma once
// The subcommands. Each registers its options on the CLI11 app and returns
// the process exit code when run; errors that stop a command are thrown as
// workgate::Error and mapped to exit codes by RunCommand.

#include <CLI/CLI.hpp>
#include <functional>

namespace workgate {

/// Registers a subcommand; `*run` is set to the function that runs it.
using CommandRunner = std::function<int()>;
void AddProbeCommand(CLI::App& app, CommandRunner* run);
void AddCountCommand(CLI::App& app, CommandRunner* run);
void AddCompareCommand(CLI::App& app, CommandRunner* run);
void AddExplainCommand(CLI::App& app, CommandRunner* run);
void AddMergeCommand(CLI::App& app, CommandRunner* run);
void AddSelftestCommand(CLI::App& app, CommandRunner* run);
void AddHistoryCommand(CLI::App& app, CommandRunner* run);
void AddInitCommand(CLI::App& app, CommandRunner* run);
void AddAcceptCommand(CLI::App& app, CommandRunner* run);

/// Runs the parsed command: its exit code, or the exit code of the error it
/// threw (workgate::Error's own, 5 for any other), whose message goes to
/// standard error. Once an interruption has begun it never returns, whatever
/// the command did: the interruption exits with 128 + the signal
/// (launch/interrupt.h), also when its clean-up made the command fail.
int RunCommand(const CommandRunner& run);

/// Makes every option that takes a value refuse one that looks like an
/// option (`--json --suite x.toml`): CLI11 would take "--suite" as the file
/// name. Negative numbers pass. Call after the commands are added.
void RefuseOptionsAsValues(CLI::App& app);

}  // namespace workgate
