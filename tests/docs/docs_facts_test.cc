// The facts the documents state that the code decides: each JSON document's
// schema_version, the list of commands, the clock shim's file name, the
// steps of ci/test that the documents cite, how many tests there are. Each
// is read from the code (a constant in a header, the commands main()
// registers, the CMake target's OUTPUT_NAME, the step lines of ci/test,
// what ctest lists) and from each document that states it, so that a change
// to either side that leaves the other behind fails here, naming both. The
// code is found by what it says, not by its file's path, so moving a source
// file does not break this test. And no file of the tree cites an issue
// number: a reason is given in words, where the file's reader sees it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BuildPath;
using testing::SourcePath;

// The documents that state the facts, relative to the source tree. The
// README is the newcomer's page; what it once held in full is in docs/*.md.
const char* const kReadme = "README.md";
const char* const kCliPage = "docs/cli.md";
const char* const kReportsPage = "docs/reports.md";
const char* const kStorePage = "docs/store.md";
const char* const kDevelopmentPage = "docs/development.md";
const char* const kArchitecture = "ARCHITECTURE.md";
const char* const kManPage = "docs/workgate.1.scd";
const char* const kVgcountReadme = "tools/vgcount/README.md";

std::string DocText(const std::string& rel) {
  std::optional<std::string> text = ReadFile(SourcePath(rel), 16 << 20);
  EXPECT_TRUE(text.has_value()) << "cannot read " << rel;
  return text.value_or("");
}

// Every file under `dir` (relative to the source tree; "" for all of it)
// whose name ends in one of `suffixes`, with its text, by path relative to
// the source tree. Build trees (build*/) and hidden directories are not the
// source.
std::map<std::string, std::string> DocSources(const std::string& dir,
                                              const std::vector<std::string>& suffixes) {
  std::map<std::string, std::string> files;
  const fs::path root = SourcePath("");
  for (auto it = fs::recursive_directory_iterator(SourcePath(dir),
                                                  fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name.rfind(".", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    const bool wanted = std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string& s) {
      return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    });
    const std::string rel = fs::relative(it->path(), root).string();
    if (wanted) files[rel] = DocText(rel);
  }
  return files;
}

// The user's documents: the README and every page of docs/, by path.
std::map<std::string, std::string> UserDocs() {
  std::map<std::string, std::string> docs = DocSources("docs", {".md"});
  EXPECT_GE(docs.size(), 5u) << "docs/ holds no pages";
  docs[kReadme] = DocText(kReadme);
  return docs;
}

// The fenced code blocks of a Markdown text, each with the first line of
// text after it (a caption such as "(ci/demo ..., counted with vgcount)").
struct DocCodeBlock {
  std::string code, after;
};
std::vector<DocCodeBlock> DocCodeBlocks(const std::string& text) {
  std::vector<DocCodeBlock> blocks;
  std::istringstream lines(text);
  bool fenced = false, awaiting = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      if (fenced) blocks.push_back({});
      awaiting = !fenced;
    } else if (fenced) {
      blocks.back().code += line + "\n";
    } else if (awaiting && !line.empty()) {
      blocks.back().after = line;
      awaiting = false;
    }
  }
  return blocks;
}

// The lines of `text` from the line `heading` to the next heading of its
// level or above, leaving out fenced code (whose `#` lines are no headings).
std::string DocSection(const std::string& text, const std::string& heading) {
  const size_t level = heading.find_first_not_of('#');
  std::istringstream lines(text);
  std::string out;
  bool inside = false, fenced = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (!fenced && line.rfind("#", 0) == 0) {
      const size_t its_level = line.find_first_not_of('#');
      if (inside && its_level <= level) break;
      if (line == heading) inside = true;
    }
    if (inside) out += line + "\n";
  }
  EXPECT_FALSE(out.empty()) << "no section \"" << heading << "\"";
  return out;
}

// Every match of `pattern` in `text`: its first group, or the whole match.
std::vector<std::string> DocMatches(const std::string& text, const std::regex& pattern) {
  std::vector<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    found.push_back(it->size() > 1 ? (*it)[1].str() : it->str());
  }
  return found;
}

