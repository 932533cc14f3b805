#pragma once
// The shared objects the dynamic loader would map for a program, found as
// glibc's ld.so finds them on Debian, from the files alone. Nothing is run:
// a candidate build's program interpreter is its own code, so asking the
// loader (LD_TRACE_LOADED_OBJECTS, what ldd does) would run it unconfined.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace workgate {

/// What the loader reads besides the program's files: the workload's
/// environment and the system's configuration (tests point these elsewhere).
struct LoaderInputs {
  std::string ld_library_path;  // LD_LIBRARY_PATH
  std::string ld_preload;       // LD_PRELOAD
  std::string cache_path = "/etc/ld.so.cache";
  std::string preload_path = "/etc/ld.so.preload";
};

/// The loader's inputs a workload's environment `env` sets (LD_LIBRARY_PATH,
/// LD_PRELOAD); the system's configuration at its usual places.
LoaderInputs LoaderInputsOf(const std::map<std::string, std::string>& env);

/// One object the loader would map.
struct LoadedObject {
  std::string name;  // as asked for: a DT_NEEDED or LD_PRELOAD entry, the interpreter's path
  std::string path;  // the file; "" when the loader would not find one
};

/// Bounds that keep a hostile build (cyclic or thousands of DT_NEEDED
/// entries, long search lists) from making the walk hang or grow: more
/// distinct objects, or more files tried, is an error.
inline constexpr size_t kMaxLoadedObjects = 1024;
inline constexpr size_t kMaxFileProbes = 50000;

/// The objects the loader would map for `exe`, in load order: its
/// PT_INTERP interpreter, the LD_PRELOAD entries (then those of
/// /etc/ld.so.preload) that can be found, then the DT_NEEDED graph breadth
/// first, each object once (an object matches a later request by the name it
/// was asked for, its path, its DT_SONAME or its file identity).
///
/// A DT_NEEDED name with a '/' is the path. Any other is searched as ld.so
/// does: the DT_RPATH of the requesting object and of the objects that
/// brought it in, up to the program (only when the requester has no
/// DT_RUNPATH); LD_LIBRARY_PATH; the requester's DT_RUNPATH; the loader cache
/// and the architecture's default directories (both skipped for a requester
/// marked DF_1_NODEFLIB). $ORIGIN and $LIB are expanded; a path element with
/// $PLATFORM is skipped. A file whose ELF class or machine differs from the
/// program's is passed over. Not reproduced: the glibc-hwcaps and legacy
/// hwcap subdirectories the loader tries first in each directory (chosen by
/// CPU features; empty on Debian 12), secure-mode (setuid) restrictions, and
/// the loader's own --library-path or --preload options.
///
/// A statically linked program, a file that is not an ELF file of this byte
/// order (a script), or one for an architecture LoaderArchFor does not know
/// gives no objects. False with `*err` when `exe` cannot be read, an object
/// is a malformed ELF file, or a bound is passed.
bool ResolveSharedLibraries(const std::string& exe, const LoaderInputs& inputs,
                            std::vector<LoadedObject>* objects, std::string* err);

}  // namespace workgate
