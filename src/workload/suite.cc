#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>

#include "util/input_file.h"
#include "util/sha256.h"
#include "workload/number_range.h"
#include "workload/score.h"
#include "workload/workload.h"

namespace workgate {

namespace {

std::string Where(const std::string& path, const toml::node& node) {
  return fmt::format("{}:{}", path, node.source().begin.line);
}

// Every suite error reads "FILE:LINE: workload 'NAME': key 'KEY': what".
class SuiteReader {
 public:
  SuiteReader(const std::string& path, std::string* err) : path_(path), err_(err) {}

  bool Fail(const toml::node& node, const std::string& context, const std::string& what) {
    *err_ = fmt::format("{}: {}{}", Where(path_, node), context, what);
    return false;
  }

  bool ReadWorkload(const toml::table& t, Workload* w) {
    const auto* name = t.get("name");
    if (name == nullptr) return Fail(t, "workload: ", "missing key 'name'");
    if (!name->is_string()) return Fail(*name, "workload: ", "key 'name' must be a string");
    w->name = name->value<std::string>().value();
    w->origin = Where(path_, t);
    const std::string ctx = fmt::format("workload '{}': ", w->name);
    if (!CheckKeys(t, ctx) || !ReadCommand(t, ctx, w) || !ReadEnv(t, ctx, w) ||
        !ReadClock(t, ctx, w)) {
      return false;
    }
    if (const auto* timeout = t.get("timeout")) {
      double seconds = 0;
      if (!ReadNumber(*timeout, ctx, "timeout", "seconds", kTimeoutSeconds, &seconds)) {
        return false;
      }
      w->timeout_seconds = seconds;
    }
    if (const auto* region = t.get("region")) {
      if (!region->is_boolean()) return Fail(*region, ctx, "key 'region' must be true or false");
      w->region = region->value<bool>().value();
    }
    if (const auto* leftover = t.get("allow_leftover")) {
      if (!leftover->is_boolean()) {
        return Fail(*leftover, ctx, "key 'allow_leftover' must be true or false");
      }
      w->allow_leftover = leftover->value<bool>().value();
    }
    if (const auto* margin = t.get("max_work_added")) {
      double percent = 0;
      if (!ReadNumber(*margin, ctx, "max_work_added", "percent", kMaxWorkAddedPercent, &percent)) {
        return false;
      }
      w->max_work_added_percent = percent;
    }
    if (const auto* metric = t.get("metric")) {
      if (!metric->is_string() || !ParseMetric(metric->value<std::string>().value(), &w->metric)) {
        return Fail(*metric, ctx,
                    "key 'metric' must be \"instructions\" or \"estimated-cycles\"");
      }
    }
    return ReadScore(t, ctx, w) && ReadAccepted(t, ctx, w);
  }

 private:
  bool CheckKeys(const toml::table& t, const std::string& ctx) {
    return CheckKnown(t, ctx, "",
                      {"name", "command", "env", "clock", "timeout", "region", "allow_leftover",
                       "score", "max_work_added", "metric", "accepted"});
  }

  // Every key of `t` is one of `known`; `prefix` names the table in the
  // message ("accepted.").
  bool CheckKnown(const toml::table& t, const std::string& ctx, const std::string& prefix,
                  const std::vector<std::string>& known) {
    for (const auto& [key, node] : t) {
      if (std::find(known.begin(), known.end(), std::string(key.str())) == known.end()) {
        return Fail(node, ctx,
                    fmt::format("key '{}{}' is not known (known: {})", prefix, key.str(),
                                fmt::join(known, ", ")));
      }
    }
    return true;
  }

  bool ReadCommand(const toml::table& t, const std::string& ctx, Workload* w) {
    const auto* command = t.get("command");
    if (command == nullptr) return Fail(t, ctx, "missing key 'command'");
    const auto* argv = command->as_array();
    if (argv == nullptr || argv->empty()) {
      return Fail(*command, ctx, "key 'command' must be a non-empty array of strings");
    }
    for (const auto& arg : *argv) {
      if (!arg.is_string()) return Fail(arg, ctx, "key 'command' must hold strings only");
      w->command.push_back(arg.value<std::string>().value());
    }
    if (!NamesTheBuild(w->command)) {
      return Fail(*command, ctx, "key 'command' must use {exe}, the build under test");
    }
    return true;
  }

