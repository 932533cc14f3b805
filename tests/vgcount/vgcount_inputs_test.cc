// vgcount's record of what a program read from the file system
// (--vgcount-inputs=yes, tools/vgcount/vgcount_inputs.c): the exact records
// of each kind of call, a forked child's, an exec's, the bound, and what
// workgate's Valgrind backend makes of them (CountedRun::inputs).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "counter/input_record.h"
#include "counter/valgrind_counter.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"

namespace workgate {
namespace {
namespace vgcount_inputs_test {

namespace fs = std::filesystem;
using testing::BuildPath;

#if defined(__x86_64__)
constexpr const char* kToolName = "vgcount-amd64-linux";
#elif defined(__aarch64__)
constexpr const char* kToolName = "vgcount-arm64-linux";
#else
constexpr const char* kToolName = "vgcount-unsupported";
#endif

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

InputRecord FromStat(InputRecord::Kind kind, const struct stat& st, const std::string& path) {
  InputRecord r;
  r.kind = kind;
  r.state = InputRecord::State::kPresent;
  r.dev = st.st_dev;
  r.ino = st.st_ino;
  r.mode = st.st_mode;
  r.size = static_cast<uint64_t>(st.st_size);
  r.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  r.ctime_ns = int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  r.path = path;
  return r;
}

// The record of `path` as found now: stat, or lstat for lmeta.
InputRecord Found(InputRecord::Kind kind, const std::string& path) {
  struct stat st {};
  const int failed =
      kind == InputRecord::Kind::kLinkMeta ? lstat(path.c_str(), &st) : stat(path.c_str(), &st);
  EXPECT_EQ(failed, 0) << path;
  return FromStat(kind, st, path);
}

InputRecord Failed(InputRecord::Kind kind, const std::string& path, int error = 0) {
  InputRecord r;
  r.kind = kind;
  r.state = error == 0 ? InputRecord::State::kMissing : InputRecord::State::kError;
  r.error = error;
  r.path = path;
  return r;
}

// Records as lines, for messages that say which differ.
std::set<std::string> Lines(const std::vector<InputRecord>& records) {
  std::set<std::string> lines;
  for (const InputRecord& r : records) lines.insert(FormatInputRecord(r));
  return lines;
}

std::string Joined(const std::set<std::string>& lines) {
  std::string all;
  for (const std::string& line : lines) all += "  " + line + "\n";
  return all;
}

// The records of `records` whose path lies under `dir`.
std::set<std::string> Under(const std::vector<InputRecord>& records, const fs::path& dir) {
  std::set<std::string> lines;
  const std::string prefix = dir.string() + "/";
  for (const InputRecord& r : records) {
    if (r.path.rfind(prefix, 0) == 0) lines.insert(FormatInputRecord(r));
  }
  return lines;
}

// Whether `path` is a file of a process itself, which is never recorded.
bool IsProcessFile(const std::string& path) {
  if (path.rfind("/proc/", 0) != 0) return false;
  const std::string rest = path.substr(6);
  const std::string first = rest.substr(0, rest.find('/'));
  return first == "self" || first == "thread-self" ||
         (!first.empty() && std::all_of(first.begin(), first.end(), ::isdigit));
}

class VgcountInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_VGCOUNT(BuildPath(std::string("valgrind-lib/") + kToolName));
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    WORKGATE_ASSERT_BUILT(probe_);
    // Canonical, so that the paths the kernel gives (a mapped file's, the
    // working directory's) are those the test names.
    dir_ = fs::canonical(fs::temp_directory_path()) /
           ("vgcount_inputs_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    data_ = dir_ / "data";
    fs::create_directories(data_ / "sub");
    fs::create_directories(data_ / "listed");
    fs::create_directories(dir_ / "out");
    for (const fs::path& file :
         {data_ / "a.txt", data_ / "b.txt", data_ / "sub" / "c.txt", data_ / "d.txt",
          data_ / "rw.txt", data_ / "listed" / "x", data_ / "listed" / "y"}) {
      std::ofstream(file) << "text of " << file.filename().string() << "\n";
    }
    std::ofstream(data_ / "m.bin") << std::string(8192, 'm');
    fs::create_symlink("a.txt", data_ / "link");
    fs::create_symlink("b.txt", data_ / "link2");
    setenv("WORKGATE_VGCOUNT_LIB", BuildPath("valgrind-lib").c_str(), 1);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs the probe with `actions` under vgcount with `options`, its reports
  // to vgc.<pid> in dir_ (files, no channel); `redirect` is added to the
  // command line (a descriptor for the probe to inherit). Returns the
  // reports.
  std::vector<std::string> RunFiles(const std::string& options, const std::string& actions,
                                    const std::string& redirect = "") {
    const std::string err = (dir_ / "stderr").string();
    const std::string line =
        "cd " + Quoted(dir_.string()) + " && setarch \"$(uname -m)\" -R env -i " +
        "VALGRIND_LIB=" + Quoted(BuildPath("valgrind-lib")) + " valgrind -q " +
        "--tool=vgcount --trace-children=yes --vgcount-out-file=" +
        Quoted((dir_ / "vgc.%p").string()) + " " + options + " " + Quoted(probe_) + " " + actions +
        " " + redirect + " </dev/null >/dev/null 2>" + Quoted(err);
    EXPECT_EQ(std::system(line.c_str()), 0) << line << "\n" << Slurp(err);
    std::vector<std::string> reports;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      if (entry.path().filename().string().rfind("vgc.", 0) == 0) {
        reports.push_back(Slurp(entry.path()));
      }
    }
    return reports;
  }

