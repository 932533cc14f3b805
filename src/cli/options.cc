#include "cli/options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "model/backend.h"
#include "report/report_output.h"
#include "util/error.h"
#include "util/text.h"

namespace workgate {

CLI::Validator InRange(const NumberRange& range) {
  return CLI::Validator(
      [range](std::string& value) -> std::string {
        const char* begin = value.data();
        const char* end = begin + value.size();
        double number = 0;
        bool parsed = false;
        if (range.integer) {
          int64_t whole = 0;
          auto [stop, ec] = std::from_chars(begin, end, whole);
          parsed = ec == std::errc() && stop == end;
          number = static_cast<double>(whole);  // compared with range ends far below 2^53
          if (parsed && range.Contains(number)) {
            value = std::to_string(whole);
            return "";
          }
        } else {
          // General format: decimal or scientific; "nan" and "inf" parse, and
          // Contains refuses them. No hex and no leading '+', which strtod
          // would take differently.
          auto [stop, ec] = std::from_chars(begin, end, number);
          parsed = ec == std::errc() && stop == end;
          if (parsed && range.Contains(number)) return "";
        }
        return fmt::format("must be {}, not {}", range.Describe(), value);
      },
      range.Interval(), "range");
}

void RefuseOptionsAsValues(CLI::App& app) {
  CLI::Validator not_an_option(
      [](std::string& value) -> std::string {
        bool looks_like_option = value.size() > 1 && value[0] == '-' &&
                                 !std::isdigit(static_cast<unsigned char>(value[1])) &&
                                 value[1] != '.';
        if (!looks_like_option) return "";
        return fmt::format("needs a value, not the option {}", value);
      },
      "", "not an option");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    // A commit's subject (and accept's reason) is free text that may start
    // with a dash; CLI11
    // takes a separate argument that does for an option anyway, so only
    // --record-subject=-TEXT gives one, and that cannot be a mistake.
    for (CLI::Option* option : sub->get_options([](CLI::Option* o) {
           return o->nonpositional() && o->get_type_size() > 0 &&
                  o->get_name() != "--record-subject" && o->get_name() != "--reason";
         })) {
      // transform() puts it before every other check (InRange among them),
      // so "--timeout --suite" says the value is missing, not out of range.
      option->transform(not_an_option);
    }
  }
}

void AddJobs(CLI::App* cmd, int* jobs) {
  cmd->add_option("--jobs", *jobs, "Workloads counted at once [default: the cores]")
      ->type_name("N")
      ->transform(InRange(kJobsRange));
}

int JobsOrCores(int jobs) {
  return jobs > 0 ? jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

CLI::Option* AddWorkloadName(CLI::App* cmd, std::string* name, bool* given,
                             const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          "--name",
          [name, given](const std::string& v) {
            std::string err;
            if (!CheckWorkloadName(v, &err)) throw CLI::ValidationError("--name", err);
            *name = v;
            if (given != nullptr) *given = true;
          },
          help)
      ->type_name("NAME");
}

void AddSourceOptions(CLI::App* cmd, std::string* root, std::string* link, std::string* base) {
  cmd->add_option("--source-root", *root,
                  "The git checkout of the candidate's sources, whose commit gives the "
                  "explained lines their text [default: $GITHUB_WORKSPACE, $CI_PROJECT_DIR or "
                  "the current directory]")
      ->type_name("DIR");
  cmd->add_option("--source-link", *link,
                  "A line's address, with {path} and {line} (none: no links) [default: the "
                  "commit's page on GitHub or GitLab, from their CI variables]")
      ->type_name("URL");
  cmd->add_option("--source-base", *base,
                  "The commit the baseline was built from, so that the baseline's lines are "
                  "matched to where the candidate's source has them [default: by number]")
      ->type_name("REV");
}

void AddFlameGraphOptions(CLI::App* cmd, std::string* path, std::string* link) {
  cmd->add_option("--flamegraph", *path,
                  "Write the explained workloads' differential flame graph, an HTML page, to "
                  "FILE (-: stdout)")
      ->type_name("FILE");
  if (link == nullptr) return;
  cmd->add_option_function<std::string>(
         "--flamegraph-link",
         [link](const std::string& v) {
           if (!IsPlainHttpUrl(v)) {
             throw CLI::ValidationError(
                 "--flamegraph-link",
                 "not a plain http(s) URL: " + TerminalSafe(v, LineBreaks::kToSpace));
           }
           *link = v;
         },
         "Where the flame graph page will be kept (a CI run's artifacts), for the Markdown "
         "comment to link")
      ->type_name("URL");
}

SourceView SourceViewOf(const std::string& root, const std::string& link, const std::string& base) {
  SourceView view = MakeSourceView(root, link, base);
  if (!base.empty() && view.base.empty()) {
    fmt::print(stderr, "warning: --source-base: {}\n",
               TerminalSafe(view.note, LineBreaks::kToSpace));
  }
  return view;
}

CLI::Option* AddRepeatable(CLI::App* cmd, const std::string& name, std::vector<std::string>* into,
                           const std::string& type, const std::string& help) {
  // CLI11 lets a vector option take every value up to the next option, and
  // takes a `--` as the end of that list: `--env A=1 -- CMD -n` then fails
  // on `-n`, and `--env A=1 CMD` eats CMD.
  return cmd->add_option(name, *into, help)->type_name(type)->allow_extra_args(false);
}

