#pragma once
// Whether an ELF file's code has names, and which debug file would give them:
// its symbol table and its GNU build ID. Read through a ByteSource with the
// same care as elf_file.h: a candidate build's files are hostile, so every
// offset and size is checked against the file and against the bounds below.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "identity/elf_file.h"

namespace workgate {

/// Bounds on what is read, beyond those of elf_file.h; larger values are
/// refused as malformed. Linked programs and libraries have a few dozen
/// sections, note segments of a few hundred bytes and 20-byte build IDs
/// (SHA-1; an explicit --build-id=0x... may be longer).
inline constexpr size_t kMaxSectionHeaders = 4096;
inline constexpr size_t kMaxNoteBytes = 1 << 16;  // one PT_NOTE segment
inline constexpr size_t kMaxBuildIdBytes = 64;
inline constexpr size_t kMaxSectionNameBytes = 1 << 16;

struct ElfSymbolInfo {
  /// As ElfFile::elf_class: 0 when the bytes are not an ELF file of this
  /// machine's byte order, and then nothing else is set.
  uint8_t elf_class = 0;
  /// A SHT_SYMTAB section with a symbol besides the null one. `strip`
  /// removes it; the dynamic symbols (.dynsym) stay, but they name only what
  /// the file exports.
  bool has_symtab = false;
  /// The first NT_GNU_BUILD_ID note ("GNU" owner) of the PT_NOTE segments, in
  /// lowercase hex; "" without one. Stripping keeps it: it is how debuggers
  /// and Valgrind find the separate debug file.
  std::string build_id;
  /// Built by Go's toolchain: a "Go" build ID note (.note.go.buildid, note
  /// type 4) or a .go.buildinfo section, which every Go program has.
  bool go = false;
};

/// Reads the header, the PT_NOTE segments and the section header table
/// (e_shnum 0 with a table means the count is in section 0's sh_size), with
/// the section names where the table names a string table of at most
/// kMaxSectionNameBytes. A file without section headers has no symbol table. False with `*err` for a
/// malformed file: a table, note or size outside the file or over the bounds.
bool ReadElfSymbolInfo(const ByteSource& src, ElfSymbolInfo* info, std::string* err);

/// ReadElfSymbolInfo over bytes in memory.
bool ParseElfSymbolInfo(std::string_view bytes, ElfSymbolInfo* info, std::string* err);

/// Where the separate debug file of a file with `build_id` (lowercase hex, at
/// least two digits) lies under `debug_root`: ROOT/.build-id/xx/rest.debug,
/// xx the first byte. Valgrind and GDB look there; Debian's -dbgsym packages
/// install there. "" for a build ID shorter than two digits.
std::string BuildIdDebugPath(const std::string& debug_root, const std::string& build_id);

}  // namespace workgate
