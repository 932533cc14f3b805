#include "cli/options.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>

#include "util/error.h"

namespace workgate {

void CounterArgs::Register(CLI::App* cmd) {
  cmd->add_option("--backend", backend, "auto, perf, callgrind or vgcount (default auto)")
      ->check(CLI::IsMember({"auto", "perf", "callgrind", "vgcount"}));
  cmd->add_option_function<std::string>(
      "--event",
      [this](const std::string& v) {
        events = v;
        event_given = true;
      },
      "perf events, libpfm4 names, comma-separated (default instructions:u)");
}

BackendChoice CounterArgs::Choose(const SystemInfo& info) const {
  BackendRequest request;
  ParseBackendRequest(backend, &request);
  BackendChoice choice = ChooseBackend(request, events, info);
  if (choice.backend.empty()) throw EnvironmentError("no usable counting backend: " + choice.reason);
  if (event_given && choice.backend != "perf") {
    throw UsageError(fmt::format(
        "--event {} needs the perf backend, but {} counts here ({})", events, choice.backend,
        choice.reason));
  }
  return choice;
}

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
    for (CLI::Option* option : sub->get_options([](CLI::Option* o) {
           return o->nonpositional() && o->get_type_size() > 0;
         })) {
      // transform() puts it before every other check (InRange among them),
      // so "--timeout --suite" says the value is missing, not out of range.
      option->transform(not_an_option);
    }
  }
}

void LaunchArgs::Register(CLI::App* cmd) {
  cmd->add_flag("--as-is", as_is,
                "Run the command as given: your environment, path, directory and ASLR");
  cmd->add_option("--env", env, "Add KEY=VALUE to the workload's environment");
  cmd->add_option("--pass-env", pass_env, "Pass KEY from workgate's environment");
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

ClockMode AdHocClock(const std::string& given, bool as_is) {
  ClockMode mode = as_is ? ClockMode::kNone : ClockMode::kShim;
  if (!given.empty()) ParseClockMode(given, &mode);
  return mode;
}

}  // namespace workgate
