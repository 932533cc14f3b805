#pragma once
// Where glibc's dynamic loader looks for a library, as Debian builds it: each
// architecture's multiarch default directories, $LIB and ld.so.cache flags,
// and the directory lists of DT_RPATH, DT_RUNPATH and LD_LIBRARY_PATH with
// their dynamic string tokens expanded.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "identity/elf_file.h"

namespace workgate {

/// Longest directory or file path the resolver builds; longer ones are
/// skipped, as open(2) would refuse them (PATH_MAX).
inline constexpr size_t kMaxPathLength = 4096;

/// The loader of one architecture, as Debian configures glibc for it.
struct LoaderArch {
  uint8_t elf_class = 0;
  uint16_t machine = 0;
  std::string lib;                        // what $LIB expands to: "lib/x86_64-linux-gnu"
  int32_t cache_flags = 0;                // the ld.so.cache entry flags this loader takes
  bool cache_takes_plain_elf = false;     // ... and entries flagged only "ELF" (1)
  std::vector<std::string> default_dirs;  // each with a trailing '/'
};

/// The loader for `program`'s class, machine and float ABI: x86-64, i386,
/// aarch64 and 32-bit ARM (hard or soft float). nullopt for any other.
std::optional<LoaderArch> LoaderArchFor(const ElfFile& program);

/// `text` with $ORIGIN / ${ORIGIN} replaced by `origin` (the directory of
/// the object that names the path) and $LIB /
/// ${LIB} by `arch.lib`; any other '$' is kept. nullopt when the text cannot
/// be expanded as the loader would: it names $PLATFORM (the loader derives it
/// from CPU features, e.g. "haswell", which workgate does not reproduce),
/// `origin` is empty, or the result is longer than kMaxPathLength.
std::optional<std::string> ExpandDynamicTokens(std::string_view text, std::string_view origin,
                                               const LoaderArch& arch);

/// Calls `visit` with each directory of the search list `list`, split at any
/// of `separators`, in order, tokens expanded and with one trailing '/', so
/// that dir + name is the path the loader tries. An empty list has no
/// directories; an empty element in a list is the current directory (""); an
/// element that expands to nothing or cannot be expanded is skipped. Stops
/// when `visit` returns false.
void ForEachSearchDir(std::string_view list, std::string_view separators, std::string_view origin,
                      const LoaderArch& arch,
                      const std::function<bool(const std::string& dir)>& visit);

}  // namespace workgate