std::set<std::string> DocSet(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

std::string DocJoin(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// --- JSON schema versions --------------------------------------------------

// Each JSON document workgate writes: its schema file in schemas/ and the
// constant in src/ that is its schema_version (all of them are in
// src/model/schema_versions.h).
struct JsonDocument {
  std::string schema;
  std::string constant;
};
const JsonDocument kJsonDocuments[] = {
    {"compare-report.schema.json", "kCompareSchemaVersion"},
    {"baseline.schema.json", "kBaselineSchemaVersion"},
    {"count.schema.json", "kCountSchemaVersion"},
    {"probe.schema.json", "kProbeSchemaVersion"},
    {"probe-merge.schema.json", "kProbeTableSchemaVersion"},
    {"explain.schema.json", "kExplainSchemaVersion"},
    {"history.schema.json", "kHistorySchemaVersion"},
};
// The result store's version is SQLite's user_version, of no JSON document.
const char* const kNotJson[] = {"kStoreSchemaVersion"};

// Every schema version constant in src/, by name, as the code defines it.
std::map<std::string, int> CodeSchemaVersions() {
  std::map<std::string, int> versions;
  const std::regex constant(R"(constexpr\s+int\s+(k\w*SchemaVersion)\s*=\s*(\d+)\s*;)");
  for (const auto& [path, text] : DocSources("src", {".h", ".cc"})) {
    for (std::sregex_iterator it(text.begin(), text.end(), constant), end; it != end; ++it) {
      EXPECT_EQ(versions.count((*it)[1].str()), 0u) << (*it)[1] << " is defined twice";
      versions[(*it)[1].str()] = std::stoi((*it)[2].str());
    }
  }
  return versions;
}

// Every `"schema_version": {"const": N}` in a schema, wherever it is nested.
void SchemaConsts(const nlohmann::json& j, std::vector<int>* out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (key == "schema_version" && value.is_object() && value.contains("const")) {
        out->push_back(value["const"].get<int>());
      }
      SchemaConsts(value, out);
    }
  } else if (j.is_array()) {
    for (const auto& value : j) SchemaConsts(value, out);
  }
}

class DocsFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    versions_ = CodeSchemaVersions();
    for (const JsonDocument& d : kJsonDocuments) {
      ASSERT_EQ(versions_.count(d.constant), 1u) << d.constant << " is not defined in src/";
    }
  }
  int Version(const std::string& schema) const {
    for (const JsonDocument& d : kJsonDocuments) {
      if (d.schema == schema) return versions_.at(d.constant);
    }
    ADD_FAILURE() << "no JSON document has the schema " << schema;
    return -1;
  }
  std::map<std::string, int> versions_;
};

TEST_F(DocsFactsTest, EverySchemaVersionConstantIsADocumentOfThisTest) {
  std::set<std::string> known(std::begin(kNotJson), std::end(kNotJson));
  for (const JsonDocument& d : kJsonDocuments) known.insert(d.constant);
  for (const auto& [name, version] : versions_) {
    EXPECT_EQ(known.count(name), 1u)
        << name << " (" << version << ") is a new JSON document's version: add it to "
        << "kJsonDocuments here, to schemas/ and to docs/reports.md's table of JSON documents";
  }
}

TEST_F(DocsFactsTest, TheSchemaFilesRequireTheVersionsTheCodeWrites) {
  std::set<std::string> expected, found;
  for (const JsonDocument& d : kJsonDocuments) expected.insert(d.schema);
  for (const auto& [path, text] : DocSources("schemas", {".schema.json"})) {
    const std::string schema = fs::path(path).filename().string();
    found.insert(schema);
    std::vector<int> consts;
    SchemaConsts(nlohmann::json::parse(text), &consts);
    ASSERT_FALSE(consts.empty()) << path << " requires no schema_version";
    for (int v : consts) EXPECT_EQ(v, Version(schema)) << path;
  }
  EXPECT_EQ(found, expected);
}

TEST_F(DocsFactsTest, TheReportsPagesTableOfJsonDocumentsHasTheCodesVersions) {
  const std::string readme = DocText(kReportsPage);
  // "  | `count --json` (a command or a suite) | 3 | `count.schema.json` |"
  const std::regex row(R"(\n\s*\| [^|\n]+ \| (\d+) \| `([\w.-]+\.schema\.json)` \|)");
  std::set<std::string> listed;
  for (std::sregex_iterator it(readme.begin(), readme.end(), row), end; it != end; ++it) {
    const std::string schema = (*it)[2].str();
    listed.insert(schema);
    EXPECT_EQ(std::stoi((*it)[1].str()), Version(schema)) << kReportsPage << ": " << it->str();
  }
  std::set<std::string> expected;
  for (const JsonDocument& d : kJsonDocuments) expected.insert(d.schema);
  EXPECT_EQ(listed, expected) << kReportsPage << "'s table of JSON documents";
}