  bool ReadEnv(const toml::table& t, const std::string& ctx, Workload* w) {
    const auto* env = t.get("env");
    if (env == nullptr) return true;
    const auto* table = env->as_table();
    if (table == nullptr) return Fail(*env, ctx, "key 'env' must be a table of strings");
    for (const auto& [key, value] : *table) {
      if (!value.is_string()) {
        return Fail(value, ctx, fmt::format("key 'env.{}' must be a string", key.str()));
      }
      w->env[std::string(key.str())] = value.value<std::string>().value();
    }
    return true;
  }

  bool ReadClock(const toml::table& t, const std::string& ctx, Workload* w) {
    const auto* clock = t.get("clock");
    if (clock == nullptr)
      return Fail(t, ctx, "missing key 'clock' (\"env\", \"shim\" or \"none\")");
    auto text = clock->value<std::string>();
    if (!clock->is_string()) return Fail(*clock, ctx, "key 'clock' must be a string");
    if (!ParseClockMode(*text, &w->clock)) {
      return Fail(*clock, ctx,
                  fmt::format("key 'clock' is '{}'; use \"env\", \"shim\" or "
                              "\"none\"",
                              *text));
    }
    return true;
  }

  // The one check of a numeric key: an integer or a float that `range`
  // contains. TOML spells nan and inf; neither is in any range, and the
  // message names the range the value missed.
  bool ReadNumber(const toml::node& node, const std::string& ctx, const char* key, const char* unit,
                  const NumberRange& range, double* out) {
    std::optional<double> v;
    if (auto i = node.value_exact<int64_t>()) {
      v = static_cast<double>(*i);  // rounds only far outside every range
    } else if (auto f = node.value_exact<double>()) {
      v = *f;
    }
    if (!v || !range.Contains(*v)) {
      std::string got;
      if (node.is_integer()) got = fmt::format(", not {}", *node.value_exact<int64_t>());
      if (node.is_floating_point()) got = fmt::format(", not {}", *node.value_exact<double>());
      return Fail(node, ctx,
                  fmt::format("key '{}' must be {} ({}){}", key, range.Describe(), unit, got));
    }
    *out = *v;
    return true;
  }

  bool ReadScore(const toml::table& t, const std::string& ctx, Workload* w) {
    const auto* score = t.get("score");
    if (score == nullptr) {
      if (w->clock != ClockMode::kNone) {
        return Fail(t, ctx, "missing table 'score' (pattern and expect): a pinned run must "
                            "print the score that shows it did the expected work");
      }
      return true;
    }
    const auto* table = score->as_table();
    if (table == nullptr) return Fail(*score, ctx, "key 'score' must be a table");
    for (const auto& [key, node] : *table) {
      if (key.str() != "pattern" && key.str() != "expect" && key.str() != "previous") {
        return Fail(node, ctx,
                    fmt::format("key 'score.{}' is not known (known: pattern, expect, previous)",
                                key.str()));
      }
    }
    const auto* pattern = table->get("pattern");
    const auto* expect = table->get("expect");
    if (pattern == nullptr) return Fail(*score, ctx, "missing key 'score.pattern'");
    if (expect == nullptr) return Fail(*score, ctx, "missing key 'score.expect'");
    if (!pattern->is_string()) return Fail(*pattern, ctx, "key 'score.pattern' must be a string");
    if (!expect->is_string()) {
      return Fail(*expect, ctx, "key 'score.expect' must be a string (write \"10.000\", so the "
                                "digits stay as written)");
    }
    std::string perr;
    if (!CheckScorePattern(pattern->value<std::string>().value(), &perr)) {
      return Fail(*pattern, ctx, "key 'score.pattern': " + perr);
    }
    w->score_pattern = pattern->value<std::string>();
    w->score_expect = expect->value<std::string>();
    return ReadPreviousScore(*table, ctx, w);
  }

