#pragma once
// Fingerprints: what a side was measured with, and whether two sides may be
// compared at all. Counts taken under different conditions are not a delta.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

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
/// SHA-256 of its file, the program interpreter (PT_INTERP) included. Found
/// from the ELF files, the loader cache and `env` as glibc's ld.so would
/// find them (ResolveSharedLibraries in identity/shared_libraries.h), without
/// running anything: a candidate build's interpreter is its own code.
/// A library the loader would not find maps to "not found". A statically
/// linked program, a script or any other non-ELF file gets an empty map.
/// `env` is the workload's environment: its LD_LIBRARY_PATH and LD_PRELOAD
/// take part as in the counted run (workgate's own environment does not).
/// Returns false with `*err`, and an empty map, when `exe` cannot be read,
/// a file on the way is a malformed ELF file, a bound on the walk is passed,
/// or a found file cannot be hashed.
bool SharedLibrariesOf(const std::string& exe, const std::map<std::string, std::string>& env,
                       std::map<std::string, std::string>* libraries, std::string* err);
bool SharedLibrariesOf(const std::string& exe, std::map<std::string, std::string>* libraries,
                       std::string* err);

/// SHA-256 of the loader cache at `path` (default /etc/ld.so.cache); "" when
/// the file does not exist (a system without one). nullopt with `*err` when it
/// exists but cannot be read.
std::optional<std::string> LdSoCacheSha256(const std::string& path, std::string* err);
std::optional<std::string> LdSoCacheSha256(std::string* err);

}  // namespace workgate