TEST_F(DocsFactsTest, TheProseStatesTheCodesVersions) {
  const int compare = Version("compare-report.schema.json");
  const int baseline = Version("baseline.schema.json");
  const std::map<std::string, std::string> docs = UserDocs();
  const std::string architecture = DocText(kArchitecture);
  // The compare report's --json, in docs/reports.md and in ARCHITECTURE;
  // no other page of the user's states a version so.
  const std::regex stated(R"(`schema_version`,? \(?(\d+))");
  for (const auto& [path, text] : docs) {
    const std::vector<std::string> versions = DocMatches(text, stated);
    if (path == kReportsPage) {
      EXPECT_EQ(versions, std::vector<std::string>{std::to_string(compare)})
          << path << ": the compare report's schema_version, and no other version so stated";
    } else {
      EXPECT_TRUE(versions.empty()) << path << " states a schema_version: " << versions[0];
    }
  }
  EXPECT_EQ(DocMatches(architecture, stated), std::vector<std::string>{std::to_string(compare)})
      << "ARCHITECTURE.md: the compare report's schema_version";
  for (const char* doc : {kManPage, kVgcountReadme}) {
    EXPECT_TRUE(DocMatches(DocText(doc), stated).empty()) << doc;
  }
  // The error a reader of another version gives, quoted for the stored
  // baseline and for merge's parts (compare reports): "... has
  // schema_version 4; this workgate reads version 5".
  const std::regex quoted(
      R"(has\s+schema_version\s+(\d+);\s+this\s+workgate\s+reads\s+version\s+(\d+))");
  const std::pair<const char*, int> sections[] = {
      {"## Stored baselines", baseline}, {"## Shards: one suite on several runners", compare}};
  size_t checked = 0;
  for (const auto& [heading, version] : sections) {
    const std::string section = DocSection(docs.at(kStorePage), heading);
    for (std::sregex_iterator it(section.begin(), section.end(), quoted), end; it != end; ++it) {
      ++checked;
      EXPECT_EQ(std::stoi((*it)[2].str()), version) << heading << ": " << it->str();
      EXPECT_NE((*it)[1].str(), (*it)[2].str()) << heading << ": " << it->str();
    }
  }
  EXPECT_EQ(checked, 2u);
  size_t quotes = 0;
  for (const auto& [path, text] : docs) quotes += DocMatches(text, quoted).size();
  EXPECT_EQ(quotes, checked)
      << "a page quotes a reader's version error outside the sections this test knows";
}

// --- Commands --------------------------------------------------------------

// The commands main() registers: AddHistoryCommand(app, &run) is `history`.
std::set<std::string> CodeCommands() {
  std::set<std::string> commands;
  const std::regex add(R"(\bAdd(\w+)Command\(app,)");
  for (const auto& [path, text] : DocSources("src", {".cc"})) {
    if (text.find("int main(int argc") == std::string::npos) continue;
    for (std::string name : DocMatches(text, add)) {
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      commands.insert(name);
    }
  }
  EXPECT_GE(commands.size(), 4u) << "no main() in src/ that adds the commands";
  return commands;
}