  // score.previous: the score the baseline printed before a change that
  // alters it on purpose (docs/suites.md). A previous score equal to the
  // expected one would change nothing, and says the suite was edited wrong.
  bool ReadPreviousScore(const toml::table& score, const std::string& ctx, Workload* w) {
    const auto* previous = score.get("previous");
    if (previous == nullptr) return true;
    if (!previous->is_string()) {
      return Fail(*previous, ctx,
                  "key 'score.previous' must be a string (write \"10.000\", so "
                  "the digits stay as written)");
    }
    const std::string text = previous->value<std::string>().value();
    if (ScoresEqual(text, *w->score_expect)) {
      return Fail(*previous, ctx,
                  fmt::format("key 'score.previous' is '{}', the score 'score.expect' asserts "
                              "already; previous names the score the baseline printed before "
                              "this change, so it differs from expect",
                              text));
    }
    w->score_previous = text;
    return true;
  }

  // [workload.accepted], as `workgate accept` writes it (docs/suites.md).
  bool ReadAccepted(const toml::table& t, const std::string& ctx, Workload* w) {
    const auto* node = t.get("accepted");
    if (node == nullptr) return true;
    const auto* table = node->as_table();
    if (table == nullptr) return Fail(*node, ctx, "key 'accepted' must be a table");
    if (!CheckKnown(*table, ctx, "accepted.",
                    {"reason", "delta", "delta_percent", "baseline_count", "backend", "event",
                     "workload_digest", "baseline_sha256", "candidate_sha256"})) {
      return false;
    }
    AcceptedWork a;
    auto text = [&](const char* key, std::string* out) {
      const auto* v = table->get(key);
      if (v == nullptr) return Fail(*node, ctx, fmt::format("missing key 'accepted.{}'", key));
      if (!v->is_string()) return Fail(*v, ctx, fmt::format("key 'accepted.{}' must be a string", key));
      *out = v->value<std::string>().value();
      return true;
    };
    auto integer = [&](const char* key, int64_t lo, int64_t* out) {
      const auto* v = table->get(key);
      if (v == nullptr) return Fail(*node, ctx, fmt::format("missing key 'accepted.{}'", key));
      const auto i = v->value_exact<int64_t>();
      if (!i || *i < lo) {
        return Fail(*v, ctx, fmt::format("key 'accepted.{}' must be an integer of at least {}",
                                         key, lo));
      }
      *out = *i;
      return true;
    };
    int64_t baseline = 0;
    if (!(text("reason", &a.reason) && integer("delta", INT64_MIN, &a.delta) &&
          integer("baseline_count", 1, &baseline) && text("backend", &a.backend) &&
          text("event", &a.event) && text("workload_digest", &a.workload_digest) &&
          text("baseline_sha256", &a.baseline_sha256) &&
          text("candidate_sha256", &a.candidate_sha256))) {
      return false;
    }
    a.baseline_count = static_cast<uint64_t>(baseline);
    if (a.reason.find_first_not_of(" \t") == std::string::npos) {
      return Fail(*table->get("reason"), ctx, "key 'accepted.reason' must say why the work is intended");
    }
    // delta_percent is the delta for the reader; it must say what delta says.
    const auto* percent = table->get("delta_percent");
    if (percent == nullptr) return Fail(*node, ctx, "missing key 'accepted.delta_percent'");
    std::optional<double> p = percent->value_exact<double>();
    if (!p) {
      if (auto i = percent->value_exact<int64_t>()) p = static_cast<double>(*i);
    }
    const double expected = 100 * a.relative();
    if (!p || !(std::abs(*p - expected) <= 0.00005 + 1e-9 * std::abs(expected))) {
      return Fail(*percent, ctx,
                  fmt::format("key 'accepted.delta_percent' must be 100 * delta / "
                              "baseline_count, {:.4f}: edit delta, or run workgate accept again",
                              expected));
    }
    w->accepted = std::move(a);
    return true;
  }

