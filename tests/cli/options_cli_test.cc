// End-to-end tests of the command line itself: how options take their
// values, what --help states, where reports and text go, and what each
// option that changes a run really changes.

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli_fixture.h"
#include "launch/launch.h"
#include "report/report_reader.h"
#include "report/timed_json.h"
#include "stats/timed_context.h"
#include "test_paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::KnownLoop;
using testing::SourcePath;

const std::vector<std::string> kCommands = {"probe", "count",    "compare", "explain",
                                            "merge", "selftest", "accept"};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What a user needs to read from an option's entry in --help, whatever the
// CLI11 release formats it as ("--timeout SECONDS:(0, 604800]=600" in 2.3,
// "... [600]" in 2.4).
struct HelpOption {
  std::string name;        // "--timeout"
  std::string type;        // "SECONDS": what the value is
  std::string constraint;  // "(0, 604800]", "{auto,perf}", or "" for none
  std::string fallback;    // the default, or "" for none
};

// The option's entry: its own line and the description lines under it, up
// to the next option or section.
std::string HelpEntry(const std::string& help, const std::string& name) {
  const std::regex start("(^|\\n)  (-\\w,)?" + name + "( |\\n)");
  std::smatch found;
  if (!std::regex_search(help, found, start)) return "";
  std::string entry = help.substr(found.position(0) + found[1].length());
  const std::regex next("\\n(  -|\\S)");
  std::smatch end;
  if (std::regex_search(entry, end, next)) entry.resize(end.position(0));
  return entry;
}

// Checks one option's entry; failures name the option and show the entry.
void ExpectHelpOption(const std::string& help, const HelpOption& option) {
  std::string entry = HelpEntry(help, option.name);
  ASSERT_FALSE(entry.empty()) << option.name << " is not in\n" << help;
  EXPECT_TRUE(Contains(entry, option.name + " " + option.type)) << entry;
  EXPECT_TRUE(Contains(entry, option.constraint)) << entry;
  // What is left once the name, type and constraint are taken out must
  // hold the default as a word of its own, and a description.
  std::string rest = entry;
  for (const std::string& known : {option.name + " " + option.type, option.constraint}) {
    if (!known.empty()) rest.erase(rest.find(known), known.size());
  }
  if (!option.fallback.empty()) {
    std::string words = rest;
    for (char& c : words) {
      if (c == '=' || c == '[' || c == ']') c = ' ';
    }
    std::istringstream in(words);
    bool found = false;
    for (std::string word; in >> word;) found = found || word == option.fallback;
    EXPECT_TRUE(found) << "default " << option.fallback << " in\n" << entry;
  }
  const std::regex description("[A-Za-z]{3,}[ ,;]+[A-Za-z]{2,}");
  EXPECT_TRUE(std::regex_search(rest, description)) << "no description in\n" << entry;
}