TEST(DocsCommandsTest, EveryDocumentListsEveryCommandMainRegisters) {
  const std::set<std::string> commands = CodeCommands();
  const std::string cli = DocText(kCliPage);
  const std::string page = DocText(kManPage);
  // docs/cli.md: "| `workgate count [options] -- CMD [ARGS...]` | ..." rows.
  EXPECT_EQ(
      DocSet(DocMatches(DocSection(cli, "# Commands"), std::regex(R"(\n\| `workgate (\w+))"))),
      commands)
      << kCliPage << ", # Commands";
  // The man page: "*count*" alone on a line under # COMMANDS, and
  // "*workgate* *count* ..." in the synopsis.
  EXPECT_EQ(DocSet(DocMatches(DocSection(page, "# COMMANDS"), std::regex(R"(\n\*(\w+)\*\n)"))),
            commands)
      << "docs/workgate.1.scd, # COMMANDS";
  EXPECT_EQ(
      DocSet(DocMatches(DocSection(page, "# SYNOPSIS"), std::regex(R"(\n\*workgate\* \*(\w+)\*)"))),
      commands)
      << "docs/workgate.1.scd, # SYNOPSIS";
  // ARCHITECTURE's module table: "| `src/cli` | the subcommands `probe`, ... |".
  std::smatch row;
  const std::string architecture = DocText(kArchitecture);
  ASSERT_TRUE(std::regex_search(architecture, row,
                                std::regex(R"(\| `src/cli` \| the subcommands ((`\w+`,? ?)+))")))
      << "ARCHITECTURE.md: no src/cli row naming the subcommands";
  const std::string names = row[1].str();
  EXPECT_EQ(DocSet(DocMatches(names, std::regex("`(\\w+)`"))), commands)
      << "ARCHITECTURE.md, src/cli: " << names;
  // Commands named in the man page's *--json* entry exist.
  std::smatch json;
  ASSERT_TRUE(
      std::regex_search(page, json, std::regex(R"(with a _schema\\_version_ \(([^)]*)\))")));
  for (const std::string& name : DocMatches(json[1].str(), std::regex(R"(\*(\w+)\*)"))) {
    EXPECT_EQ(commands.count(name), 1u) << "docs/workgate.1.scd, *--json*: " << name;
  }
}

// --- The clock shim's file name ----------------------------------------------

TEST(DocsShimTest, EveryDocumentNamesTheShimTheBuildMakes) {
  // The CMake target with a clock in its OUTPUT_NAME, wherever its
  // CMakeLists.txt lives.
  std::set<std::string> names;
  const std::regex output_name(
      R"(set_target_properties\(\s*\w+\s+PROPERTIES[^)]*?\bOUTPUT_NAME\s+([\w-]*clock[\w-]*))");
  for (const auto& [path, text] : DocSources("", {"CMakeLists.txt"})) {
    for (const std::string& name : DocMatches(text, output_name)) {
      names.insert("lib" + name + ".so");
    }
  }
  ASSERT_EQ(names.size(), 1u) << "the shim's target: " << DocJoin(names);
  const std::string shim = *names.begin();
  EXPECT_TRUE(fs::exists(BuildPath(shim))) << "the build made no " << BuildPath(shim);
  // What workgate looks for, and what every document names.
  const std::regex named(R"(lib[\w-]*clock[\w-]*\.so)");
  std::set<std::string> looked_for;
  for (const auto& [path, text] : DocSources("src", {".cc"})) {
    for (const std::string& name :
         DocMatches(text, std::regex(R"re(FindCompanion\("(lib[\w-]*clock[\w-]*\.so)"\))re"))) {
      looked_for.insert(name);
    }
  }
  EXPECT_EQ(looked_for, std::set<std::string>{shim}) << "FindCompanion in src/";
  std::map<std::string, std::string> docs = UserDocs();
  for (const char* doc : {kArchitecture, kManPage, kVgcountReadme, "src/shim/README.md"}) {
    docs[doc] = DocText(doc);
  }
  size_t named_in = 0;
  for (const auto& [doc, text] : docs) {
    const std::vector<std::string> names = DocMatches(text, named);
    named_in += !names.empty();
    for (const std::string& name : names) EXPECT_EQ(name, shim) << doc;
  }
  EXPECT_GE(named_in, 3u) << "the documents no longer name the shim: is this test reading them?";
}

// --- ci/test's steps -----------------------------------------------------------

// A step of a full ci/test run: its name, and its line (which holds its
// command and the STEP_UNLESS that can leave it out).
struct CiStep {
  std::string name, line;
};

// The steps of a full run, in order: the `step` and `step_bg` lines at the
// top level of ci/test (the --quick run's are indented, inside its `if`).
std::vector<CiStep> CiTestSteps(const std::string& script) {
  std::vector<CiStep> steps;
  const std::regex step(R"re(^(?:[A-Z_]+=\S+\s+)*step(?:_bg)?\s+"([^"]+)")re");
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, step)) steps.push_back({m[1].str(), line});
  }
  return steps;
}

