#include "counter/valgrind_counter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string_view>
#include <vector>

#include "counter/debug_view.h"
#include "counter/profile_lines.h"
#include "counter/source_lines.h"
#include "counter/valgrind_messages.h"
#include "counter/vgcount_channel.h"
#include "counter/vgcount_install.h"
#include "explain/callgrind_profile.h"
#include "identity/shared_libraries.h"
#include "machine/system_info.h"
#include "machine/valgrind_version.h"
#include "model/simulated_events.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/paths.h"

namespace workgate {

namespace fs = std::filesystem;

namespace {

bool ParseUnsigned(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return false;  // overflow
    v = next;
  }
  *out = v;
  return true;
}

std::vector<std::string> SplitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

}  // namespace

bool ParseVgcountTotal(const std::string& text, uint64_t* total, std::string* err) {
  std::istringstream in(text);
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    // vgcount's own verdict (tools/vgcount/vgcount_requests.c): on the
    // channel it came as a message already; in a file, here.
    if (line.rfind("invalid:", 0) == 0) {
      *err = fmt::format("vgcount found its count untrustworthy: '{}'", line.substr(0, 200));
      return false;
    }
    if (!found && line.rfind("instructions:", 0) == 0) {
      auto words = SplitWords(line.substr(13));
      if (words.size() != 1 || !ParseUnsigned(words[0], total)) {
        *err = fmt::format("vgcount output has a malformed total: '{}'", line);
        return false;
      }
      found = true;
    }
  }
  if (!found) *err = "vgcount output has no 'instructions:' line (truncated?)";
  return found;
}

bool ParseVgcountSimulated(const std::string& text, std::map<std::string, uint64_t>* events,
                           bool* listed, std::string* err) {
  // The access each miss of tools/vgcount/vgcount_sim.c is one of: a miss
  // the tool counted is never more than the accesses.
  static constexpr std::pair<std::string_view, std::string_view> kMissOf[] = {
      {"D1mr", "Dr"},   {"D1mw", "Dw"},   {"ILmr", "I1mr"}, {"DLmr", "D1mr"},
      {"DLmw", "D1mw"}, {"Bcm", "Bc"},    {"Bim", "Bi"}};
  *listed = false;
  events->clear();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("simulated:", 0) != 0) continue;
    const auto malformed = [&] {
      *err =
          fmt::format("vgcount output has a malformed simulated line: '{}'", line.substr(0, 200));
      return false;
    };
    if (*listed) return malformed();
    *listed = true;
    const std::vector<std::string> words = SplitWords(line.substr(10));
    if (words.size() != kSimulatedEventCount) return malformed();
    for (const std::string& word : words) {
      const size_t eq = word.find('=');
      uint64_t n = 0;
      if (eq == std::string::npos || !ParseUnsigned(word.substr(eq + 1), &n)) return malformed();
      if (!events->emplace(word.substr(0, eq), n).second) return malformed();
    }
    // Each of the model's events once, and no other name.
    if (!SimulatedCostsOf(*events)) return malformed();
    for (const auto& [miss, of] : kMissOf) {
      if (events->at(std::string(miss)) > events->at(std::string(of))) return malformed();
    }
  }
  return true;
}

