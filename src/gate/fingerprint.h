#pragma once
// Fingerprints: what a side was measured with, and whether two sides may be
// compared at all. Counts taken under different conditions are not a delta.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gate/model.h"

namespace workgate {

/// Why counts measured under `baseline` and `candidate` must not be compared,
/// or nullopt when they may be. Every part that moves a count must agree:
/// backend, event, Valgrind version and path, CPU model (perf only: Valgrind's
/// instruction stream does not depend on the host CPU model), workgate
/// version, the workload's definition digest, argv (after {exe}
/// substitution: both sides run through the same exec path, so argv is equal
/// even when the binaries differ), environment, and the ld.so.cache digest
/// (measured: installing one unrelated package rewrote the cache and moved a
/// Lua count by 182 instructions). The binary and its libraries are expected
/// to differ: that is the change under test. The kernel is not compared:
/// user-space counts under a pinned launch do not move with it. All problems
/// are listed, separated by "; ".
std::optional<std::string> CompatibilityProblem(const Fingerprint& baseline,
                                                const Fingerprint& candidate);

/// The shared objects the dynamic loader would map for `exe`, each with the
/// SHA-256 of its file. Found as ldd does, by running `exe` with
/// LD_TRACE_LOADED_OBJECTS=1 in a minimal environment, so the loader lists its
/// mappings and exits before main. Only an ELF file with a PT_INTERP header is
/// run: a statically linked program would ignore the variable and really run,
/// so it (and a script with a #! line, or any other non-ELF file) gets an empty
/// map. A library the loader cannot find maps to "not found". Returns false
/// with `*err` when `exe` cannot be read, the trace fails, or a listed file
/// cannot be hashed.
/// `env` is the environment the trace runs with besides
/// LD_TRACE_LOADED_OBJECTS (pass the workload's, so LD_LIBRARY_PATH or
/// LD_PRELOAD resolve as in the counted run); the trace gets 10 s.
bool SharedLibrariesOf(const std::string& exe, const std::map<std::string, std::string>& env,
                       std::map<std::string, std::string>* libraries, std::string* err);
bool SharedLibrariesOf(const std::string& exe, std::map<std::string, std::string>* libraries,
                       std::string* err);

/// Parses the loader's LD_TRACE_LOADED_OBJECTS output into (name-or-path,
/// path) pairs: "libc.so.6 => /lib/.../libc.so.6 (0x...)" gives the path,
/// "/lib64/ld-linux-x86-64.so.2 (0x...)" the loader itself, "libx.so => not
/// found" an empty path; the vDSO (no file) is left out.
std::vector<std::pair<std::string, std::string>> ParseLoadedObjects(const std::string& trace);

/// The path of the ELF program interpreter of `path` (PT_INTERP); "" when the
/// file has none (statically linked, or not an ELF file of this machine's byte
/// order at all, such as a script); nullopt with `*err` when it cannot be read.
std::optional<std::string> ElfInterpreter(const std::string& path, std::string* err);

/// SHA-256 of the loader cache at `path` (default /etc/ld.so.cache); "" when
/// the file does not exist (a system without one). nullopt with `*err` when it
/// exists but cannot be read.
std::optional<std::string> LdSoCacheSha256(const std::string& path, std::string* err);
std::optional<std::string> LdSoCacheSha256(std::string* err);

}  // namespace workgate