TEST_F(CliTest, EveryHelpNamesTypesDefaultsExitCodesAndExamples) {
  for (const std::string& command : kCommands) {
    LaunchResult help = Run({command, "--help"});
    ASSERT_EQ(help.exit_code, 0) << command << ": " << help.err;
    // CLI11's TEXT says nothing; every value is named for what it is.
    EXPECT_FALSE(Contains(help.out, " TEXT")) << command << ":\n" << help.out;
    EXPECT_TRUE(Contains(help.out, "Exit codes:\n  0    pass\n")) << command << ":\n" << help.out;
    EXPECT_TRUE(Contains(help.out, "\nExamples:\n  workgate " + command)) << help.out;
  }
  const std::string count = Run({"count", "--help"}).out;
  for (const HelpOption& option : std::vector<HelpOption>{
           {"--timeout", "SECONDS", "(0, 604800]", "600"},
           {"--repeat", "N", "[1, 1000]", "1"},
           {"--json", "FILE", "", ""},
           {"--env", "KEY=VALUE", "", ""},
           {"--pass-env", "KEY", "", ""},
           {"--exe", "EXE", "", ""},
           {"--suite", "FILE", "", ""},
           {"--workload", "NAME", "", ""},
           {"--backend", "BACKEND", "{auto,perf,callgrind,vgcount}", "auto"},
           {"--event", "EVENTS", "", "instructions:u"},
           {"--record-subject", "SUBJECT", "", ""},
       }) {
    ExpectHelpOption(count, option);
  }
  const std::string compare = Run({"compare", "--help"}).out;
  for (const HelpOption& option : std::vector<HelpOption>{
           {"--timed", "N", "[0, 1000]", "1"},
           {"--timeout", "SECONDS", "(0, 604800]", "600"},
           {"--max-work-added", "PERCENT", "[0, 1000]", "1"},
           {"--explain-top", "N", "[1, 1000]", "10"},
           {"--max-repeat", "N", "[1, 1000]", "10"},
           {"--seed", "N", "[0, 4294967295]", "20261129"},
           {"--stability", "STABILITY", "{auto,always,never}", "auto"},
           {"--color", "COLOR", "{auto,always,never}", "auto"},
           {"--baseline", "EXE", "", ""},
           {"--candidate", "EXE", "", ""},
           {"--markdown", "FILE", "", ""},
           {"--baseline-results", "FILE", "", ""},
           {"--record-subject", "SUBJECT", "", ""},
       }) {
    ExpectHelpOption(compare, option);
  }
  for (const char* code : {"  1    work added beyond the margin", "  4    inconclusive"}) {
    EXPECT_TRUE(Contains(compare, code)) << code << " in\n" << compare;
  }
  // The top-level help points to the commands' and lists the codes.
  LaunchResult top = Run({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_TRUE(Contains(top.out, "Exit codes: 0 pass, 1 work added")) << top.out;
}

TEST_F(CliTest, EveryChoiceAnOptionListsIsOneItTakes) {
  // The names in --help are CLI11's check; what the command then does with
  // the name is a second list. Options are read before --help acts, so a
  // name the second list lacks fails here.
  const std::vector<std::pair<std::string, std::vector<std::string>>> choices = {
      {"--backend", {"auto", "perf", "callgrind", "vgcount"}},
      {"--clock", {"shim", "env", "none"}},
      {"--stability", {"auto", "always", "never"}},
      {"--color", {"auto", "always", "never"}},
  };
  for (const auto& [option, names] : choices) {
    for (const std::string& name : names) {
      LaunchResult r = Run({"compare", option, name, "--help"});
      EXPECT_EQ(r.exit_code, 0) << option << " " << name << ": " << r.err;
    }
    LaunchResult bad = Run({"compare", option, "bogus", "--help"});
    EXPECT_EQ(bad.exit_code, 2) << option;
    EXPECT_TRUE(Contains(bad.err, option)) << bad.err;
  }
  // The explain table's size is --explain-top everywhere.
  LaunchResult top =
      Run({"explain", "--top", "3", "--baseline", kKnownWorkA, "--candidate", kKnownWorkA,
           "--suite", SourcePath("tests/cli/testdata/known_work.toml")});
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_TRUE(Contains(top.err, "--top")) << top.err;
  // probe --json takes a file, as every other --json does.
  LaunchResult probe = Run({"probe", "--json"});
  EXPECT_EQ(probe.exit_code, 2);
  EXPECT_TRUE(Contains(probe.err, "--json")) << probe.err;
}

TEST_F(CliTest, OnlyOneReportCanHaveStandardOutput) {
  LaunchResult r = Run({"compare", "--baseline", kKnownWorkA, "--candidate", kKnownWorkA, "--json",
                        "-", "--markdown", "-", "--", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err,
                       "--json - and --markdown -: only one report can go to standard "
                       "output"))
      << r.err;
}

TEST_F(CliTest, AnOptionAfterTheCommandIsTheCommandsWithAHint) {
  // Without --, CLI11 reads -n as workgate's; the message says where it goes.
  LaunchResult r = Run({"count", "/bin/echo", "-n", "hi"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "not expected: -n")) << r.err;
  EXPECT_TRUE(Contains(r.err,
                       "workgate count has no option -n; workgate count --help lists its "
                       "options.\n"))
      << r.err;
  EXPECT_TRUE(Contains(r.err,
                       "If -n is the program's own, it goes after --: workgate count "
                       "[OPTIONS] -- CMD -n\n"))
      << r.err;
}

TEST_F(CliTest, AnotherCommandsOptionIsNamedAsTheirsWithoutTheCommandHint) {
  // count --suite takes no program, so the -- hint would mislead; --timed is
  // compare's.
  LaunchResult r = Run({"count", "--suite", "s.toml", "--exe", "/bin/true", "--timed", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "workgate count has no option --timed")) << r.err;
  EXPECT_TRUE(Contains(r.err, "--timed is an option of workgate compare.\n")) << r.err;
  EXPECT_FALSE(Contains(r.err, "goes after --")) << r.err;
  // The form --opt=VALUE is named by its option.
  LaunchResult eq = Run({"probe", "--timed=3"});
  EXPECT_EQ(eq.exit_code, 2);
  EXPECT_TRUE(Contains(eq.err, "workgate probe has no option --timed;")) << eq.err;
  EXPECT_FALSE(Contains(eq.err, "goes after --")) << eq.err;
}

TEST_F(CountingCliTest, RepeatableOptionsStopAtTheCommand) {
  // --env takes one value each time: `--` then starts the command, whose own
  // options are its own, and a command right after a value is the command.
  LaunchResult dash = Run({"count", "--backend", kExactBackend, "--env", "A=1", "--env", "B=2",
                           "--", "/bin/sh", "-c", "echo \"A=$A B=$B\"", "-n"});
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_TRUE(Contains(dash.out, "A=1 B=2\n")) << dash.out;
  LaunchResult plain =
      Run({"count", "--backend", kExactBackend, "--env", "A=1", "/bin/echo", "the-command-ran"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(Contains(plain.out, "the-command-ran\n")) << plain.out;
  // The same for --workload: the second name is a second workload.
  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  LaunchResult two =
      Run({"count", "--backend", kExactBackend, "--suite", suite, "--exe", kKnownWorkA,
           "--workload", "work", "--workload", "work-other-size", "--json", "w.json"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(ReadJson("w.json")["workloads"].size(), 2u);
}

TEST_F(CountingCliTest, EnvAndPassEnvReachTheWorkloadAndNothingElseDoes) {
  auto env = MinimalEnvironment(dir_.path());
  env["WG_PASSED"] = "passed";
  env["WG_NOT_PASSED"] = "leaked";
  const std::vector<std::string> show = {"--", "/bin/sh", "-c",
                                         "echo \"[$WG_SET|$WG_PASSED|$WG_NOT_PASSED]\""};
  std::vector<std::string> args = {"count",      "--backend",  kExactBackend, "--env",
                                   "WG_SET=set", "--pass-env", "WG_PASSED"};
  args.insert(args.end(), show.begin(), show.end());
  LaunchResult r = Run(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "[set|passed|]\n")) << r.out;
  // Without them the workload sees none of the three.
  args = {"count", "--backend", kExactBackend};
  args.insert(args.end(), show.begin(), show.end());
  r = Run(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "[||]\n")) << r.out;
  // An --env that is no KEY=VALUE is a usage error.
  EXPECT_EQ(Run({"count", "--env", "NOEQUALS", "--", "/bin/true"}).exit_code, 2);
}

TEST_F(CountingCliTest, QuietKeepsTheCommandsOutputOut) {
  const std::vector<std::string> cmd = {"--", "/bin/sh", "-c",
                                        "echo marker-out; echo marker-err >&2"};
  std::vector<std::string> loud = {"count", "--backend", kExactBackend};
  loud.insert(loud.end(), cmd.begin(), cmd.end());
  LaunchResult r = Run(loud);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "marker-out")) << r.out;
  EXPECT_TRUE(Contains(r.err, "marker-err")) << r.err;
  std::vector<std::string> quiet = {"count", "--backend", kExactBackend, "--quiet"};
  quiet.insert(quiet.end(), cmd.begin(), cmd.end());
  r = Run(quiet);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Contains(r.out + r.err, "marker")) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "run 1/1: ")) << r.out;  // the count itself is still printed
}

