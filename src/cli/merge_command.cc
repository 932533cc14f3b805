// `workgate merge`: the JSON reports of a sharded comparison's parts
// (`compare --shard I/N --json PART`) joined into one report, verdict and
// exit code, rendered as compare renders its own (decision/merge.h).

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "decision/merge.h"
#include "report/report_reader.h"
#include "util/error.h"

namespace workgate {

namespace {

struct MergeArgs {
  std::vector<std::string> parts;
  ReportArgs reports;
};

int RunMerge(const MergeArgs& args) {
  args.reports.Text();  // refuses two reports on standard output, before any work
  std::vector<InputPath> inputs;
  for (const std::string& part : args.parts) inputs.push_back({"the part", part});
  args.reports.Prepare({}, inputs);
  std::vector<ReportPart> parts;
  for (const std::string& path : args.parts) {
    std::string err;
    std::optional<CompareReport> report = LoadCompareReport(path, &err);
    // A part that cannot be read is missing evidence, as a stored baseline
    // that cannot be read is: invalid, never a pass.
    if (!report) throw Error(kExitInvalid, err);
    parts.push_back({path, std::move(*report)});
  }
  CompareReport merged;
  std::vector<std::string> missing;
  std::string err;
  if (!MergeShards(parts, &merged, &missing, &err)) {
    throw Error(kExitInvalid, "cannot merge: " + err);
  }
  for (const std::string& shard : missing) {
    fmt::print(stderr, "workgate merge: {}: its workloads are invalid\n", shard);
  }
  args.reports.Publish(merged);
  return merged.exit_code;
}

}  // namespace

void AddMergeCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Join the JSON reports of a sharded comparison into one report and verdict");
  cmd->add_option("parts", args->parts,
                  "The parts: compare --shard I/N --json outputs, one per shard")
      ->type_name("PART.json")
      ->required();
  args->reports.Register(cmd);
  cmd->footer(HelpFooter(
      {kExitPass, kExitWorkAdded, kExitUsage, kExitInvalid, kExitInconclusive, kExitEnvironment},
      {"workgate merge part1.json part2.json part3.json --markdown comment.md",
       "workgate merge parts/*.json --json - | jq .verdict"}));
  cmd->callback([args, run] { *run = [args] { return RunMerge(*args); }; });
}

}  // namespace workgate
