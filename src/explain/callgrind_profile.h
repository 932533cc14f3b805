#pragma once
// Per-function self cost from callgrind output files (the "Callgrind Format
// Specification", valgrind docs cl-format.html), for explaining a work delta.

#include <cstdint>
#include <istream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/simulated_events.h"

namespace workgate {

/// A function as the explain table shows it: the demangled name without
/// callgrind's recursion and caller suffixes ("fib'2" is "fib", "f'main" is
/// "f"), and the
/// basename of the ELF object ("libc.so.6"), so that two builds at
/// different paths match.
struct FunctionId {
  std::string name;
  std::string object;  // empty when the file names no object (no "ob=")
  auto operator<=>(const FunctionId&) const = default;
};

/// Paths kept per object basename: several are rare (a library loaded from
/// two directories); a hostile profile could name millions.
inline constexpr size_t kMaxPathsPerObject = 8;

/// A line of source: the file as the profile names it (fl=, or fi= and fe=
/// for inlined code: untrusted text) and its number; line 0 where the
/// profile gives none (code without line information, or a profile without
/// a "line" position).
struct SourceLine {
  std::string file;
  uint64_t line = 0;
  auto operator<=>(const SourceLine&) const = default;
};

/// The calls from one function to another, summed over call sites, threads
/// and processes: how many, and their inclusive cost (the cost line after
/// "calls=": the callee's self cost and its own calls' during them).
struct CallCost {
  uint64_t calls = 0;
  uint64_t inclusive = 0;
  bool operator==(const CallCost&) const = default;
};

/// A call edge: (caller, callee), as FunctionId names them. A recursive
/// call is an edge from a function to itself: callgrind's "fib'2" is "fib".
using CallEdge = std::pair<FunctionId, FunctionId>;

/// What an explanation reads and keeps of one side's profile. The build
/// under test writes its profile, and each distinct name, call edge and
/// source line in it costs workgate memory; real programs stay far below
/// every bound (python3 running a script: 3,300 functions, 8,900 call edges,
/// 12,000 lines).
struct ProfileBounds {
  /// The most distinct functions (and function and object pairs): beyond,
  /// the profile is refused for an explanation, whose rows they are.
  size_t functions = 200000;
  /// The memory the name tables may take, each name's bytes and a fixed
  /// cost per entry: beyond, the profile is refused too.
  size_t name_bytes = 32 << 20;
  /// Call edges and source lines: the `*_kept` costliest are kept, and
  /// beyond `*_read` distinct ones none are (nor are more counted).
  size_t calls_kept = 100000;
  size_t calls_read = 500000;
  size_t lines_kept = 200000;
  size_t lines_read = 500000;
};

/// What a profile's parse left out of one of its tables (calls, lines).
struct TableCut {
  uint64_t named = 0;  // distinct entries the files named; with `dropped`, the bound passed
  uint64_t kept = 0;
  /// The files named more than ProfileBounds' `*_read`: none is kept.
  bool dropped = false;
  /// The functions that lost an entry: a line of theirs, or a call edge
  /// they are the caller or the callee of.
  std::set<FunctionId> functions;

