#include "cli/options.h"

#include <fmt/format.h>

#include <cctype>

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
      option->check(not_an_option);
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

}  // namespace workgate