TEST_F(CountingCliTest, JsonToStandardOutputLeavesItThereAlone) {
  LaunchResult probe = Run({"probe", "--json", "-"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_EQ(nlohmann::json::parse(probe.out)["schema_version"], 1);
  EXPECT_TRUE(Contains(probe.err, "backend     auto chooses")) << probe.err;
  // count: the command's own output and workgate's lines go to stderr.
  LaunchResult count = Run({"count", "--backend", kExactBackend, "--json", "-", "--", "/bin/echo",
                            "the command's output"});
  ASSERT_EQ(count.exit_code, 0) << count.err;
  EXPECT_GT(nlohmann::json::parse(count.out)["min"].get<uint64_t>(), 0u) << count.out;
  EXPECT_TRUE(Contains(count.err, "the command's output")) << count.err;
  EXPECT_TRUE(Contains(count.err, "counted with " + kExactBackend)) << count.err;
  // compare: the table goes to stderr, the Markdown comment has stdout.
  LaunchResult md =
      Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkB, "--timed", "0", "--markdown", "-", "--", "1000"});
  EXPECT_EQ(md.exit_code, 1) << md.err;
  EXPECT_EQ(md.out.rfind("### workgate: ", 0), 0u) << md.out;
  EXPECT_TRUE(Contains(md.err, "work-added")) << md.err;
}