// ci/test's own header: "#   4. when the run is root's, ..." items, and
// "WORKGATE_SKIP_SANITIZERS=1 leaves out steps 5-6 (...)" sentences.
TEST(DocsCiTest, CiTestsHeaderNumbersItsSteps) {
  const std::string script = DocText("ci/test");
  const std::vector<CiStep> steps = CiTestSteps(script);
  ASSERT_GE(steps.size(), 5u) << "ci/test: no steps found";
  const std::string header = script.substr(0, script.find("\nset -euo pipefail"));
  std::vector<std::string> items = DocMatches(header, std::regex(R"(\n#\s+(\d+)\.\s)"));
  ASSERT_EQ(items.size(), steps.size()) << "ci/test's header lists a step per `step` line";
  for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(items[i], std::to_string(i + 1));
  // Every step a WORKGATE_SKIP_X=1 sentence names is one that STEP_UNLESS=X leaves out.
  const std::regex skip(R"(WORKGATE_SKIP_(\w+)=1([^:]*?)(?=WORKGATE_SKIP_|:))");
  const std::regex numbers(R"(steps? (\d+)(?:-(\d+))?)");
  size_t sentences = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), skip), end; it != end; ++it) {
    ++sentences;
    const std::string var = "STEP_UNLESS=WORKGATE_SKIP_" + (*it)[1].str() + " ";
    const std::string said = (*it)[2].str();
    for (std::sregex_iterator n(said.begin(), said.end(), numbers); n != end; ++n) {
      const int first = std::stoi((*n)[1].str());
      const int last = (*n)[2].matched ? std::stoi((*n)[2].str()) : first;
      for (int i = first; i <= last; ++i) {
        ASSERT_TRUE(i >= 1 && static_cast<size_t>(i) <= steps.size()) << it->str();
        EXPECT_NE(steps[i - 1].line.find(var), std::string::npos)
            << "ci/test's header: WORKGATE_SKIP_" << (*it)[1] << " and step " << i << ", "
            << steps[i - 1].name;
      }
    }
  }
  EXPECT_GE(sentences, 4u);
}

TEST(DocsCiTest, TheDocsCiteCiTestsStepsAsTheyAre) {
  const std::vector<CiStep> steps = CiTestSteps(DocText("ci/test"));
  // "`ci/package-test` (step 10 of `ci/test`)": that step runs it.
  const std::regex cited(R"(`([^`]+)` \(step (\d+) of `ci/test`\))");
  size_t citations = 0, forms = 0;
  for (const auto& [path, text] : UserDocs()) {
    for (std::sregex_iterator it(text.begin(), text.end(), cited), end; it != end; ++it) {
      ++citations;
      const size_t n = std::stoul((*it)[2].str());
      ASSERT_TRUE(n >= 1 && n <= steps.size()) << path << ": " << it->str();
      EXPECT_NE(steps[n - 1].line.find((*it)[1].str()), std::string::npos)
          << path << ": " << it->str() << ", but step " << n << " is " << steps[n - 1].line;
    }
    forms += DocMatches(text, std::regex(R"(step \d+ of `ci/test`)")).size();
  }
  EXPECT_GE(citations, 2u) << "no page cites a step of ci/test: is this test reading them?";
  EXPECT_EQ(forms, citations) << "a page cites a step of ci/test in a form this test does not check";
  // The table of steps, in ci/test's order: each row's name begins its step's.
  const std::string section =
      DocSection(DocText(kDevelopmentPage), "## What `ci/test` runs, and how long it takes");
  const std::string table = section.substr(section.find("| step | what |"));
  // Its rows, not the header nor the |---| line.
  const std::vector<std::string> rows =
      DocMatches(table.substr(0, table.find("\n\n")), std::regex(R"(\n\| ([^|]+) \|)"));
  ASSERT_EQ(rows.size(), steps.size()) << kDevelopmentPage << "'s table of ci/test's steps";
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].name.rfind(rows[i], 0), 0u)
        << kDevelopmentPage << "'s row " << i + 1 << " (" << rows[i] << ") is not step " << i + 1
        << " of ci/test (" << steps[i].name << ")";
  }
}

// --- How many tests ------------------------------------------------------------

// The tests ctest lists for this build, all of them and those labelled
// fast (`ctest --show-only=json-v1`, one call for both).
struct CtestCounts {
  int all = -1, fast = -1;
};
CtestCounts CtestListed() {
  const std::string cmd = std::string("cd '") + WORKGATE_BUILD_DIR + "' && '" + WORKGATE_CTEST +
                          "' --show-only=json-v1 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  const nlohmann::json listed = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  CtestCounts counts;
  if (!listed.is_object() || !listed.contains("tests") || !listed["tests"].is_array()) {
    ADD_FAILURE() << cmd << " listed no tests:\n" << out.substr(0, 2000);
    return counts;
  }
  counts.all = static_cast<int>(listed["tests"].size());
  counts.fast = 0;
  for (const nlohmann::json& test : listed["tests"]) {
    for (const nlohmann::json& property : test.value("properties", nlohmann::json::array())) {
      if (property.value("name", "") != "LABELS" || !property.contains("value")) continue;
      for (const nlohmann::json& label : property["value"]) counts.fast += label == "fast";
    }
  }
  return counts;
}