  std::string path_;
  std::string* err_;
};

}  // namespace

const char* ClockModeName(ClockMode mode) {
  switch (mode) {
    case ClockMode::kNone: return "none";
    case ClockMode::kEnv: return "env";
    case ClockMode::kShim: return "shim";
  }
  return "?";
}

bool ParseClockMode(const std::string& text, ClockMode* mode) {
  for (ClockMode m : {ClockMode::kNone, ClockMode::kEnv, ClockMode::kShim}) {
    if (text == ClockModeName(m)) {
      *mode = m;
      return true;
    }
  }
  return false;
}

std::string Workload::Canonical() const {
  std::string text = fmt::format("name={}\nclock={}\ntimeout={}\nregion={}\n", name,
                                 ClockModeName(clock), timeout_seconds, region);
  for (const auto& arg : command) text += "arg=" + arg + "\n";
  for (const auto& [k, v] : env) text += "env=" + k + "=" + v + "\n";
  if (score_pattern) text += "pattern=" + *score_pattern + "\n";
  if (max_work_added_percent) text += fmt::format("max_work_added={}\n", *max_work_added_percent);
  // Only when set, so the digest of every workload without it stays as it was.
  if (allow_leftover) text += "allow_leftover=true\n";
  if (metric != Metric::kInstructions) text += fmt::format("metric={}\n", MetricName(metric));
  return text;
}

bool LoadSuite(const std::string& path, Suite* suite, std::string* err) {
  std::string text;
  if (!ReadInputFile(path, "the suite", kMaxSuiteBytes, &text, err)) return false;
  if (!ParseSuite(text, path, suite, err)) return false;
  suite->sha256 = Sha256Hex(text);
  std::error_code ec;
  suite->dir = std::filesystem::canonical(path, ec).parent_path().string();
  return true;
}

bool ParseSuite(std::string_view text, const std::string& path, Suite* suite, std::string* err) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    *err = fmt::format("{}:{}: {}", path, where.line, e.description());
    return false;
  }
  suite->path = path;
  for (const auto& [key, node] : root) {
    if (key.str() != "workload" && key.str() != "description") {
      *err = fmt::format("{}: key '{}' is not known at the top of a suite (known: description, "
                         "[[workload]])", Where(path, node), key.str());
      return false;
    }
  }
  const auto* list = root.get("workload");
  if (list == nullptr || !list->is_array_of_tables() || list->as_array()->empty()) {
    *err = fmt::format("{}: a suite needs at least one [[workload]] table", path);
    return false;
  }
  SuiteReader reader(path, err);
  std::set<std::string> names;
  for (const auto& node : *list->as_array()) {
    Workload w;
    if (!reader.ReadWorkload(*node.as_table(), &w)) return false;
    if (!names.insert(w.name).second) {
      return reader.Fail(node, "", fmt::format("workload name '{}' is used twice", w.name));
    }
    suite->workloads.push_back(std::move(w));
  }
  return true;
}

bool NamesTheBuild(const std::vector<std::string>& command) {
  return std::any_of(command.begin(), command.end(),
                     [](const std::string& arg) { return arg.find("{exe}") != std::string::npos; });
}

std::vector<std::string> AdHocCommand(const std::vector<std::string>& args) {
  std::vector<std::string> command;
  if (!NamesTheBuild(args)) command.push_back("{exe}");
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

bool CheckWorkloadName(const std::string& name, std::string* err) {
  constexpr size_t kMostBytes = 200;
  if (name.empty()) {
    *err = "a workload's name cannot be empty";
    return false;
  }
  if (name.size() > kMostBytes) {
    *err = fmt::format("a workload's name is at most {} bytes; this one has {}", kMostBytes,
                       name.size());
    return false;
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      *err = fmt::format("a workload's name cannot hold control characters (byte 0x{:02x})", c);
      return false;
    }
  }
  return true;
}

bool SelectWorkloads(Suite* suite, const std::vector<std::string>& names, std::string* err) {
  if (names.empty()) return true;
  std::vector<Workload> kept;
  for (const auto& w : suite->workloads) {
    for (const auto& n : names) {
      if (w.name == n) {
        kept.push_back(w);
        break;
      }
    }
  }
  for (const auto& n : names) {
    bool found = false;
    for (const auto& w : kept) found = found || w.name == n;
    if (!found) {
      // The names there are, so the user need not open the file to find the
      // right one: the first 20, and how many more.
      constexpr size_t kListed = 20;
      std::vector<std::string> there;
      for (size_t i = 0; i < suite->workloads.size() && i < kListed; ++i) {
        there.push_back("'" + suite->workloads[i].name + "'");
      }
      std::string more;
      if (suite->workloads.size() > kListed) {
        more = fmt::format(" and {} more", suite->workloads.size() - kListed);
      }
      *err = there.empty() ? fmt::format("{}: no workload named '{}' (it has none)", suite->path, n)
                           : fmt::format("{}: no workload named '{}'; its workloads are {}{}",
                                         suite->path, n, fmt::join(there, ", "), more);
      return false;
    }
  }
  suite->workloads = std::move(kept);
  return true;
}

}  // namespace workgate