  // The probe with `argv` counted the way workgate counts (the channel,
  // --vgcount-inputs=yes), in dir_.
  CountedRun Count(const std::vector<std::string>& argv) {
    ValgrindCounter counter(ValgrindCounter::Tool::kVgcount);
    LaunchSpec spec;
    spec.argv = argv;
    spec.env = MinimalEnvironment("/tmp");
    spec.cwd = dir_.string();
    spec.timeout_seconds = 240;
    return counter.Run(spec, {});
  }

  static std::vector<InputRecord> Records(const std::string& report, bool* complete = nullptr) {
    std::vector<InputRecord> records;
    std::string why;
    const bool all = ParseVgcountInputRecords(report, &records, &why);
    EXPECT_TRUE(why.empty()) << why;
    if (complete != nullptr) *complete = all;
    return records;
  }

  std::string probe_ = BuildPath("tests/vgcount_inputs_probe");
  fs::path dir_, data_;
};

TEST_F(VgcountInputsTest, RecordsWhatEachCallReadAndNothingElse) {
  const std::string d = data_.string();
  const std::string actions =
      "open " + Quoted(d + "/a.txt") +  // absolute
      " chdir " + Quoted(d) +           // the rest relative to data/ where not absolute
      " open b.txt openat sub c.txt open nope.txt open " + Quoted(d + "/sub/nope") +
      " open a.txt/x open-rw rw.txt write " + Quoted((dir_ / "out" / "w.txt").string()) +
      " stat a.txt stat nothing lstat link statx link readlink link2 readlink a.txt"
      " access b.txt fstat d.txt list listed mmap 3"
      " open /dev/null open /proc/self/maps stat /proc/self/exe readlink /proc/self/exe"
      " open /proc/self/status";
  const std::vector<std::string> reports =
      RunFiles("--vgcount-inputs=yes", actions, "3<" + Quoted(d + "/m.bin"));
  ASSERT_EQ(reports.size(), 1u);
  bool complete = false;
  const std::vector<InputRecord> records = Records(reports[0], &complete);
  EXPECT_TRUE(complete) << reports[0];

  using K = InputRecord::Kind;
  const std::set<std::string> expected = Lines({
      Found(K::kOpen, d + "/a.txt"),
      Found(K::kOpen, d + "/b.txt"),
      Found(K::kMeta, d + "/sub"),  // openat's directory, opened
      Found(K::kOpen, d + "/sub/c.txt"),
      Failed(K::kOpen, d + "/nope.txt"),
      Failed(K::kOpen, d + "/sub/nope"),
      Failed(K::kOpen, d + "/a.txt/x"),  // ENOTDIR
      Found(K::kOpen, d + "/rw.txt"),
      Found(K::kMeta, d + "/a.txt"),
      Failed(K::kMeta, d + "/nothing"),
      Found(K::kLinkMeta, d + "/link"),
      Found(K::kMeta, d + "/link"),  // statx follows: a.txt's state
      Found(K::kLinkMeta, d + "/link2"),
      Failed(K::kLinkMeta, d + "/a.txt", EINVAL),  // readlink of no link
      Found(K::kMeta, d + "/b.txt"),
      Found(K::kOpen, d + "/d.txt"),  // its fstat and AT_EMPTY_PATH calls: nothing
      Found(K::kMeta, d + "/listed"),
      Found(K::kList, d + "/listed"),
      Found(K::kOpen, d + "/m.bin"),  // mapped from the inherited descriptor
  });
  const std::set<std::string> got = Under(records, dir_);
  EXPECT_EQ(got, expected) << "recorded:\n" << Joined(got) << "expected:\n" << Joined(expected);
  for (const InputRecord& r : records) {
    EXPECT_NE(r.path, "/dev/null") << FormatInputRecord(r);
    EXPECT_FALSE(IsProcessFile(r.path)) << FormatInputRecord(r);
  }
  // The C library the probe loads: its open and its mappings.
  EXPECT_TRUE(std::any_of(records.begin(), records.end(), [](const InputRecord& r) {
    return r.kind == InputRecord::Kind::kOpen && r.path.find("/libc.so") != std::string::npos;
  })) << reports[0];
}

TEST_F(VgcountInputsTest, AForkedChildRecordsOnlyWhatItRead) {
  const std::string d = data_.string();
  const std::vector<std::string> reports =
      RunFiles("--vgcount-inputs=yes", "open " + Quoted(d + "/a.txt") + " fork " +
                                           Quoted(d + "/b.txt") + " open " + Quoted(d + "/d.txt"));
  ASSERT_EQ(reports.size(), 2u);
  // The child is the one whose parent wrote the other report.
  auto field = [](const std::string& report, const std::string& key) {
    const std::string start = "\n" + key + ": ";
    const size_t at = report.find(start);
    if (at == std::string::npos) return std::string();
    const size_t from = at + start.size();
    return report.substr(from, report.find('\n', from) - from);
  };
  const bool first_is_parent = field(reports[1], "ppid") == field(reports[0], "pid");
  ASSERT_TRUE(first_is_parent || field(reports[0], "ppid") == field(reports[1], "pid"))
      << reports[0] << "\n"
      << reports[1];
  const std::string& parent = reports[first_is_parent ? 0 : 1];
  const std::string& child = reports[first_is_parent ? 1 : 0];
  using K = InputRecord::Kind;
  EXPECT_EQ(Under(Records(parent), dir_),
            Lines({Found(K::kOpen, d + "/a.txt"), Found(K::kOpen, d + "/d.txt")}))
      << parent;
  EXPECT_EQ(Under(Records(child), dir_), Lines({Found(K::kOpen, d + "/b.txt")})) << child;
  // The libraries the parent loaded are the parent's.
  for (const InputRecord& r : Records(child)) {
    EXPECT_EQ(r.path.find("/libc.so"), std::string::npos) << FormatInputRecord(r);
  }
}

TEST_F(VgcountInputsTest, WithoutTheOptionNoInputIsWritten) {
  const std::string actions = "open " + Quoted(data_.string() + "/a.txt");
  for (const char* options : {"", "--vgcount-inputs=no"}) {
    const std::vector<std::string> reports = RunFiles(options, actions);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].find("input:"), std::string::npos) << reports[0];
    EXPECT_NE(reports[0].find("\ninstructions: "), std::string::npos) << reports[0];
    for (const auto& entry : fs::directory_iterator(dir_)) {
      if (entry.path().filename().string().rfind("vgc.", 0) == 0) fs::remove(entry.path());
    }
  }
}