// A page gives the number of tests as a reader needs it, rounded: "about
// 1,230 tests" (all that ctest lists) or "about 950 fast tests" (`ctest -L
// fast`). Each such figure is within a tenth of what ctest lists for this
// build, and no page states a number of tests in any other form, which this
// test could not check.
TEST(DocsTestCountTest, TheStatedNumbersOfTestsAreCtestsRounded) {
  const auto [all, fast] = CtestListed();
  ASSERT_GT(all, 0);
  ASSERT_GT(fast, 0);
  std::map<std::string, std::string> docs = UserDocs();
  docs[kArchitecture] = DocText(kArchitecture);
  const std::regex stated(R"(\babout\s+([\d,]+)\s+(fast\s+)?tests\b)");
  const std::regex any_count(R"(\b\d[\d,]*\s+(?:[a-zA-Z-]+\s+)?tests\b|\btests\s+\(\d[\d,]*\))");
  size_t of_all = 0, of_fast = 0;
  for (const auto& [path, text] : docs) {
    for (std::sregex_iterator it(text.begin(), text.end(), stated), end; it != end; ++it) {
      std::string digits = (*it)[1].str();
      digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
      const bool is_fast = (*it)[2].matched;
      const int actual = is_fast ? fast : all;
      ++(is_fast ? of_fast : of_all);
      EXPECT_LE(std::abs(std::stoi(digits) - actual), actual / 10)
          << path << ": \"" << it->str() << "\", but ctest lists " << actual
          << (is_fast ? " labelled fast" : "");
    }
    // Every other "N tests", "N fast tests", "(N tests)": not a figure this test checks.
    const std::string rest = std::regex_replace(text, stated, "");
    for (const std::string& count : DocMatches(rest, any_count)) {
      ADD_FAILURE() << path << ": \"" << count << "\": state a number of tests as \"about N "
                    << "tests\" or \"about N fast tests\", which this test checks against ctest";
    }
  }
  EXPECT_GE(of_all, 1u) << "no page says how many tests there are: is this test reading them?";
  EXPECT_GE(of_fast, 1u) << "no page says how many fast tests there are";
}

// --- Issue numbers -------------------------------------------------------------

// "issue N", "issues N and M", "Bug #N", "ticket-N", "(#N)" with N a number: a
// citation of a tracker the reader of the file cannot see.
const std::regex& IssueCitation() {
  static const std::regex citation(R"(\b(?:issue|bug|ticket)s?[ \t]*[#-]?[ \t]*\d+|\(#\d+\))",
                                   std::regex::icase);
  return citation;
}

TEST(DocsIssueNumbersTest, ThePatternFindsACitationInEveryForm) {
  // Built from pieces, so that this file itself cites nothing.
  const std::string n = "29";
  for (const std::string& cited : {"// why (issue " + n + ")", "# see Issue #" + n,
                                   "issues " + n + " and 30", "(bug-" + n + ")", "(#" + n + ")"}) {
    EXPECT_TRUE(std::regex_search(cited, IssueCitation())) << cited;
  }
  for (const std::string& not_cited :
       {std::string("the issue's figure"), std::string("repos/o/p/issues/") + n + "/comments",
        std::string("pull request #") + n, std::string("svc #0"), std::string("debug 3")}) {
    EXPECT_FALSE(std::regex_search(not_cited, IssueCitation())) << not_cited;
  }
}

// Every text file of the source tree (build trees and hidden directories
// left out, but .ci/), by path relative to it.
std::map<std::string, std::string> TreeTexts() {
  std::map<std::string, std::string> files = DocSources("", {""});
  files.merge(DocSources(".ci", {""}));
  std::erase_if(files, [](const auto& file) { return file.second.find('\0') != std::string::npos; });
  return files;
}