// Where stderr is no terminal (a CI log), a gate that takes a while says
// every WORKGATE_PROGRESS_SECONDS what it is doing; 0 turns the lines off,
// and a value that is no number is named. (The default, 30 s, is not held
// to here: a loaded machine can take that long over this gate.)
TEST_F(CountingCliTest, ALongGateSaysWhatItIsDoingInACiLog) {
  auto run = [&](const std::string& seconds) {
    auto env = MinimalEnvironment(dir_.path());
    if (!seconds.empty()) env["WORKGATE_PROGRESS_SECONDS"] = seconds;
    LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", "/bin/sh",
                          "--candidate", "/bin/sh", "--timed", "0", "--no-store", "--name",
                          "nap", "--", "{exe}", "-c", "sleep 1.5"},
                         env);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return r.err;
  };
  const std::string every_second = run("1");
  EXPECT_NE(every_second.find("workgate: 0/1 workloads done; nap  baseline  counting (at work for "),
            std::string::npos)
      << every_second;
  EXPECT_NE(every_second.find("workgate: 0/1 workloads done; nap  candidate  counting  ("),
            std::string::npos)
      << every_second;
  EXPECT_EQ(run("0").find("(at work for"), std::string::npos);
  const std::string bad = run("soon");
  EXPECT_NE(bad.find("workgate: warning: WORKGATE_PROGRESS_SECONDS=soon is not a whole number "
                     "of seconds from 0 to 86400; progress lines come every 30 s"),
            std::string::npos)
      << bad;
}