TEST_F(VgcountInputsTest, APathLongerThanTheToolReadsLeavesTheInputsUnknown) {
  const std::vector<std::string> reports =
      RunFiles("--vgcount-inputs=yes", "open " + Quoted(data_.string() + "/a.txt") +
                                           " long 5000 open " + Quoted(data_.string() + "/b.txt"));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("\ninput: overflow\n"), std::string::npos) << reports[0];
  bool complete = true;
  const std::vector<InputRecord> records = Records(reports[0], &complete);
  EXPECT_FALSE(complete);
  // What came before it stays; nothing after it is recorded.
  EXPECT_EQ(Under(records, dir_),
            Lines({Found(InputRecord::Kind::kOpen, data_.string() + "/a.txt")}));
}

TEST_F(VgcountInputsTest, AnExecIsRecordedWithThePartBeforeIt) {
  const std::string d = data_.string();
  const CountedRun run = Count({probe_, "open", d + "/a.txt", "exec", d + "/nope", "open",
                                d + "/b.txt", "exec", "/bin/true"});
  ASSERT_TRUE(run.valid()) << run.error;
  EXPECT_TRUE(run.inputs_traced);
  EXPECT_FALSE(run.inputs_overflow);
  EXPECT_TRUE(std::is_sorted(run.inputs.begin(), run.inputs.end(), InputRecordBefore));
  using K = InputRecord::Kind;
  EXPECT_EQ(Under(run.inputs, dir_),
            Lines({Found(K::kOpen, d + "/a.txt"), Failed(K::kExec, d + "/nope"),
                   Found(K::kOpen, d + "/b.txt")}))
      << Joined(Lines(run.inputs));
  // The exec that ran, with the state of what it ran (links followed), and
  // what the program it started read: its own C library.
  const std::set<std::string> all = Lines(run.inputs);
  EXPECT_EQ(all.count(FormatInputRecord(Found(K::kExec, "/bin/true"))), 1u) << Joined(all);
  EXPECT_GE(std::count_if(run.inputs.begin(), run.inputs.end(),
                          [](const InputRecord& r) {
                            return r.kind == K::kOpen &&
                                   r.path.find("/libc.so") != std::string::npos;
                          }),
            1)
      << Joined(all);
}