// Source comments, scripts and pages give a reason in words: an issue
// number sends the reader to a tracker that a copy of the tree does not
// carry, and that may be gone.
TEST(DocsIssueNumbersTest, NoFileOfTheTreeCitesAnIssueNumber) {
  const std::map<std::string, std::string> files = TreeTexts();
  EXPECT_GE(files.size(), 200u) << "too few files: is this test reading the tree?";
  EXPECT_EQ(files.count("src/decision/decision.cc") + files.count("ci/bench-vgcount"), 2u);
  for (const auto& [path, text] : files) {
    std::istringstream lines(text);
    size_t number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      // The pattern only on lines that hold one of its words: std::regex
      // over every position of the whole tree takes seconds.
      std::string lower = line;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (lower.find("issue") == std::string::npos && lower.find("bug") == std::string::npos &&
          lower.find("ticket") == std::string::npos && lower.find("(#") == std::string::npos) {
        continue;
      }
      for (const std::string& cited : DocMatches(line, IssueCitation())) {
        ADD_FAILURE() << path << ":" << number << ": \"" << cited
                      << "\": say the reason in words, not the issue that gave it";
      }
    }
  }
}

// --- Demonstrations ------------------------------------------------------------

// An output in the documents that says which backend counted it ("counted
// with vgcount" right after the block) names that backend as its profiler
// too.
TEST(DocsDemoTest, ADemosExplanationNamesTheBackendThatCountedIt) {
  size_t checked = 0;
  std::vector<DocCodeBlock> blocks;
  for (const auto& [path, text] : UserDocs()) {
    for (DocCodeBlock& block : DocCodeBlocks(text)) blocks.push_back(std::move(block));
  }
  for (const DocCodeBlock& block : blocks) {
    std::smatch counted;
    if (!std::regex_search(block.after, counted, std::regex(R"(counted with (\w+))"))) continue;
    for (const std::string& tool : DocMatches(block.code, std::regex(R"(\((\w+), self cost\))"))) {
      ++checked;
      EXPECT_EQ(tool, counted[1].str()) << block.code;
    }
  }
  EXPECT_GE(checked, 1u);
}

// vgcount's report format, as the tool writes it.
TEST(DocsVgcountTest, TheReportVersionIsTheTools) {
  std::set<std::string> written;
  for (const auto& [path, text] : DocSources("tools/vgcount", {".c"})) {
    for (const std::string& v : DocMatches(text, std::regex(R"re("version: (\d+)\\npid: )re"))) {
      written.insert(v);
    }
  }
  ASSERT_EQ(written.size(), 1u) << "tools/vgcount: the report's version line";
  EXPECT_EQ(DocMatches(DocText(kVgcountReadme), std::regex(R"(\n    version: (\d+)\n    pid: )")),
            std::vector<std::string>{*written.begin()});
}

// --- Links ---------------------------------------------------------------------

// The anchor GitHub gives a heading: its text as rendered (code spans keep
// their content, markup characters go), lowercased, every character that
// is not a letter, a digit, a space, '-' or '_' removed, spaces made '-'.
// Bytes of UTF-8 characters are kept, as GitHub keeps letters beyond ASCII.
std::string GithubSlug(const std::string& heading) {
  std::string slug;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) {
      slug += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      slug += '-';
    }
  }
  return slug;
}

// `text` with every code span and fenced block blanked (their brackets are
// no links), line breaks kept so that line numbers stay right.
std::string WithoutCode(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  bool fenced = false;
  for (std::string line; std::getline(lines, line);) {
    const bool fence = line.rfind("```", 0) == 0 || line.rfind("~~~", 0) == 0;
    if (fence) fenced = !fenced;
    out += (fence || fenced) ? std::string() : line;
    out += '\n';
  }
  // A code span: a run of n backticks up to the next run of exactly n.
  for (size_t i = 0; i < out.size();) {
    if (out[i] != '`') {
      ++i;
      continue;
    }
    size_t n = out.find_first_not_of('`', i) - i;
    size_t close = i + n;
    for (;;) {
      close = out.find('`', close);
      if (close == std::string::npos) break;
      const size_t run = out.find_first_not_of('`', close) - close;
      if (run == n) break;
      close += run;
    }
    if (close == std::string::npos) {
      i += n;  // no span: the backticks are text
      continue;
    }
    for (size_t j = i; j < close + n; ++j) {
      if (out[j] != '\n') out[j] = ' ';
    }
    i = close + n;
  }
  return out;
}

