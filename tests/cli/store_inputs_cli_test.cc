// The result store never gives a count whose inputs changed, end to end:
// the real workgate, vgcount, a real store. Each test counts, changes one
// thing the program reads (a script given by absolute path, an input file,
// a module on an interpreter's search path, a dlopened library, a listed
// directory), counts again, and checks that the second count was a miss,
// equal to a --no-store count, with the reason in the report.
//
// The inputs live under the build tree, not under /tmp: a contained run gets
// /tmp fresh and sees there only what its command line names.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

const std::string kInputWork = testing::BuildPath("tests/input_work");

class StoreInputsCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped()) return;
    WORKGATE_REQUIRE_TOOL(kExactBackend == "vgcount", "vgcount is not built here");
    std::string pattern = testing::BuildPath("tests/store-inputs.XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    data_ = pattern;
    chmod(data_.c_str(), 0755);
    wrapper_ = Path("valgrind-logging");
    std::ofstream(wrapper_) << "#!/bin/sh\n"
                            << "[ \"$1\" = --version ] || echo run >> \"$TMPDIR/valgrind.log\""
                            << "\nexec " << FindValgrind().path << " \"$@\"\n";
    chmod(wrapper_.c_str(), 0755);
    fs::create_directory(Path("runs"));
  }
  void TearDown() override {
    std::error_code ec;
    if (!data_.empty()) fs::remove_all(data_, ec);
  }

  std::string Data(const std::string& name) const { return data_ + "/" + name; }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(Data(name)) << text;
  }

  // How many Valgrind runs the commands so far asked for.
  int Runs() {
    std::ifstream in(Path("runs/valgrind.log"));
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

  // `compare` of `exe` against itself on `command`, through the test's store
  // (or none), JSON in `json`.
  LaunchResult Compare(const std::string& exe, const std::vector<std::string>& command,
                       const std::string& json, std::vector<std::string> extra = {}) {
    std::map<std::string, std::string> env = MinimalEnvironment(dir_.path());
    env["WORKGATE_VALGRIND"] = wrapper_;
    std::vector<std::string> args = {"compare",     "--env",     "TMPDIR=" + Path("runs"),
                                     "--backend",   "vgcount",   "--baseline",
                                     exe,           "--candidate", exe,
                                     "--timed",     "0",         "--json",
                                     json};
    args.insert(args.end(), extra.begin(), extra.end());
    if (std::find(extra.begin(), extra.end(), "--no-store") == extra.end()) {
      args.insert(args.end(), {"--store", Path("store.sqlite3")});
    }
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return Run(args, env);
  }

  // The baseline's count in the report `json`, and whether it came from the store.
  uint64_t Count(const std::string& json, bool* from_store) {
    const nlohmann::json j = ReadJson(json);
    const nlohmann::json& side = j["workloads"][0]["baseline"];
    *from_store = side["from_store"].is_object();
    return side["counts"][0].get<uint64_t>();
  }

  // Counts `command` cold and then warm (the warm one from the store, no
  // run), lets `change` change an input, and checks that the next count is
  // counted again, equals a --no-store count, differs from the first, and
  // that the store's notes say `reason`.
  void ExpectAMissAfter(const std::string& exe, const std::vector<std::string>& command,
                        const std::function<void()>& change, const std::string& reason) {
    LaunchResult cold = Compare(exe, command, "cold.json");
    ASSERT_EQ(cold.exit_code, 0) << cold.out << cold.err;
    bool stored = true;
    const uint64_t first = Count("cold.json", &stored);
    EXPECT_FALSE(stored);
    const int cold_runs = Runs();
    LaunchResult warm = Compare(exe, command, "warm.json");
    ASSERT_EQ(warm.exit_code, 0) << warm.out << warm.err;
    EXPECT_EQ(Count("warm.json", &stored), first);
    EXPECT_TRUE(stored) << "nothing changed, yet the count was not taken from the store: "
                        << ReadJson("warm.json")["store"].dump();
    EXPECT_EQ(Runs(), cold_runs);

    change();
    LaunchResult after = Compare(exe, command, "after.json", {"--markdown", "after.md"});
    ASSERT_EQ(after.exit_code, 0) << after.out << after.err;
    const uint64_t second = Count("after.json", &stored);
    EXPECT_FALSE(stored) << "a stale count was taken from the store";
    EXPECT_GT(Runs(), cold_runs);
    EXPECT_NE(second, first);
    LaunchResult none = Compare(exe, command, "none.json", {"--no-store"});
    ASSERT_EQ(none.exit_code, 0) << none.out << none.err;
    EXPECT_EQ(Count("none.json", &stored), second);

    // Why, in each report.
    const nlohmann::json notes = ReadJson("after.json")["store"]["notes"];
    ASSERT_TRUE(notes.is_array()) << ReadJson("after.json")["store"].dump();
    bool named = false;
    for (const auto& note : notes) named = named || note.get<std::string>().find(reason) != std::string::npos;
    EXPECT_TRUE(named) << notes.dump();
    EXPECT_NE(after.out.find(reason), std::string::npos) << after.out;
    EXPECT_NE(ReadFile(Path("after.md")).value_or("").find(reason), std::string::npos);
  }

  std::string data_, wrapper_;
};