TEST_F(VgcountInputsTest, PastItsBoundAProcessRecordsNothingMoreAndSaysSo) {
  // 70,000 distinct paths: more than the 65,536 records a process keeps,
  // a report of some 4 MB that comes whole through the channel.
  const CountedRun run = Count({probe_, "missing", dir_.string(), "70000"});
  ASSERT_TRUE(run.valid()) << run.error;
  EXPECT_TRUE(run.inputs_traced);
  EXPECT_TRUE(run.inputs_overflow);
  EXPECT_EQ(run.inputs.size(), 65536u);
  EXPECT_EQ(
      Under(run.inputs, dir_)
          .count(FormatInputRecord(Failed(InputRecord::Kind::kOpen, dir_.string() + "/missing-0"))),
      1u);
  EXPECT_EQ(Under(run.inputs, dir_)
                .count(FormatInputRecord(
                    Failed(InputRecord::Kind::kOpen, dir_.string() + "/missing-69999"))),
            0u);
}

TEST_F(VgcountInputsTest, AnInterpreterThatImportsManyModulesKeepsItsReportWhole) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("python3"), "python3 is not on PATH");
  const std::string modules = "json, email.parser, http.client, xml.dom.minidom, unittest, decimal";
  // Where the first of them lies, from a run without Valgrind of the
  // python3 that the run's PATH finds.
  const std::string where = (dir_ / "where").string();
  const std::string path = MinimalEnvironment("/tmp").at("PATH");
  ASSERT_EQ(std::system(("env -i PATH=" + Quoted(path) +
                         " python3 -c 'import json; print(json.__file__)' >" + Quoted(where))
                            .c_str()),
            0);
  std::string json_file = Slurp(where);
  json_file.erase(json_file.find_last_not_of('\n') + 1);
  const CountedRun run = Count({"/usr/bin/env", "python3", "-c", "import " + modules});
  ASSERT_TRUE(run.valid()) << run.error << run.launch.err;
  EXPECT_TRUE(run.inputs_traced);
  EXPECT_FALSE(run.inputs_overflow);
  // More than one of the channel's 16 KiB messages (how many modules a
  // machine's Python reads for this varies: a bare Debian root reads fewer
  // than a developer's machine).
  size_t bytes = 0;
  for (const InputRecord& r : run.inputs) bytes += FormatInputRecord(r).size() + 8;
  EXPECT_GT(bytes, 16384u) << run.inputs.size() << " records";
  EXPECT_TRUE(std::any_of(run.inputs.begin(), run.inputs.end(),
                          [&](const InputRecord& r) { return r.path == json_file; }))
      << json_file << " not among\n"
      << Joined(Lines(run.inputs));
}

}  // namespace vgcount_inputs_test
}  // namespace
}  // namespace workgate
