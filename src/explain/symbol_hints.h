#pragma once
// Which objects need symbols before the explain table can say where their
// work went: stripped files, whose code callgrind can name only by address,
// so that all of it lands in one "(code without a symbol)" row.

#include <cstddef>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "model/model.h"

namespace workgate {

/// Where Valgrind (like GDB) looks for a file's separate debug file by its
/// build ID, and where Debian's -dbgsym packages put them.
inline constexpr const char* kDebugRoot = "/usr/lib/debug";

/// Bounds on the files looked at for one explanation.
inline constexpr size_t kMaxHintObjects = 8;
inline constexpr size_t kMaxHintFilesPerSide = 4;

/// The objects whose code without a symbol (their kUnnamedCode row) carries
/// a notable share of the delta between the two profiles: its delta is at
/// least a tenth of the whole delta in magnitude (any change when the whole
/// delta is 0). Each is listed with its files that are ELF files without a
/// symbol table (ElfSymbolInfo), with their GNU build ID and whether
/// DEBUG_ROOT/.build-id/xx/rest.debug exists; an object all of whose files
/// have symbols (its unnamed code is PLT stubs and the like) is left out.
///
/// The paths come from the profiles, and so from the candidate: a file is
/// opened only at an absolute path outside /proc, /sys and /dev that names a
/// regular file (FileSource), and is read through the bounded ELF reader.
/// At most kMaxHintObjects objects, largest |delta| first (ties by name),
/// and kMaxHintFilesPerSide paths per object and side, in path order.
std::vector<MissingSymbols> FindMissingSymbols(const Profile& baseline, const Profile& candidate,
                                               const std::string& debug_root = kDebugRoot);

}  // namespace workgate