TEST_F(StoreInputsCliTest, AnInputFileThatChangesIsCountedAgain) {
  Write("n.txt", "100000\n");
  ExpectAMissAfter(
      kInputWork, {"{exe}", "file", Data("n.txt")}, [&] { Write("n.txt", "900000\n"); },
      "the stored count was not used: the file " + Data("n.txt") +
          " changed since it was counted");
}

TEST_F(StoreInputsCliTest, ADirectoryThatGainsAFileIsCountedAgain) {
  fs::create_directory(Data("items"));
  Write("items/a", "");
  ExpectAMissAfter(
      kInputWork, {"{exe}", "dir", Data("items")}, [&] { Write("items/b", ""); },
      "the directory " + Data("items") + " gained or lost entries since it was counted");
}

TEST_F(StoreInputsCliTest, ADlopenedLibraryReplacedIsCountedAgain) {
  fs::copy_file(testing::BuildPath("tests/input_work_lib_100000.so"), Data("lib.so"));
  ExpectAMissAfter(
      kInputWork, {"{exe}", "dlopen", Data("lib.so")},
      [&] {
        fs::copy_file(testing::BuildPath("tests/input_work_lib_300000.so"), Data("lib.so"),
                      fs::copy_options::overwrite_existing);
      },
      "the file " + Data("lib.so") + " changed since it was counted");
}