// workgate with its standard streams on a pseudo-terminal 200 columns wide,
// as at a user's terminal: all it wrote there, and its exit status.
std::string RunOnTerminal(const std::vector<std::string>& args, const std::string& cwd,
                          const std::map<std::string, std::string>& env, int* exit_code) {
  std::vector<std::string> argv = {testing::WorkgateBin()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs;
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  for (auto& e : envs) cenv.push_back(e.data());
  cargv.push_back(nullptr);
  cenv.push_back(nullptr);
  struct winsize size {};
  size.ws_col = 200;
  size.ws_row = 50;
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &size);
  if (pid == 0) {
    if (chdir(cwd.c_str()) == 0) execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  EXPECT_GT(pid, 0);
  std::string out;
  char buffer[4096];
  for (;;) {
    struct pollfd p = {master, POLLIN, 0};
    if (poll(&p, 1, 240000) <= 0) break;  // a test's whole time: it hangs
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO: the terminal's last holder has gone
    out.append(buffer, static_cast<size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// At a terminal, a suite's count and gate keep each finished workload on a
// line of its own under one status line that says how many are done, what
// runs and about how long the rest will take.
TEST_F(CountingCliTest, AtATerminalEachFinishedWorkloadStaysAndTheStatusSaysWhatIsLeft) {
  std::ofstream suite(Path("two.toml"));
  for (const char* n : {"1000", "2000"}) {
    suite << "[[workload]]\nname = \"w" << n << "\"\ncommand = [\"{exe}\", \"" << n
          << "\"]\nclock = \"env\"\n[workload.score]\npattern = 'score: ([0-9]+)'\nexpect = \"" << n
          << "\"\n";
  }
  suite.close();
  const auto env = MinimalEnvironment(dir_.path());
  int code = -1;
  const std::string gate =
      RunOnTerminal({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                     "--candidate", kKnownWorkB, "--suite", Path("two.toml"), "--jobs", "1",
                     "--timed", "0", "--no-store", "--explain", "never"},
                    dir_.path(), env, &code);
  EXPECT_EQ(code, 1) << gate;
  EXPECT_NE(gate.find("\r\x1b[K0/2 workloads done; w1000  baseline  counting"), std::string::npos)
      << gate;
  // The first one decided stays, then the status goes on with an estimate.
  const size_t kept = gate.find("\r\x1b[Kw1000  work-added  +");
  ASSERT_NE(kept, std::string::npos) << gate;
  const size_t next = gate.find("1/2 workloads done; w2000  baseline  counting; about ", kept);
  EXPECT_NE(next, std::string::npos) << gate;
  EXPECT_NE(gate.find("w2000  work-added  +", next), std::string::npos) << gate;

  const std::string count =
      RunOnTerminal({"count", "--backend", kExactBackend, "--suite", Path("two.toml"), "--exe",
                     kKnownWorkA, "--jobs", "1", "--no-store"},
                    dir_.path(), env, &code);
  EXPECT_EQ(code, 0) << count;
  EXPECT_NE(count.find("0/2 workloads done; w1000  counting"), std::string::npos) << count;
  const size_t first = count.find("\r\x1b[Kw1000");
  ASSERT_NE(first, std::string::npos) << count;
  EXPECT_NE(count.find("1/2 workloads done; w2000  counting; about ", first), std::string::npos)
      << count;
  // The status line is cleared before the count's closing text.
  const size_t last = count.rfind("2/2 workloads done");
  ASSERT_NE(last, std::string::npos) << count;
  EXPECT_EQ(count.find("\r\x1b[Kcounted with ", last),
            last + std::string("2/2 workloads done").size())
      << count;
}

// Two gates of different builds of one workload, started together in one
// directory, run side by side, each in its own private directory at the
// workload's one path: the first run of each waits until the other's has
// started, so gates that took turns would not meet, and the runs see the
// same path. (Where the runs cannot bind a directory, the gates take turns:
// WorkDirLockTest.)
TEST_F(CountingCliTest, TwoGatesOfOneWorkloadRunSideBySideAtOnePath) {
  if (!BindableInRuns("/tmp/workgate-" + std::to_string(getuid()) + "/w")) {
    GTEST_SKIP() << "the runs here do not get /tmp fresh (no PID namespace, or a shared /tmp)";
  }
  const std::string meet = Path("meet");
  std::filesystem::create_directory(meet);
  std::filesystem::copy_file("/bin/sh", Path("sh-copy"));
  std::filesystem::permissions(Path("sh-copy"), std::filesystem::perms::owner_all);
  // Each run takes the next number in TMPDIR (its pid and its entropy are
  // the same in every run); the first waits, at most a minute, for the
  // second, and fails without it.
  const std::string script =
      "n=1; until mkdir $TMPDIR/$n 2>/dev/null; do n=$((n+1)); done; i=0; "
      "while [ ! -d $TMPDIR/2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "
      "[ -d $TMPDIR/2 ]";
  auto gate = [&](const std::string& candidate, const std::string& json, LaunchResult* out) {
    *out = Run({"compare", "--backend", kExactBackend, "--baseline", "/bin/sh", "--candidate",
                candidate, "--timed", "0", "--no-store", "--stability", "never", "--explain",
                "never", "--events", "never", "--env", "TMPDIR=" + meet, "--json", json,
                "--name", "meet", "--", "{exe}", "-c", script});
  };
  LaunchResult one, two;
  std::thread first([&] { gate(Path("sh-copy"), "one.json", &one); });
  std::thread second([&] { gate("/bin/sh", "two.json", &two); });
  first.join();
  second.join();
  for (const auto& [name, r] : {std::pair{"one", &one}, {"two", &two}}) {
    EXPECT_EQ(r->err.find("waiting for another workgate"), std::string::npos) << name << r->err;
    EXPECT_NE(r->exit_code, 3) << name << ": " << r->out << r->err;
    const nlohmann::json j = ReadJson(std::string(name) + ".json");
    ASSERT_EQ(j["workloads"].size(), 1u) << j.dump();
    // Both sides, of both gates, ran at the workload's one path.
    const std::regex one_path("/tmp/workgate-" + std::to_string(getuid()) + "/w[0-9a-f]{16}/exe");
    for (const char* side : {"baseline", "candidate"}) {
      const std::string argv0 = j["workloads"][0][side]["fingerprint"]["argv"][0];
      EXPECT_TRUE(std::regex_match(argv0, one_path)) << name << " " << side << ": " << argv0;
    }
  }
  EXPECT_EQ(ReadJson("one.json")["workloads"][0]["baseline"]["fingerprint"]["argv"][0],
            ReadJson("two.json")["workloads"][0]["baseline"]["fingerprint"]["argv"][0]);
}

TEST_F(CountingCliTest, ColorIsAutoAlwaysOrNever) {
  const std::vector<std::string> compare = {"compare",    "--backend", kExactBackend,
                                            "--baseline", kKnownWorkA, "--candidate",
                                            kKnownWorkB,  "--timed",   "0"};
  auto run = [&](const std::string& when, std::map<std::string, std::string> env = {}) {
    std::vector<std::string> args = compare;
    if (!when.empty()) args.insert(args.end(), {"--color", when});
    args.insert(args.end(), {"--", "1000"});
    LaunchResult r = Run(args, env);
    EXPECT_EQ(r.exit_code, 1) << when << ": " << r.err;
    return r.out;
  };
  // The test's stdout is a pipe: auto (the default) is no colour.
  EXPECT_FALSE(Contains(run(""), "\x1b[")) << run("");
  EXPECT_FALSE(Contains(run("never"), "\x1b["));
  const std::string always = run("always");
  EXPECT_TRUE(Contains(always, "\x1b[")) << always;
  // NO_COLOR turns auto off; an explicit always still colours.
  auto env = MinimalEnvironment(dir_.path());
  env["NO_COLOR"] = "1";
  EXPECT_TRUE(Contains(run("always", env), "\x1b["));
}

TEST_F(CountingCliTest, GithubAppendsTheCommentToTheStepSummary) {
  auto env = MinimalEnvironment(dir_.path());
  env["GITHUB_STEP_SUMMARY"] = Path("summary.md");
  std::ofstream(Path("summary.md")) << "earlier step\n";
  const std::vector<std::string> args = {"compare",   "--backend",   kExactBackend, "--baseline",
                                         kKnownWorkA, "--candidate", kKnownWorkB,   "--timed",
                                         "0",         "--github",    "--",          "1000"};
  for (int run = 1; run <= 2; ++run) {
    const LaunchResult r = Run(args, env);
    EXPECT_EQ(r.exit_code, 1) << "run " << run << ": " << r.err;
  }
  auto summary = ReadFile(Path("summary.md"));
  ASSERT_TRUE(summary.has_value());
  // Appended each time, after what an earlier step wrote.
  EXPECT_EQ(summary->rfind("earlier step\n### workgate: ❌ work added", 0), 0u) << *summary;
  size_t comments = 0;
  for (size_t at = summary->find("### workgate: "); at != std::string::npos;
       at = summary->find("### workgate: ", at + 1)) {
    ++comments;
  }
  EXPECT_EQ(comments, 2u) << *summary;
  // Outside GitHub Actions: a warning, and the verdict is unchanged.
  LaunchResult bare = Run(args);
  EXPECT_EQ(bare.exit_code, 1);
  EXPECT_TRUE(Contains(bare.err, "--github given but GITHUB_STEP_SUMMARY is not set")) << bare.err;
}

TEST_F(CountingCliTest, ExplainTopBoundsTheRows) {
  const std::string suite = SourcePath("workloads/interp.toml");
  const std::string base = BuildPath("workloads/wgi-baseline");
  const std::string cand = BuildPath("workloads/wgi-candidate");
  auto rows = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"compare", "--backend",   kExactBackend, "--baseline",
                                     base,      "--candidate", cand,          "--suite",
                                     suite,     "--workload",  "interp/fib",  "--timed",
                                     "0",       "--json",      "top.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    LaunchResult r = Run(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    return ReadJson("top.json")["workloads"][0]["explanation"];
  };
  const nlohmann::json all = rows({});
  ASSERT_GE(all["rows"].size(), 2u) << all.dump();
  const nlohmann::json top = rows({"--explain-top", "1"});
  ASSERT_EQ(top["rows"].size(), 1u) << top.dump();
  // The one row kept is the largest; the total is the whole delta either way.
  EXPECT_EQ(top["rows"][0], all["rows"][0]);
  EXPECT_EQ(top["total_delta"], all["total_delta"]);
}

TEST_F(CountingCliTest, TheTimedContextIsRedoneFromTheSamplesAndTheSeed) {
  for (const std::string seed : {"1", "4294967295"}) {
    LaunchResult r =
        Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
             kKnownWorkA, "--timed", "6", "--seed", seed, "--json", "t.json", "--", "1000"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = ReadJson("t.json");
    EXPECT_EQ(j["timed_seed"].get<uint64_t>(), std::stoull(seed));
    ASSERT_TRUE(j["workloads"][0]["timed"].is_object()) << j["workloads"][0].dump();
    // The report read back, its timed context decided again from its
    // samples and seed alone, says the same to the last digit.
    std::string err;
    std::optional<CompareReport> report = ParseCompareReport(j.dump(), "t.json", &err);
    ASSERT_TRUE(report) << err;
    CompareReport redone = *report;
    for (WorkloadResult& w : redone.workloads) w.timed_stats.reset();
    DecideTimedContext(&redone.workloads, redone.timed_seed);
    ASSERT_TRUE(redone.workloads[0].timed_stats);
    EXPECT_EQ(TimedStatsToJson(redone.workloads[0].timed_stats), j["workloads"][0]["timed"]);
  }
}

TEST_F(CountingCliTest, JobsCountsSeveralWorkloadsAtOnceWithTheSameCounts) {
  // Two workloads that can finish only together: each marks its arrival and
  // waits (up to 60 s) for the other's mark, in their TMPDIR (a directory
  // that exists: the one every run shares). Counted one at a time, the
  // first would wait for nothing; with --jobs 2 both baseline runs meet, and
  // the candidate runs find the marks already there.
  const std::string meet = Path("meet");
  std::filesystem::create_directory(meet);
  auto workload = [&meet](const std::string& self, const std::string& other) {
    return "[[workload]]\nname = \"" + self + "\"\ncommand = [\"{exe}\", \"-c\", \"touch $TMPDIR/" +
           self + "; i=0; while [ ! -e $TMPDIR/" + other +
           " ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; [ -e $TMPDIR/" + other +
           " ] && echo met\"]\nclock = \"none\"\ntimeout = 120\nenv = { TMPDIR = '" + meet +
           "' }\n[workload.score]\npattern = '(met)'\nexpect = \"met\"\n";
  };
  std::ofstream(Path("meet.toml")) << workload("left", "right") << workload("right", "left");
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", "/bin/sh",
                        "--candidate", "/bin/sh", "--suite", Path("meet.toml"), "--jobs", "2",
                        "--stability", "never", "--timed", "0", "--json", "meet.json"});
  EXPECT_NE(r.exit_code, 3) << r.out << r.err;
  const nlohmann::json met = ReadJson("meet.json");
  ASSERT_EQ(met["workloads"].size(), 2u) << met.dump();
  for (const auto& w : met["workloads"]) {
    EXPECT_EQ(w["baseline"]["score"], "met") << w.dump();
    EXPECT_EQ(w["candidate"]["score"], "met") << w.dump();
  }

  // Concurrent counts equal serial ones, workload by workload, exactly.
  const std::string several = Path("several.toml");
  std::ofstream out(several);
  for (const char* n : {"1000", "2000", "3000", "4000"}) {
    out << "[[workload]]\nname = \"w" << n << "\"\ncommand = [\"{exe}\", \"" << n
        << "\"]\nclock = \"env\"\n[workload.score]\npattern = 'score: ([0-9]+)'\nexpect = \"" << n
        << "\"\n";
  }
  out.close();
  std::map<std::string, nlohmann::json> by_jobs;
  for (const std::string jobs : {"1", "4"}) {
    LaunchResult c = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                          "--candidate", kKnownWorkB, "--suite", several, "--jobs", jobs, "--timed",
                          "0", "--json", "j" + jobs + ".json"});
    EXPECT_EQ(c.exit_code, 1) << jobs << ": " << c.err;
    by_jobs[jobs] = ReadJson("j" + jobs + ".json");
    ASSERT_EQ(by_jobs[jobs]["workloads"].size(), 4u);
  }
  for (size_t i = 0; i < 4; ++i) {
    const auto& serial = by_jobs["1"]["workloads"][i];
    const auto& parallel = by_jobs["4"]["workloads"][i];
    EXPECT_EQ(serial["name"], parallel["name"]);
    EXPECT_EQ(serial["baseline"]["instructions"], parallel["baseline"]["instructions"]);
    EXPECT_EQ(serial["candidate"]["instructions"], parallel["candidate"]["instructions"]);
    EXPECT_EQ(parallel["delta"], 1000000) << parallel.dump();  // known_work: 2 x 500,000
  }

  // count too: the two that can finish only together meet under --jobs 2,
  // and a suite's counts are the same, and printed in suite order, whatever
  // finishes first. The compares' marks go first.
  std::filesystem::remove_all(meet);
  std::filesystem::create_directory(meet);
  LaunchResult counted = Run({"count", "--backend", kExactBackend, "--exe", "/bin/sh", "--suite",
                              Path("meet.toml"), "--jobs", "2", "--no-store", "--json",
                              "cmeet.json"});
  EXPECT_EQ(counted.exit_code, 0) << counted.out << counted.err;
  const nlohmann::json cmet = ReadJson("cmeet.json");
  ASSERT_EQ(cmet["workloads"].size(), 2u) << cmet.dump();
  EXPECT_EQ(cmet["workloads"][0]["name"], "left");
  for (const auto& w : cmet["workloads"]) EXPECT_EQ(w["score"], "met") << w.dump();
  std::map<std::string, nlohmann::json> count_by_jobs;
  for (const std::string jobs : {"1", "4"}) {
    LaunchResult c = Run({"count", "--backend", kExactBackend, "--exe", kKnownWorkA, "--suite",
                          several, "--jobs", jobs, "--no-store", "--json", "c" + jobs + ".json"});
    EXPECT_EQ(c.exit_code, 0) << jobs << ": " << c.err;
    count_by_jobs[jobs] = ReadJson("c" + jobs + ".json");
    ASSERT_EQ(count_by_jobs[jobs]["workloads"].size(), 4u);
    size_t at = 0;  // the text lists them in suite order
    for (const char* n : {"w1000", "w2000", "w3000", "w4000"}) {
      at = c.out.find(n, at);
      EXPECT_NE(at, std::string::npos) << n << " out of order:\n" << c.out;
    }
  }
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(count_by_jobs["1"]["workloads"][i]["name"], count_by_jobs["4"]["workloads"][i]["name"]);
    EXPECT_EQ(count_by_jobs["1"]["workloads"][i]["instructions"],
              count_by_jobs["4"]["workloads"][i]["instructions"]);
  }
}