CLI::Option* AddChoice(CLI::App* cmd, const std::string& name,
                       const std::vector<std::string>& names, const std::string& default_name,
                       const std::string& help, std::function<bool(const std::string&)> parse) {
  CLI::Option* option = cmd->add_option_function<std::string>(
      name,
      [name, parse](const std::string& value) {
        // CLI11 has admitted only `names`; one `parse` refuses is a mismatch
        // between the two lists, a bug.
        if (!parse(value)) throw CLI::ValidationError(name, "cannot take " + value);
      },
      help);
  // The metavariable is the option's name, as argparse writes it: BACKEND.
  std::string metavar;
  for (char c : name.substr(name.find_first_not_of('-'))) {
    metavar += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  option->check(CLI::IsMember(names))->type_name(metavar);
  if (!default_name.empty()) option->default_str(default_name);
  return option;
}

void CounterArgs::Register(CLI::App* cmd) {
  std::vector<std::string> backends = {"auto"};
  for (const BackendTraits& traits : kBackends) backends.emplace_back(traits.name);
  AddChoice(cmd, "--backend", backends, "auto",
            "How to count: auto picks perf where the PMU counts, else vgcount, else callgrind",
            [this](const std::string& v) { return ParseBackendRequest(v, &backend); });
  cmd->add_option_function<std::string>(
         "--event",
         [this](const std::string& v) {
           events = v;
           event_given = true;
         },
         "perf events, libpfm4 names, comma-separated")
      ->type_name("EVENTS")
      ->default_str(kDefaultPerfEvent);
}

BackendChoice CounterArgs::Choose(const SystemInfo& info) const {
  BackendChoice choice = ChooseBackend(backend, events, info);
  if (choice.backend.empty())
    throw EnvironmentError("no usable counting backend: " + choice.reason);
  if (event_given && !IsBackend(choice.backend, Backend::kPerf)) {
    throw UsageError(fmt::format("--event {} needs the perf backend, but {} counts here ({})",
                                 events, choice.backend, choice.reason));
  }
  return choice;
}

void LaunchArgs::Register(CLI::App* cmd) {
  cmd->add_flag("--as-is", as_is,
                "Run the command as given: your environment, path, directory and ASLR");
  AddRepeatable(cmd, "--env", &env, "KEY=VALUE", "Add KEY=VALUE to the workload's environment");
  AddRepeatable(cmd, "--pass-env", &pass_env, "KEY", "Pass KEY from workgate's environment");
}

LaunchOptions LaunchArgs::ToOptions() const {
  LaunchOptions options;
  options.as_is = as_is;
  for (const auto& kv : env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(fmt::format("--env {}: expected KEY=VALUE", kv));
    }
    options.extra_env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  options.pass_env = pass_env;
  return options;
}

void ClockArg::Register(CLI::App* cmd) {
  AddChoice(cmd, "--clock", {"shim", "env", "none"}, "",
            "Pin the clock and entropy of an ad hoc command: shim (LD_PRELOAD), env "
            "(WORKGATE_FIXED_CLOCK=1) or none [default: shim; none with --as-is]",
            [this](const std::string& v) {
              ClockMode mode;
              if (!ParseClockMode(v, &mode)) return false;
              given = mode;
              return true;
            });
}

ClockMode ClockArg::For(bool as_is) const {
  if (given) return *given;
  return as_is ? ClockMode::kNone : ClockMode::kShim;
}

void ColorArg::Register(CLI::App* cmd) {
  AddChoice(cmd, "--color", {"auto", "always", "never"}, "auto",
            "Colour the verdicts: auto (a terminal, and NO_COLOR unset), always or never",
            [this](const std::string& v) {
              when = v;
              return true;
            });
}

bool ColorArg::Colour(FILE* stream) const {
  if (when == "always") return true;
  if (when == "never") return false;
  // https://no-color.org: set and not empty.
  const char* no_color = getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  return isatty(fileno(stream)) != 0;
}

FILE* TextStream(std::initializer_list<std::pair<const char*, const std::string*>> reports) {
  const char* to_stdout = nullptr;
  for (const auto& [option, path] : reports) {
    if (!IsStandardOutput(*path)) continue;
    if (to_stdout != nullptr) {
      throw UsageError(fmt::format("{} - and {} -: only one report can go to standard output",
                                   to_stdout, option));
    }
    to_stdout = option;
  }
  return to_stdout != nullptr ? stderr : stdout;
}

namespace {

const char* ExitCodeMeaning(int code) {
  switch (code) {
    case kExitPass:
      return "pass";
    case kExitWorkAdded:
      return "work added beyond the margin";
    case kExitUsage:
      return "usage or suite error";
    case kExitInvalid:
      return "invalid: a run failed, a score did not match, builds incomparable";
    case kExitInconclusive:
      return "inconclusive: the counts are too noisy to decide";
    case kExitEnvironment:
      return "environment: nothing can count, a report cannot be written";
    default:
      return "";
  }
}

}  // namespace

std::string HelpFooter(std::initializer_list<int> codes,
                       std::initializer_list<const char*> examples) {
  std::string out = "Exit codes:\n";
  for (int code : codes) out += fmt::format("  {}    {}\n", code, ExitCodeMeaning(code));
  out += "  128+N interrupted by signal N (130: SIGINT, 143: SIGTERM): nothing reported\n";
  if (examples.size() > 0) {
    out += "\nExamples:\n";
    for (const char* example : examples) out += fmt::format("  {}\n", example);
  }
  return out;
}

}  // namespace workgate