bool ParseVgcountInputs(const std::string& text, VgcountInputs* inputs, std::string* err) {
  // Far more than the tool's kinds: a line past this is not the tool's.
  constexpr size_t kMaxKinds = 32;
  std::istringstream in(text);
  std::string line;
  bool saw[2] = {false, false};  // the pinned line, the unpinned line
  while (std::getline(in, line)) {
    const bool pinned = line.rfind("pinned:", 0) == 0;
    if (!pinned && line.rfind("unpinned:", 0) != 0) continue;
    saw[pinned ? 0 : 1] = true;
    auto& into = pinned ? inputs->pinned : inputs->unpinned;
    for (const std::string& word : SplitWords(line.substr(line.find(':') + 1))) {
      const size_t eq = word.find('=');
      uint64_t n = 0;
      const std::string name = word.substr(0, eq);
      const bool name_ok = !name.empty() && name.size() <= 32 &&
                           std::all_of(name.begin(), name.end(),
                                       [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
      if (eq == std::string::npos || !name_ok || !ParseUnsigned(word.substr(eq + 1), &n) ||
          into.size() >= kMaxKinds) {
        *err = fmt::format("vgcount output has a malformed input list: '{}'", line.substr(0, 200));
        return false;
      }
      into[name] += n;
    }
  }
  inputs->listed = saw[0] && saw[1];
  return true;
}

bool ParseVgcountInputRecords(const std::string& text, std::vector<InputRecord>* records,
                              std::string* why) {
  constexpr std::string_view kPrefix = "input: ";
  bool complete = true, said = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = std::string_view(text).substr(start, end - start);
    start = end + 1;
    if (line.substr(0, kPrefix.size()) != kPrefix) continue;
    const std::string_view record_text = line.substr(kPrefix.size());
    if (record_text == "overflow") {
      complete = false;
      continue;
    }
    InputRecord record;
    std::string bad;
    if (!ParseInputRecord(record_text, &record, &bad)) {
      if (!said) {
        *why = fmt::format("a malformed input line ({}): '{}'", bad, line.substr(0, 200));
        said = true;
      }
      complete = false;
      continue;
    }
    records->push_back(std::move(record));
  }
  return complete;
}

bool TotalsRootFirst(const TracedTree& tree, std::vector<uint64_t>* totals, std::string* err) {
  // The launched process's parent is workgate's supervisor (or, in a PID
  // namespace, its init): not run by Valgrind, and alive until the tree is
  // gone, so its pid stays its own. Every other process was started by one
  // that Valgrind ran and that left a log under its pid, so the test is exact.
  std::vector<long long> roots;
  for (const auto& [pid, process] : tree) {
    if (!process.parent_pid) {
      // Killed as it was forked, before its banner: it counted nothing.
      if (!process.instructions) continue;
      *err = fmt::format("Valgrind's log of process {} names no parent", pid);
      return false;
    }
    if (!tree.count(*process.parent_pid)) roots.push_back(pid);
  }
  if (roots.size() != 1) {
    *err = roots.empty() ? std::string("no process of the run has its parent outside it")
                         : fmt::format(
                               "processes {} have no parent in the run, so which "
                               "one was launched is unknown",
                               fmt::join(roots, ", "));
    return false;
  }
  const TracedProcess& root = tree.at(roots[0]);
  if (!root.instructions) {
    *err = fmt::format("the launched process (pid {}) wrote no count", roots[0]);
    return false;
  }
  totals->assign(1, *root.instructions);
  for (const auto& [pid, process] : tree) {
    if (pid != roots[0] && process.instructions) totals->push_back(*process.instructions);
  }
  return true;
}

const ValgrindInstall& FindValgrind() {
  static const ValgrindInstall install = [] {
    const ValgrindLookup& lookup = LookUpValgrind();
    ValgrindInstall v;
    // A valgrind whose --version fails is as good as none.
    if (lookup.path.value && lookup.version.value) {
      v.path = *lookup.path.value;
      v.version = *lookup.version.value;
    } else {
      v.missing = lookup.path.value ? lookup.version.note : lookup.path.note;
    }
    return v;
  }();
  return install;
}

bool HoldsVgcountTool(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind("vgcount-", 0) == 0) return true;
  }
  return false;
}

std::string FindVgcountLib() {
  // WORKGATE_VGCOUNT_LIB (a test's own layout) is checked like the
  // companion: a directory without the tool would make `auto` pick vgcount
  // and every run then fail, instead of counting with callgrind.
  const char* override_dir = getenv("WORKGATE_VGCOUNT_LIB");
  std::string dir = override_dir && *override_dir ? override_dir : FindCompanion("valgrind-lib");
  return !dir.empty() && HoldsVgcountTool(dir) ? dir : "";
}

ValgrindCounter::ValgrindCounter(Tool tool) : tool_(tool) {
  if (FindValgrind().path.empty()) throw EnvironmentError(FindValgrind().missing);
  if (tool_ == Tool::kVgcount) {
    const VgcountStatus vgcount = CheckVgcount();
    if (!vgcount.unusable.empty()) throw EnvironmentError(vgcount.unusable);
    vgcount_lib_ = vgcount.lib;
  }
}

Backend ValgrindCounter::backend() const {
  return tool_ == Tool::kCallgrind ? Backend::kCallgrind : Backend::kVgcount;
}

std::string ValgrindCounter::tool_file() const {
  const std::string dir =
      vgcount_lib_.empty() ? ValgrindToolDirectory(FindValgrind().path) : vgcount_lib_;
  const std::string file = dir + "/" + name() + "-" + ValgrindPlatform() + "-linux";
  std::error_code ec;
  return fs::is_regular_file(file, ec) ? file : "";
}