TEST_F(CountingCliTest, ASuitesShimClockIsWhatTheWorkloadReads) {
  // date(1) prints the shim's first time, 2020-01-01T00:00:00Z
  // (src/shim/shim_config.c), on every pinned run; unpinned, today's.
  auto suite = [this](const std::string& clock) {
    const std::string path = Path(clock + ".toml");
    std::ofstream(path) << "[[workload]]\nname = \"date\"\ncommand = [\"{exe}\", \"+%s\"]\n"
                           "clock = \""
                        << clock
                        << "\"\n[workload.score]\n"
                           "pattern = '^([0-9]+)$'\nexpect = \"1577836800\"\n";
    return path;
  };
  const std::string date = SearchPath("date", "/usr/bin:/bin");
  ASSERT_FALSE(date.empty());
  LaunchResult shim = Run({"count", "--backend", kExactBackend, "--suite", suite("shim"), "--exe",
                           date, "--json", "shim.json"});
  EXPECT_EQ(shim.exit_code, 0) << shim.out << shim.err;
  EXPECT_EQ(ReadJson("shim.json")["workloads"][0]["score"], "1577836800");
  // Without the shim, callgrind lets date read today's time...
  LaunchResult none =
      Run({"count", "--backend", "callgrind", "--suite", suite("none"), "--exe", date});
  EXPECT_EQ(none.exit_code, 3) << none.out;
  EXPECT_TRUE(Contains(none.out, "score mismatch: expected 1577836800")) << none.out;
#ifdef WORKGATE_VGCOUNT_BUILT
  // ...while vgcount answers its clock system call with the shim's first
  // time: the same origin, whichever pins it.
  LaunchResult vgcount = Run({"count", "--backend", "vgcount", "--suite", suite("none"), "--exe",
                              date, "--json", "none.json"});
  EXPECT_EQ(vgcount.exit_code, 0) << vgcount.out << vgcount.err;
  EXPECT_EQ(ReadJson("none.json")["workloads"][0]["score"], "1577836800");
#endif
}

}  // namespace
}  // namespace workgate