// The anchors of a Markdown text: its ATX headings' slugs, numbered as
// GitHub numbers repeats (x, x-1, x-2), and HTML ids and names.
std::set<std::string> DocAnchors(const std::string& text) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  std::istringstream lines(text);
  bool fenced = false;
  const std::regex heading(R"(^#{1,6}\s+(.*?)\s*#*\s*$)");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0 || line.rfind("~~~", 0) == 0) fenced = !fenced;
    std::smatch m;
    if (fenced || !std::regex_match(line, m, heading)) continue;
    // The rendered text of a link is its text: "[a](b)" reads "a".
    const std::string rendered = std::regex_replace(m[1].str(), std::regex(R"(\[([^\]]*)\]\([^)]*\))"), "$1");
    const std::string slug = GithubSlug(rendered);
    const int n = seen[slug]++;
    anchors.insert(n == 0 ? slug : slug + "-" + std::to_string(n));
  }
  for (const std::string& id :
       DocMatches(text, std::regex(R"re(<[a-zA-Z][^>]*\s(?:id|name)="([^"]+)")re"))) {
    anchors.insert(id);
  }
  return anchors;
}

TEST(DocsLinksTest, GithubSlugsAreGithubs) {
  EXPECT_EQ(GithubSlug("Where workgate builds"), "where-workgate-builds");
  EXPECT_EQ(GithubSlug("What `ci/test` runs, and how long it takes"),
            "what-citest-runs-and-how-long-it-takes");
  EXPECT_EQ(GithubSlug("Exit codes (stable, tested end to end)"),
            "exit-codes-stable-tested-end-to-end");
  EXPECT_EQ(GithubSlug("Stability: one count is exact only for a program that repeats"),
            "stability-one-count-is-exact-only-for-a-program-that-repeats");
  EXPECT_EQ(GithubSlug("Bundled workloads (`workloads/`, see its README)"),
            "bundled-workloads-workloads-see-its-readme");
  EXPECT_EQ(DocAnchors("# A\n```\n# not a heading\n```\n## A\n### B ###\n"),
            (std::set<std::string>{"a", "a-1", "b"}));
}

// Every relative link of every Markdown file in the repository leads
// somewhere: its file exists, and its #fragment is an anchor of the page it
// names (or of its own page).
TEST(DocsLinksTest, EveryRelativeLinkResolves) {
  const std::map<std::string, std::string> files = DocSources("", {".md"});
  ASSERT_GE(files.size(), 5u);
  // "[text](target)", "![alt](target "title")" and "[label]: target".
  const std::regex inline_link(R"(!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\))");
  const std::regex reference(R"((?:^|\n) {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$))");
  std::map<std::string, std::set<std::string>> anchors;
  size_t links = 0, fragments = 0;
  for (const auto& [path, text] : files) {
    const std::string prose = WithoutCode(text);
    for (const std::regex* pattern : {&inline_link, &reference}) {
      for (std::sregex_iterator it(prose.begin(), prose.end(), *pattern), end; it != end; ++it) {
        const std::string target = (*it)[1].str();
        const size_t line = std::count(prose.begin(), prose.begin() + it->position(), '\n') + 1;
        const std::string where = path + ":" + std::to_string(line) + ": " + target;
        if (std::regex_search(target, std::regex("^[a-zA-Z][a-zA-Z0-9+.-]*:"))) continue;
        ++links;
        const size_t hash = target.find('#');
        const std::string file = target.substr(0, hash);
        const std::string fragment = hash == std::string::npos ? "" : target.substr(hash + 1);
        std::string resolved = path;
        if (!file.empty()) {
          resolved = (fs::path(path).parent_path() / file).lexically_normal().string();
          if (!resolved.empty() && resolved.back() == '/') resolved.pop_back();
          if (!fs::exists(SourcePath(resolved))) {
            ADD_FAILURE() << where << ": there is no " << resolved;
            continue;
          }
        }
        if (hash == std::string::npos) continue;
        // A fragment of a page that is not Markdown (a source line) is not checked.
        if (resolved.size() < 3 || resolved.compare(resolved.size() - 3, 3, ".md") != 0) continue;
        ++fragments;
        if (anchors.count(resolved) == 0) anchors[resolved] = DocAnchors(DocText(resolved));
        EXPECT_EQ(anchors[resolved].count(fragment), 1u)
            << where << ": " << resolved << " has no heading whose anchor is #" << fragment;
      }
    }
  }
  EXPECT_GE(links, 20u) << "too few links found: is this test reading the pages?";
  EXPECT_GE(fragments, 5u);
}

}  // namespace
}  // namespace workgate