TEST_F(StoreInputsCliTest, AFileChangedWhileTheProgramRunsIsNotKept) {
  // --as-is: no read-only file system, so the program can change its own
  // input, as any process beside it could.
  Write("n.txt", "200000\n");
  const std::vector<std::string> command = {"{exe}", "append", Data("n.txt")};
  LaunchResult first = Compare(kInputWork, command, "first.json", {"--as-is"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const std::string reason = "its count is not kept in the store: the file " + Data("n.txt") +
                             " changed while the program ran";
  EXPECT_NE(first.out.find(reason), std::string::npos) << first.out;
  const int runs = Runs();
  EXPECT_EQ(runs, 2) << "the candidate was taken from a count that was not kept";
  LaunchResult again = Compare(kInputWork, command, "again.json", {"--as-is"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  bool stored = true;
  Count("again.json", &stored);
  EXPECT_FALSE(stored);
  EXPECT_EQ(Runs(), runs + 2);
}

TEST_F(StoreInputsCliTest, ARecordIsRecountedWhenItsInputsChangedNeverRelabelled) {
  Write("n.txt", "100000\n");
  const std::vector<std::string> command = {"{exe}", "file", Data("n.txt")};
  ASSERT_EQ(Compare(kInputWork, command, "r1.json", {"--record", "r1"}).exit_code, 0);
  const int runs = Runs();
  // Nothing changed: the next commit's record is the stored count.
  ASSERT_EQ(Compare(kInputWork, command, "r2.json", {"--record", "r2"}).exit_code, 0);
  EXPECT_EQ(Runs(), runs);
  // Its input changed: counted again, and that count is what is recorded.
  Write("n.txt", "700000\n");
  ASSERT_EQ(Compare(kInputWork, command, "r3.json", {"--record", "r3"}).exit_code, 0);
  EXPECT_GT(Runs(), runs);
  ASSERT_EQ(Compare(kInputWork, command, "none.json", {"--no-store"}).exit_code, 0);
  bool stored = true;
  const uint64_t fresh = Count("none.json", &stored);

  std::map<std::string, std::string> env = MinimalEnvironment(dir_.path());
  LaunchResult history =
      Run({"history", "--store", Path("store.sqlite3"), "--json", "history.json"}, env);
  ASSERT_LE(history.exit_code, 1) << history.out << history.err;
  const nlohmann::json points = ReadJson("history.json")["series"][0]["points"];
  ASSERT_EQ(points.size(), 3u) << points.dump();
  EXPECT_EQ(points[0]["ref"], "r1");
  EXPECT_EQ(points[0]["counts"][0], points[1]["counts"][0]);
  EXPECT_EQ(points[2]["ref"], "r3");
  EXPECT_EQ(points[2]["counts"][0].get<uint64_t>(), fresh);
  EXPECT_NE(points[2]["counts"][0], points[1]["counts"][0]);
}

TEST_F(StoreInputsCliTest, LuaRecountsWhenItsScriptOrAModuleItRequiresChanges) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/lua5.4", X_OK) == 0, "no /usr/bin/lua5.4");
  fs::create_directory(Data("first"));
  fs::create_directory(Data("mods"));
  Write("mods/m.lua", "return {n = 100000}\n");
  Write("s.lua", "package.path = '" + Data("first") + "/?.lua;" + Data("mods") +
                     "/?.lua'\nlocal m = require('m')\nlocal x = 0\n"
                     "for i = 1, m.n + 0 do x = x + i end\nprint('done')\n");
  const std::vector<std::string> command = {"{exe}", Data("s.lua")};
  // The module it requires.
  ExpectAMissAfter(
      "/usr/bin/lua5.4", command, [&] { Write("mods/m.lua", "return {n = 900000}\n"); },
      "the file " + Data("mods/m.lua") + " changed since it was counted");
  // A module of the same name earlier on its path, where it looked and found none.
  fs::remove(Path("store.sqlite3"));
  ExpectAMissAfter(
      "/usr/bin/lua5.4", command, [&] { Write("first/m.lua", "return {n = 300000}\n"); },
      Data("first/m.lua") + " exists now; it did not when counted");
  // The script itself, given by absolute path: the same length, another loop.
  fs::remove(Path("store.sqlite3"));
  ExpectAMissAfter(
      "/usr/bin/lua5.4", command,
      [&] {
        std::string text = ReadFile(Data("s.lua")).value_or("");
        text.replace(text.find("m.n + 0"), 7, "m.n * 3");
        Write("s.lua", text);
      },
      "the file " + Data("s.lua") + " changed since it was counted");
}

TEST_F(StoreInputsCliTest, PythonRecountsWhenAModuleItImportsChanges) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/python3", X_OK) == 0, "no /usr/bin/python3");
  fs::create_directory(Data("py"));
  Write("py/pm.py", "N = 20000\n");
  Write("main.py", "import sys\nsys.path.insert(0, '" + Data("py") +
                       "')\nimport pm\nx = 0\nfor i in range(pm.N):\n    x += i\nprint('done')\n");
  ExpectAMissAfter(
      "/usr/bin/python3", {"{exe}", "-B", Data("main.py")},
      [&] { Write("py/pm.py", "N = 90000\n"); },
      "the file " + Data("py/pm.py") + " changed since it was counted");
}

}  // namespace
}  // namespace workgate