  bool any() const { return dropped || kept < named; }
  /// Whether the table holds every entry of `f` the files named.
  bool Complete(const FunctionId& f) const { return !dropped && functions.count(f) == 0; }
};

/// The self (exclusive) cost of one event, per function, summed over every
/// part, thread and process that was loaded. Call costs (the line after
/// "calls=") are inclusive and are not part of it; they are kept per call
/// edge in `calls`.
struct Profile {
  std::map<FunctionId, uint64_t> self;
  /// The self cost of each function of `self` by source line; a function's
  /// lines add up to its self cost.
  std::map<FunctionId, std::map<SourceLine, uint64_t>> lines;
  /// Every call edge with its count and inclusive cost.
  std::map<CallEdge, CallCost> calls;
  /// The paths the files name each object of `self` by ("/usr/bin/lua5.4"
  /// for "lua5.4"), as written there: untrusted text, at most
  /// kMaxPathsPerObject per object.
  std::map<std::string, std::set<std::string>> object_paths;
  uint64_t total = 0;  // the sum of `self`
  int parts = 0;       // parts read (one per thread, dump and process)
  /// What ProfileBounds left out of `calls` and `lines`: never a self cost.
  TableCut calls_cut;
  TableCut lines_cut;
  /// Every file listed the simulated events (kSimulatedEventNames: a
  /// profile of a simulated run) and they were asked for: then their self
  /// cost per function of `self`, and per line of `lines` (the same lines).
  bool simulated = false;
  std::map<FunctionId, SimulatedCosts> self_simulated;
  std::map<FunctionId, std::map<SourceLine, SimulatedCosts>> lines_simulated;
};

/// Parses one callgrind output file held in `text` and adds its self cost
/// of `event` to `*profile`, its call edges and lines within `bounds` (the
/// costliest, and what was left out in `calls_cut` and `lines_cut`).
/// `source` names the input in messages. On malformed or truncated input,
/// or a profile beyond `bounds`' functions or name bytes, returns false,
/// leaves `*profile` unchanged and sets `*err` to "SOURCE:LINE: what is
/// wrong".
bool ParseCallgrind(std::string_view text, const std::string& source, Profile* profile,
                    std::string* err, const std::string& event = "Ir",
                    const ProfileBounds& bounds = {});

/// As ParseCallgrind, reading all of `in` a chunk at a time: memory stays
/// bounded by the chunk, the longest line (callgrind::kMaxLineBytes) and
/// `bounds`, whatever its size.
bool ParseCallgrindStream(std::istream& in, const std::string& source, Profile* profile,
                          std::string* err, const std::string& event = "Ir",
                          const ProfileBounds& bounds = {});

/// As ParseCallgrindStream, reading the file at `path`.
bool LoadCallgrindFile(const std::string& path, Profile* profile, std::string* err,
                       const std::string& event = "Ir", const ProfileBounds& bounds = {});

/// The total cost of `event` in one callgrind output file read from `in`:
/// what the gate counts for one process. The same parser and checks as
/// ParseCallgrindStream, keeping no names, and one check more: every part
/// must end with its totals: line (callgrind always writes one), so a file
/// cut anywhere is an error, never a smaller count. On error returns false
/// with `*err` set to "SOURCE:LINE: what is wrong".
bool ParseCallgrindTotal(std::istream& in, const std::string& source, uint64_t* total,
                         std::string* err, const std::string& event = "Ir");

/// The totals of the simulated events (kSimulatedEventNames) of one callgrind
/// output file read from `in`, with ParseCallgrindTotal's checks (each
/// part's totals: line agrees with its cost lines, in every event), and its
/// Ir total in `*total`. False with `*err` when a part's events: line does
/// not list them all.
bool ParseCallgrindSimulatedTotals(std::istream& in, const std::string& source, uint64_t* total,
                                   SimulatedCosts* simulated, std::string* err);

/// Loads and sums the output files of one profiled run: one file per
/// process (--callgrind-out-file=DIR/callgrind.out.%p), per thread
/// (--separate-threads=yes adds "-01", "-02", ...) and per dump
/// ("--dump-before=fork" adds ".1", ".2", ...). A zero-length file whose
/// path is another listed path's prefix followed by '-' is skipped: callgrind
/// creates the base name empty when it writes per-thread files.
/// `bounds` hold for the files together: the costliest call edges and lines
/// are those of their sums. Replaces `*profile`; on error returns false
/// with `*err` set.
///
/// A child made by fork() without exec starts with a copy of its parent's
/// counters, so its file repeats the parent's work up to the fork. Profile
/// such trees with "--dump-before=fork" and without --separate-threads:
/// the parent then writes and zeroes its counters just before each fork.
bool LoadProfiles(const std::vector<std::string>& paths, Profile* profile, std::string* err,
                  const std::string& event = "Ir", const ProfileBounds& bounds = {});

/// As LoadProfiles, reading the simulated events too, where every file has
/// them (Profile::simulated).
bool LoadSimulatedProfiles(const std::vector<std::string>& paths, Profile* profile,
                           std::string* err, const ProfileBounds& bounds = {});

/// The function name as shown: everything from the first quote removed
/// (callgrind's "'N" recursion level and "'caller" context suffixes), then
/// demangled when it is an Itanium C++ ABI name ("_Z..."). Exposed for tests.
std::string DisplayFunctionName(std::string_view raw);

}  // namespace workgate