namespace {

// Valgrind makes its stand-ins for /proc/self/cmdline and /proc/self/auxv in
// $TMPDIR (valgrind_proc_<pid>_cmdline_<hex>, unlinked at once but kept
// open), named from its pid and parent pid. Every workload runs as pid 2 of
// its own PID namespace, so in a shared /tmp concurrent workloads would race
// for the same names (Valgrind gives up after 11 clashes). It reads TMPDIR
// from the environment it hands on to the program, so the value must be the
// same on every run and for both sides: `<cwd>/tmp`, in the workload's
// private directory, whose path is fixed per workload. A launch that keeps
// the caller's directory (--as-is, no cwd) or sets TMPDIR itself keeps its
// own. Returns the directory to remove after the run ("" for none), as this
// machine has it (LaunchSpec::cwd_source).
std::string UsePrivateTmpdir(LaunchSpec* spec) {
  if (spec->cwd.empty() || spec->env.count("TMPDIR")) return "";
  const std::string tmp = spec->cwd + "/tmp";
  spec->env["TMPDIR"] = tmp;
  const std::string host = HostPath(*spec, tmp);
  if (mkdir(host.c_str(), 0700) == 0) return host;
  struct stat st;
  if (errno == EEXIST && lstat(host.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return "";
  throw EnvironmentError(
      fmt::format("cannot create Valgrind's temporary directory {}: {}", tmp, strerror(errno)));
}

// Removes a directory with everything in it when it goes out of scope.
struct RemovedAtEnd {
  std::string path;
  ~RemovedAtEnd() {
    if (!path.empty()) RemoveTree(path);
  }
};

// What one bounded read may take: Valgrind's log of a run (the program can
// make it print a message per error it makes) and a vgcount output (a few
// lines, the command line, and with --vgcount-inputs up to 8 MiB of
// "input:" lines, VGC_INPUTS_MAX_BYTES in tools/vgcount/vgcount_inputs.c).
// Callgrind outputs are parsed as they are read, with no bound.
constexpr size_t kMaxLogBytes = 16 << 20;
constexpr size_t kMaxVgcountOutputBytes = 16 << 20;

// Valgrind's own errors from every log, labelled, for a run's error message,
// and what to do about an instruction it could not decode.
std::string QuotedValgrindErrors(const std::vector<fs::path>& logs, const std::string& tool) {
  std::vector<std::string> errors;
  std::string advice;
  for (const auto& log : logs) {
    // A log too large to read only loses its quotation: the run already failed.
    auto text = ReadFile(log.string(), kMaxLogBytes);
    if (!text) continue;
    for (std::string& e : ValgrindErrorsIn(*text)) {
      if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(e);
    }
    if (advice.empty()) advice = ToolFailureAdvice(*text, tool);
  }
  if (errors.empty()) return advice;
  return fmt::format("; Valgrind's own error{}: {}{}", errors.size() == 1 ? "" : "s",
                     fmt::join(errors, " | "), advice);
}

// The files a run left in its private directory: the per-process outputs
// ("PREFIX<pid>" or "PREFIX<pid>.<dump>"), vgcount's per-process profiles
// and Valgrind's logs, each sorted.
struct RunFiles {
  std::vector<fs::path> outputs;
  std::vector<fs::path> profiles;
  std::vector<fs::path> logs;
};

constexpr const char* kLogPrefix = "valgrind.log.";
// vgcount's per-function profile of each process, in callgrind's format.
constexpr const char* kVgcountProfilePrefix = "vgcount.profile.";
// The copies (of `kind`) of the detached debug files a run that reads them
// takes in their place (counter/debug_view.h): those of the program, of the
// objects the loader would map for it, and of those earlier runs opened.
std::vector<FileInPlace> DebugFilesInPlace(const LaunchSpec& spec, DebugFileCopies::Kind kind) {
  DebugFileCopies* copies = SharedDebugFileCopies();
  if (copies == nullptr || !spec.new_pid_namespace) return {};
  std::string program = spec.exec_path.empty() ? spec.argv[0] : spec.exec_path;
  if (program.find('/') == std::string::npos) {
    const auto path = spec.env.find("PATH");
    program = SearchPath(program, path != spec.env.end() ? path->second : "");
  } else if (program[0] != '/') {
    program = spec.cwd + "/" + program;
  }
  std::vector<std::string> objects;
  if (!program.empty()) {
    program = HostPath(spec, program);
    objects.push_back(program);
    std::vector<LoadedObject> loaded;
    std::string ignored;
    if (ResolveSharedLibraries(program, LoaderInputsOf(spec.env), &loaded, &ignored)) {
      for (const LoadedObject& object : loaded) {
        if (!object.path.empty()) objects.push_back(object.path);
      }
    }
  }
  return copies->For(objects, kind);
}

// The line tables of an object whose DWARF lies in a detached debug file
// (/usr/lib/debug: the system's, never a build's), read once per process
// from the decompressed copy where there is one (counter/source_lines.h);
// nullptr for any other object, whose lines Valgrind read in the run.
const ObjectLines* DetachedLines(const std::string& object) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<ObjectLines>> cache;
  struct stat st;
  if (stat(object.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  const std::string key = fmt::format("{}\n{}:{}:{}:{}", object, st.st_dev, st.st_ino, st.st_size,
                                      st.st_mtim.tv_nsec + st.st_mtim.tv_sec * 1000000000LL);
  std::lock_guard lock(mu);
  if (const auto found = cache.find(key); found != cache.end()) return found->second.get();
  std::unique_ptr<ObjectLines>& lines = cache[key];
  DebugFileCopies* copies = SharedDebugFileCopies();
  const std::string debug = copies != nullptr ? copies->DebugFileOf(object) : DetachedDebugFile(object);
  if (debug.empty()) return nullptr;
  std::string decompressed = copies != nullptr ? copies->CopyOf(debug) : "";
  auto opened = std::make_unique<ObjectLines>();
  std::string why;
  if (!opened->OpenDetached(object, decompressed.empty() ? debug : decompressed, &why)) {
    return nullptr;
  }
  lines = std::move(opened);
  return lines.get();
}

// Names the lines vgcount kept by address in each of `profiles`, in place
// (counter/profile_lines.h): the objects' paths are the run's, found on this
// machine through `run_spec`'s bound directory.
bool NameAddressLines(const std::vector<fs::path>& profiles, const LaunchSpec& run_spec,
                      std::string* err) {
  for (const fs::path& profile : profiles) {
    {
      std::ifstream scan(profile);
      if (!HasAddressLines(scan)) continue;
    }
    std::map<std::string, const ObjectLines*> objects;
    auto lookup = [&](const std::string& object, uint64_t address, std::string* file,
                      uint32_t* line) {
      auto [it, added] = objects.try_emplace(object, nullptr);
      if (added) it->second = DetachedLines(HostPath(run_spec, object));
      return it->second != nullptr && it->second->Lookup(address, file, line);
    };
    const fs::path named = profile.string() + ".named";
    std::ifstream in(profile);
    std::ofstream out(named);
    if (!in || !out || !NameProfileLines(in, lookup, out, err) || !out.flush()) {
      if (err->empty()) *err = "cannot be read or rewritten";
      *err = fmt::format("vgcount's profile {}: {}", profile.filename().string(), *err);
      return false;
    }
    out.close();
    std::error_code ec;
    fs::rename(named, profile, ec);
    if (ec) {
      *err = fmt::format("vgcount's profile {}: {}", profile.filename().string(), ec.message());
      return false;
    }
  }
  return true;
}

// Callgrind's simulation for CountOptions::simulate: its cache and branch
// predictor models on one fixed cache geometry (size, associativity, line
// size: 32 KiB 8-way first-level caches and an 8 MiB 16-way last level, all
// with 64-byte lines), docs/counting.md, "Simulated events".
constexpr const char* kCallgrindSimulation[] = {
    "--cache-sim=yes",       "--branch-sim=yes",      "--I1=32768,8,64",
    "--D1=32768,8,64",       "--LL=8388608,16,64",
};

// The pid in a file's name: PREFIX<pid>, or PREFIX<pid>.<n> for a dump.
bool PidInName(const fs::path& file, const std::string& prefix, long long* pid, std::string* err) {
  const std::string name = file.filename().string();
  if (name.rfind(prefix, 0) == 0) {
    const std::string rest = name.substr(prefix.size());
    const size_t dot = rest.find('.');
    uint64_t number = 0, dump = 0;
    if (ParseUnsigned(rest.substr(0, dot), &number) && number <= INT32_MAX &&
        (dot == std::string::npos || ParseUnsigned(rest.substr(dot + 1), &dump))) {
      *pid = static_cast<long long>(number);
      return true;
    }
  }
  *err = fmt::format("{}: not a name Valgrind gives ({}<pid>)", name, prefix);
  return false;
}

// For vgcount with a channel, the outputs and profiles are the channel's
// (VgcountChannel), not these.
RunFiles ListRunFiles(const std::string& dir, const std::string& prefix) {
  RunFiles files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(prefix, 0) == 0) files.outputs.push_back(entry.path());
    if (file.rfind(kVgcountProfilePrefix, 0) == 0) files.profiles.push_back(entry.path());
    if (file.rfind(kLogPrefix, 0) == 0) files.logs.push_back(entry.path());
  }
  std::sort(files.outputs.begin(), files.outputs.end());
  std::sort(files.profiles.begin(), files.profiles.end());
  std::sort(files.logs.begin(), files.logs.end());
  return files;
}

// Copies the outputs into `keep_dir` for explanations and the stability
// check. False with `*err` naming the file when one cannot be kept: a
// profile missing there would have them explain a tree without one of its
// processes, so the run gives up its count instead. The workload can cause
// that (a directory of its own where a profile should go), so it is the
// side's failure, not workgate's, unless the disk is full (FailIfDiskFull).
// The copies already made are removed, so no half set is left to read.
bool KeepProfiles(const std::vector<fs::path>& outputs, const std::string& keep_dir,
                  std::string* err) {
  std::error_code ec;
  fs::create_directories(keep_dir, ec);
  if (ec) {
    *err = fmt::format("cannot create {} to keep the profiles: {}", keep_dir, ec.message());
    return false;
  }
  std::vector<fs::path> kept;
  for (const auto& out : outputs) {
    const fs::path to = fs::path(keep_dir) / out.filename();
    fs::copy_file(out, to, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      *err = fmt::format("cannot keep the profile {}: {}", to.string(), ec.message());
      for (const auto& copy : kept) fs::remove(copy, ec);
      return false;
    }
    kept.push_back(to);
  }
  return true;
}

// Why the run did work Valgrind did not count, or "": a program it would
// not trace (UntracedExecutablesIn), named from the logs.
std::string UntracedPrograms(const std::vector<fs::path>& logs) {
  std::vector<std::string> programs;
  for (const auto& log : logs) {
    auto text = ReadFile(log.string(), kMaxLogBytes);
    if (!text) continue;
    for (std::string& p : UntracedExecutablesIn(*text)) {
      if (std::find(programs.begin(), programs.end(), p) == programs.end()) programs.push_back(p);
    }
  }
  if (programs.empty()) return "";
  return fmt::format(
      "uncounted work: the workload ran {} {}, a setuid, setgid or setcap program, which "
      "Valgrind does not trace: its work would not be counted",
      programs.size() == 1 ? "the program" : "the programs", fmt::join(programs, ", "));
}

// A process whose log has a banner but that wrote no count did not run to
// its end under Valgrind: it was killed, or it replaced itself with a
// program Valgrind does not trace, which then ran uncounted. The missing
// count is the signal to trust, not the log's warning, which the program
// can rewrite. Only for a tree that left nothing running: a process killed
// at the end writes no count either, and LeftoverError says so.
std::string UncountedProcess(const TracedTree& tree) {
  for (const auto& [pid, process] : tree) {
    if (process.parent_pid && (!process.instructions || process.incomplete)) {
      return fmt::format(
          "uncounted work: process {} (a child of {}) wrote no count: it was killed before it "
          "ended, or it ran a program Valgrind does not trace, so what it did was not counted",
          pid, *process.parent_pid);
    }
  }
  return "";
}

// The simulated events of callgrind's outputs summed into `*events` by name;
// their instructions must add up to `counted`, the run's count.
bool SumSimulated(const std::vector<fs::path>& outputs, uint64_t counted,
                  std::map<std::string, uint64_t>* events, std::string* err) {
  SimulatedCosts sum = {};
  uint64_t instructions = 0;
  for (const fs::path& output : outputs) {
    std::ifstream in(output, std::ios::binary);
    uint64_t total = 0;
    SimulatedCosts costs = {};
    if (!in || !ParseCallgrindSimulatedTotals(in, output.filename().string(), &total, &costs, err)) {
      if (!in) *err = output.filename().string() + ": cannot be opened";
      return false;
    }
    instructions += total;
    for (size_t i = 0; i < kSimulatedEventCount; ++i) {
      if (__builtin_add_overflow(sum[i], costs[i], &sum[i])) {
        *err = "the run's simulated events exceed 2^64-1";
        return false;
      }
    }
  }
  if (instructions != counted) {
    *err = fmt::format("callgrind's simulated run adds up to {} instructions, its count is {}",
                       instructions, counted);
    return false;
  }
  *events = SimulatedCostsByName(sum);
  return true;
}

// What the execs of a run's processes did, for the report: the work before
// each is counted with the rest (vgcount sends it before the exec runs).
std::vector<std::string> ExecNotes(const std::map<int, VgcountProcess>& processes,
                                   const TracedTree& tree) {
  std::vector<std::string> notes;
  for (const auto& [pid, process] : processes) {
    for (const VgcountExec& exec : process.execs) {
      std::optional<uint64_t> before;
      const auto found = tree.find(pid);
      if (found != tree.end() && exec.part < static_cast<int>(process.counts.size())) {
        uint64_t total = 0;
        std::string ignored;
        if (ParseVgcountTotal(process.counts[exec.part].bytes, &total, &ignored)) before = total;
      }
      notes.push_back(fmt::format(
          "process {} ran {} by exec{}; what it ran before the exec is counted too", pid, exec.path,
          before ? fmt::format(" after {} instructions", *before) : ""));
      if (notes.size() == 8) return notes;  // a program that execs in a loop says enough
    }
  }
  return notes;
}

}  // namespace

LaunchSpec ValgrindCounter::UnderValgrind(const LaunchSpec& spec, const std::string& dir,
                                          const CountOptions& options, int channel_fd) const {
  const std::string prefix = OutputPrefix();
  LaunchSpec run_spec = spec;
  // --vgdb=no: no gdb server, so no FIFOs in $TMPDIR, which a killed run
  // (timeout) would leave behind.
  run_spec.argv = {FindValgrind().path, "--tool=" + name(), "--trace-children=yes", "--vgdb=no",
                   "--log-file=" + dir + "/valgrind.log.%p"};
  if (tool_ == Tool::kCallgrind) {
    run_spec.argv.push_back("--callgrind-out-file=" + dir + "/" + prefix + "%p");
    // A child made by fork() starts with a copy of its parent's counters;
    // dumping (and zeroing) them just before each fork keeps every
    // instruction in exactly one file ("callgrind.out.PID.N" for the dumps).
    run_spec.argv.push_back("--dump-before=fork");
    if (options.simulate) {
      // One fixed machine, never the host's (callgrind would read its caches
      // from CPUID): the figures repeat on every runner like the count.
      run_spec.argv.insert(run_spec.argv.end(), std::begin(kCallgrindSimulation),
                           std::end(kCallgrindSimulation));
    }
  } else {
    // Outputs travel on the channel when there is one (Run), else as files.
    if (channel_fd >= 0) {
      run_spec.argv.push_back("--vgcount-channel-fd=" + std::to_string(channel_fd));
      run_spec.inherit_fds.push_back(channel_fd);
      run_spec.pin_fd_limit = true;
    }
    run_spec.argv.push_back("--vgcount-out-file=" + dir + "/" + prefix + "%p");
    // The per-function profile comes from the same run, at a few percent of
    // its cost (tools/vgcount/README.md), when someone keeps it.
    if (!options.keep_profiles_dir.empty()) {
      run_spec.argv.push_back("--vgcount-profile-file=" + dir + "/" + kVgcountProfilePrefix + "%p");
    } else {
      // Without a profile vgcount names no function and no line, yet
      // Valgrind would read the detached debug information of every object
      // the run maps (libc6-dbg: glibc's whole DWARF), about half of a short
      // run's time. Hidden in a contained run; the count is the same.
      run_spec.hidden_dirs.push_back(kDetachedDebugInfoDir);
    }
    // Time and entropy are pinned inside the tool (vgcount_pin.c) unless
    // the run is to be as it is.
    if (!options.pin) run_spec.argv.push_back("--vgcount-pin=no");
    // Branch predictors and caches on vgcount's own model (vgcount_sim.c).
    if (options.simulate) run_spec.argv.push_back("--vgcount-sim=yes");
    // What each process reads from the file system, for the result store
    // (counter/input_record.h; CountedRun::inputs).
    run_spec.argv.push_back("--vgcount-inputs=yes");
    run_spec.env["VALGRIND_LIB"] = vgcount_lib_;
    // Valgrind loads the tool from there inside the workload's namespace,
    // whose fresh /tmp would hide a workgate installed under it.
    run_spec.readonly_dirs.push_back(vgcount_lib_);
  }
  // A run that reads the detached debug files (for a profile's names and
  // lines) reads copies of them (counter/debug_view.h): callgrind's
  // decompressed, so that no run inflates them again.
  if (tool_ == Tool::kCallgrind) {
    run_spec.files_in_place = DebugFilesInPlace(spec, DebugFileCopies::Kind::kDecompressed);
  } else if (!options.keep_profiles_dir.empty()) {
    // vgcount reads the system's debug files for their symbols only, and
    // leaves the lines it then lacks by address, which are named after the
    // run (NameAddressLines): each object's line tables are read once per
    // workgate, not in every run.
    run_spec.files_in_place = DebugFilesInPlace(spec, DebugFileCopies::Kind::kSymbols);
    run_spec.argv.push_back("--vgcount-lines-by-address=yes");
  }
  if (options.region) run_spec.argv.push_back("--collect-atstart=no");
  run_spec.argv.push_back(spec.exec_path.empty() ? spec.argv[0] : spec.exec_path);
  run_spec.argv.insert(run_spec.argv.end(), spec.argv.begin() + 1, spec.argv.end());
  run_spec.exec_path.clear();
  return run_spec;
}

bool ValgrindCounter::ReadTotal(const fs::path& output, uint64_t* total, VgcountInputs* inputs,
                                std::vector<InputRecord>* records, bool* records_complete,
                                std::map<std::string, uint64_t>* simulated, bool* simulated_listed,
                                std::string* err) const {
  // Messages name the file, not workgate's temporary directory.
  const std::string file = output.filename().string();
  if (tool_ == Tool::kCallgrind) {
    std::ifstream in(output, std::ios::binary);
    if (!in) {
      *err = file + ": cannot be opened";
      return false;
    }
    return ParseCallgrindTotal(in, file, total, err);
  }
  std::string text, why;
  if (!ReadRegularFile(output.string(), kMaxVgcountOutputBytes, &text, &why)) {
    *err = file + " " + why;
    return false;
  }
  if (!ParseVgcountTotal(text, total, err) || !ParseVgcountInputs(text, inputs, err) ||
      !ParseVgcountSimulated(text, simulated, simulated_listed, err)) {
    *err = file + ": " + *err;
    return false;
  }
  // A record that does not parse leaves the inputs unknown, not the count.
  std::string malformed;
  *records_complete = ParseVgcountInputRecords(text, records, &malformed);
  return true;
}

namespace {

// Adds `events` to `*sum`, event by event; false with `*err` where a sum
// would pass 2^64-1 (a forged report, never a real run).
bool AddSimulatedEvents(const std::map<std::string, uint64_t>& events,
                        std::map<std::string, uint64_t>* sum, std::string* err) {
  for (const auto& [event, n] : events) {
    uint64_t& total = (*sum)[event];
    if (__builtin_add_overflow(total, n, &total)) {
      *err = "the run's simulated events exceed 2^64-1";
      return false;
    }
  }
  return true;
}

}  // namespace

bool ValgrindCounter::ReadTree(const std::vector<fs::path>& outputs,
                               const std::vector<fs::path>& logs, TracedTree* tree,
                               std::string* err) const {
  long long pid = 0;
  for (const auto& out : outputs) {
    uint64_t total = 0;
    VgcountInputs inputs;
    std::vector<InputRecord> records;
    bool records_complete = true;
    std::map<std::string, uint64_t> simulated;
    bool simulated_listed = false;
    if (!PidInName(out, OutputPrefix(), &pid, err) ||
        !ReadTotal(out, &total, &inputs, &records, &records_complete, &simulated, &simulated_listed,
                   err)) {
      return false;
    }
    // "PREFIX<pid>" and its dumps (callgrind) or parts (vgcount: the
    // programs its execs ran) "PREFIX<pid>.<n>" add up.
    TracedProcess& process = (*tree)[pid];
    // Seen whole only when every part listed its inputs.
    process.inputs.listed = inputs.listed && (!process.instructions || process.inputs.listed);
    process.simulated_listed =
        simulated_listed && (!process.instructions || process.simulated_listed);
    if (!AddSimulatedEvents(simulated, &process.simulated, err)) return false;
    process.instructions = process.instructions.value_or(0) + total;
    for (const auto& [kind, n] : inputs.pinned) process.inputs.pinned[kind] += n;
    for (const auto& [kind, n] : inputs.unpinned) process.inputs.unpinned[kind] += n;
    process.input_records.insert(process.input_records.end(),
                                 std::make_move_iterator(records.begin()),
                                 std::make_move_iterator(records.end()));
    process.input_records_incomplete = process.input_records_incomplete || !records_complete;
  }
  for (const auto& log : logs) {
    if (!PidInName(log, kLogPrefix, &pid, err)) return false;
    std::ifstream in(log);
    (*tree)[pid].parent_pid = ParentPidInBanner(in);
  }
  return true;
}

std::vector<std::string> ValgrindCounter::DiskPlaces(const std::string& dir,
                                                     const LaunchSpec& run_spec) {
  const auto tmpdir = run_spec.env.find("TMPDIR");
  return {dir, tmpdir != run_spec.env.end() ? HostPath(run_spec, tmpdir->second) : "/tmp"};
}

void ValgrindCounter::FailIfDiskFull(const std::string& dir, const LaunchSpec& run_spec,
                                     const std::vector<SpaceLeft>& before,
                                     std::string* what) const {
  // A failed run on a full disk is the machine's failure, not the workload's:
  // the outputs (under workgate's TMPDIR) or Valgrind's own temporary files.
  // Unless the workload filled it itself, with files in its own directory
  // (its TMPDIR is in there): then the failure is the side's, as any other
  // way for a program to make its own run fail.
  const std::vector<std::string> places = DiskPlaces(dir, run_spec);
  const char* advice[] = {"free space there, or point TMPDIR elsewhere", "free space there"};
  struct stat own;
  const std::string cwd = HostPath(run_spec, run_spec.cwd);
  const bool has_own = !cwd.empty() && lstat(cwd.c_str(), &own) == 0;
  for (size_t i = 0; i < places.size(); ++i) {
    std::string full = FullFileSystem(places[i]);
    if (full.empty()) continue;
    if (has_own && i < before.size()) {
      const std::string by_workload =
          FilledByWorkload(before[i], SpaceOn(places[i]), cwd, own.st_dev, UsageOf(cwd));
      if (!by_workload.empty()) {
        *what += "; " + by_workload;
        return;
      }
    }
    throw EnvironmentError(
        fmt::format("{}: {}; the count under {} failed: {}", full, advice[i], name(), *what));
  }
}

CountedRun ValgrindCounter::Run(const LaunchSpec& spec, const CountOptions& options) {
  TempDir dir("workgate-" + name());
  // vgcount's outputs come through its channel (counter/vgcount_channel.h)
  // into a directory of their own; callgrind writes its files beside its
  // logs, where the workload could reach them.
  std::optional<TempDir> outputs_dir;
  std::optional<VgcountChannel> channel;
  if (tool_ == Tool::kVgcount) {
    outputs_dir.emplace("workgate-counts");
    channel.emplace(outputs_dir->path(), OutputPrefix(), kVgcountProfilePrefix);
  }
  LaunchSpec run_spec =
      UnderValgrind(spec, dir.path(), options, channel ? channel->workload_fd() : -1);
  // Valgrind writes its logs there (and callgrind its outputs).
  run_spec.writable_dirs.push_back(dir.path());
  // Removed with everything the program left in it, so no run sees another's.
  const RemovedAtEnd own_tmp{UsePrivateTmpdir(&run_spec)};

  // The room on the disks Valgrind writes to, to tell afterwards a disk the
  // workload filled from one that filled (FailIfDiskFull).
  std::vector<SpaceLeft> space_before;
  for (const std::string& place : DiskPlaces(dir.path(), run_spec)) {
    space_before.push_back(SpaceOn(place));
  }

  CountedRun run;
  if (channel) channel->Start();
  run.launch = Launch(run_spec);
  const std::string forged = channel ? channel->Finish() : "";
  run.toggled_collection = channel && !options.region && channel->toggled_collection();
  RunFiles files = ListRunFiles(dir.path(), OutputPrefix());
  if (channel) {
    files.outputs.assign(channel->counts().begin(), channel->counts().end());
    files.profiles.assign(channel->profiles().begin(), channel->profiles().end());
  }
  auto fail = [&](std::string error) {
    run.error = std::move(error);
    FailIfDiskFull(dir.path(), run_spec, space_before, &run.error);
    return run;
  };
  // Before anything else: a launch that failed is no excuse for outputs that
  // were tampered with.
  if (!forged.empty()) return fail(forged);
  // A setuid program makes the run invalid even where its exec failed and
  // the exit code says only that.
  if (std::string untraced = UntracedPrograms(files.logs); !untraced.empty()) {
    return fail(untraced);
  }
  // Valgrind's banner and notes stay out: the program's own stderr (in
  // launch.err) says what went wrong, Valgrind's errors are added here.
  if (MarkFailedLaunch(&run, spec.timeout_seconds)) {
    return fail(run.error + QuotedValgrindErrors(files.logs, name()));
  }
  if (files.outputs.empty()) {
    return fail(name() + " wrote no output file" + QuotedValgrindErrors(files.logs, name()));
  }
  TracedTree tree;
  std::string err;
  // vgcount's processes are those that said hello on its channel, each
  // with its parent; the logs, which the program can rewrite, only quote
  // Valgrind's errors. Callgrind's are named by its logs.
  if (!ReadTree(files.outputs, channel ? std::vector<fs::path>{} : files.logs, &tree, &err)) {
    return fail(err + QuotedValgrindErrors(files.logs, name()));
  }
  if (channel) {
    for (const auto& [pid, process] : channel->processes()) {
      tree[pid].parent_pid = process.parent;
      tree[pid].incomplete = !process.complete();
    }
    run.notes = ExecNotes(channel->processes(), tree);
  }
  if (!TotalsRootFirst(tree, &run.per_process, &err)) {
    return fail(err + QuotedValgrindErrors(files.logs, name()));
  }
  if (run.launch.leftover_processes == 0) {
    if (std::string uncounted = UncountedProcess(tree); !uncounted.empty()) return fail(uncounted);
  }
  uint64_t sum = 0;
  for (uint64_t total : run.per_process) sum += total;
  run.processes = static_cast<int>(run.per_process.size());
  // vgcount lists, per process, what it pinned and what it met unpinned; a
  // run is seen whole only when every process that counted listed both.
  run.inputs_seen = tool_ == Tool::kVgcount && options.pin;
  for (const auto& [pid, process] : tree) {
    if (!process.instructions) continue;
    run.inputs_seen = run.inputs_seen && process.inputs.listed;
    for (const auto& [kind, n] : process.inputs.pinned) run.pinned[kind] += n;
    for (const auto& [kind, n] : process.inputs.unpinned) run.unpinned[kind] += n;
  }
  // And what it read from the file system: every process's and part's
  // records, each once, sorted.
  run.inputs_traced = tool_ == Tool::kVgcount;
  if (run.inputs_traced) {
    for (const auto& [pid, process] : tree) {
      run.inputs.insert(run.inputs.end(), process.input_records.begin(),
                        process.input_records.end());
      run.inputs_overflow = run.inputs_overflow || process.input_records_incomplete;
    }
    std::sort(run.inputs.begin(), run.inputs.end(), InputRecordBefore);
    run.inputs.erase(std::unique(run.inputs.begin(), run.inputs.end()), run.inputs.end());
    // What the run mapped that the files did not say (a dlopen()ed module):
    // later runs that read debug files get those copies too.
    if (DebugFileCopies* copies = SharedDebugFileCopies();
        copies != nullptr && !options.keep_profiles_dir.empty()) {
      std::vector<std::string> opened;
      for (const InputRecord& record : run.inputs) {
        if (record.kind == InputRecord::Kind::kOpen && S_ISREG(record.mode)) {
          opened.push_back(record.path);
        }
      }
      copies->Remember(opened);
    }
  }
  // vgcount's simulated events, over every process and part: a process
  // that counted without them leaves the figures unknown, never smaller.
  if (tool_ == Tool::kVgcount && options.simulate && !SumSimulated(tree, &run.simulated, &err)) {
    return fail(err);
  }
  // Under --collect-atstart=no only the markers' client request turns
  // collection on, and the instructions after it in WORKGATE_REGION_BEGIN()
  // count: a region that was entered never totals 0.
  if (options.region && sum == 0) {
    return fail(RegionNeverEntered("Valgrind never turned collection on (a total of 0)"));
  }
  run.events.push_back(EventCount{"Ir", sum, 0, 0});
  if (options.simulate && tool_ == Tool::kCallgrind) {
    if (!SumSimulated(files.outputs, sum, &run.simulated, &err)) return fail(err);
  }
  if (!options.keep_profiles_dir.empty()) {
    // Callgrind's outputs are its profiles; vgcount writes one beside each
    // count, which must add up to that count.
    const bool vgcount = tool_ == Tool::kVgcount;
    if (vgcount && !ProfilesMatchCounts(files.profiles, tree, &err)) return fail(err);
    if (vgcount && !NameAddressLines(files.profiles, run_spec, &err)) return fail(err);
    if (!KeepProfiles(vgcount ? files.profiles : files.outputs, options.keep_profiles_dir, &err)) {
      return fail(err);
    }
  }
  return run;
}

bool SumSimulated(const TracedTree& tree, std::map<std::string, uint64_t>* events,
                  std::string* err) {
  events->clear();
  for (const auto& [pid, process] : tree) {
    if (!process.instructions) continue;
    if (!process.simulated_listed) {
      events->clear();
      *err = fmt::format(
          "vgcount was asked to simulate branches and caches, and process {} reported no "
          "simulated events",
          pid);
      return false;
    }
    if (!AddSimulatedEvents(process.simulated, events, err)) {
      events->clear();
      return false;
    }
  }
  return true;
}

bool ProfilesMatchCounts(const std::vector<fs::path>& profiles, const TracedTree& tree,
                         std::string* err) {
  // A process's parts (the programs its execs ran) add up.
  std::map<long long, uint64_t> profiled;
  long long pid = 0;
  for (const auto& profile : profiles) {
    const std::string file = profile.filename().string();
    std::ifstream in(profile, std::ios::binary);
    uint64_t total = 0;
    if (!PidInName(profile, kVgcountProfilePrefix, &pid, err)) return false;
    if (!in) {
      *err = file + ": cannot be opened";
      return false;
    }
    if (!ParseCallgrindTotal(in, file, &total, err)) return false;
    profiled[pid] += total;
  }
  for (const auto& [id, process] : tree) {
    if (!process.instructions) continue;
    const auto found = profiled.find(id);
    if (found == profiled.end()) {
      *err = fmt::format("vgcount wrote no profile of process {}", id);
      return false;
    }
    if (found->second != *process.instructions) {
      *err = fmt::format("vgcount's profile of process {} adds up to {}, its count is {}", id,
                         found->second, *process.instructions);
      return false;
    }
  }
  return true;
}

}  // namespace workgate
