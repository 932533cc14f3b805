#include "identity/elf_symbols.h"

#include <elf.h>

#include <cstring>
#include <vector>

#include "identity/elf_bytes.h"

namespace workgate {
namespace {

using elf_bytes::At;
using elf_bytes::ReadExactly;

uint64_t AlignUp(uint64_t n, uint64_t align) { return (n + align - 1) & ~(align - 1); }

// The build IDs in a note segment's bytes: GNU's (the first) and whether
// Go's is there. Each note is three 4-byte words (name size, descriptor
// size, type) followed by the name and the descriptor, each padded to the
// segment's alignment: 4, or 8 for the 8-aligned note segments of 64-bit
// files.
bool ScanNotes(const std::string& notes, uint64_t align, ElfSymbolInfo* info, std::string* err) {
  static constexpr char kHex[] = "0123456789abcdef";
  // cmd/link's ELF_NOTE_GOBUILDID_TAG, under the owner "Go".
  constexpr uint32_t kGoBuildIdNote = 4;
  // All sums stay far below 2^64: offsets are under kMaxNoteBytes, sizes under 2^32.
  for (uint64_t at = 0; at + 12 <= notes.size();) {
    const uint32_t namesz = At<uint32_t>(notes, at);
    const uint32_t descsz = At<uint32_t>(notes, at + 4);
    const uint32_t type = At<uint32_t>(notes, at + 8);
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = AlignUp(name_at + namesz, align);
    if (desc_at + descsz > notes.size()) {
      *err = "ELF note at offset " + std::to_string(at) + " runs past its segment";
      return false;
    }
    // Go's linker writes the owner as "Go\0\0", namesz 4.
    if (type == kGoBuildIdNote && (namesz == 3 || namesz == 4) &&
        notes.compare(name_at, 3, "Go\0", 3) == 0) {
      info->go = true;
    }
    if (type == NT_GNU_BUILD_ID && namesz == 4 && notes.compare(name_at, 4, "GNU\0", 4) == 0 &&
        info->build_id.empty()) {
      if (descsz == 0 || descsz > kMaxBuildIdBytes) {
        *err = "ELF build ID of " + std::to_string(descsz) + " bytes";
        return false;
      }
      for (uint64_t i = desc_at; i < desc_at + descsz; ++i) {
        const unsigned char byte = notes[i];
        info->build_id += kHex[byte >> 4];
        info->build_id += kHex[byte & 15];
      }
    }
    at = AlignUp(desc_at + descsz, align);
  }
  return true;
}

template <typename Ehdr, typename Phdr>
bool ReadNotes(const ByteSource& src, const Ehdr& eh, ElfSymbolInfo* info, std::string* err) {
  std::vector<Phdr> headers;
  if (!elf_bytes::ReadProgramHeaders(src, eh, &headers, err)) return false;
  for (const Phdr& ph : headers) {
    if (ph.p_type != PT_NOTE) continue;
    if (ph.p_filesz > kMaxNoteBytes) {
      *err = "ELF note segment of " + std::to_string(ph.p_filesz) + " bytes";
      return false;
    }
    std::string notes;
    if (!ReadExactly(src, ph.p_offset, ph.p_filesz, "ELF note segment", &notes, err) ||
        !ScanNotes(notes, ph.p_align == 8 ? 8 : 4, info, err)) {
      return false;
    }
  }
  return true;
}

// Whether a section is named `name`, by the section name string table
// (e_shstrndx; SHN_XINDEX puts its index in section 0's sh_link). A table
// that is missing, larger than kMaxSectionNameBytes or outside the file
// names nothing: the names are a hint, and the rest of the file still reads.
template <typename Ehdr, typename Shdr>
bool HasSectionNamed(const ByteSource& src, const Ehdr& eh, const std::string& headers,
                     uint64_t count, const char* name) {
  if (count == 0) return false;
  uint64_t index = eh.e_shstrndx;
  if (index == SHN_XINDEX) index = At<Shdr>(headers, 0).sh_link;
  if (index == SHN_UNDEF || index >= count) return false;
  const Shdr table = At<Shdr>(headers, index * sizeof(Shdr));
  if (table.sh_type != SHT_STRTAB || table.sh_size > kMaxSectionNameBytes) return false;
  std::string names, ignored;
  if (!ReadExactly(src, table.sh_offset, table.sh_size, "ELF section names", &names, &ignored)) {
    return false;
  }
  const size_t length = std::strlen(name) + 1;  // with its terminating NUL
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t at = At<Shdr>(headers, i * sizeof(Shdr)).sh_name;
    if (at < names.size() && names.size() - at >= length &&
        names.compare(at, length, name, length) == 0) {
      return true;
    }
  }
  return false;
}

template <typename Ehdr, typename Shdr, typename Sym>
bool ReadSections(const ByteSource& src, const Ehdr& eh, ElfSymbolInfo* info, std::string* err) {
  if (eh.e_shoff == 0) return true;  // no section headers: nothing names any code
  if (eh.e_shentsize != sizeof(Shdr)) {
    *err = "unexpected ELF section header size " + std::to_string(eh.e_shentsize);
    return false;
  }
  uint64_t count = eh.e_shnum;
  std::string bytes;
  if (count == 0) {
    if (!ReadExactly(src, eh.e_shoff, sizeof(Shdr), "ELF section header 0", &bytes, err)) {
      return false;
    }
    count = At<Shdr>(bytes, 0).sh_size;
  }
  if (count > kMaxSectionHeaders) {
    *err = "more than " + std::to_string(kMaxSectionHeaders) + " ELF section headers";
    return false;
  }
  if (!ReadExactly(src, eh.e_shoff, count * sizeof(Shdr), "ELF section headers", &bytes, err)) {
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const Shdr sh = At<Shdr>(bytes, i * sizeof(Shdr));
    if (sh.sh_type == SHT_SYMTAB && sh.sh_size > sizeof(Sym)) {
      info->has_symtab = true;
      break;
    }
  }
  if (!info->go) info->go = HasSectionNamed<Ehdr, Shdr>(src, eh, bytes, count, ".go.buildinfo");
  return true;
}

template <typename Ehdr, typename Phdr, typename Shdr, typename Sym>
bool ReadInfo(const ByteSource& src, ElfSymbolInfo* info, std::string* err) {
  std::string bytes;
  if (!ReadExactly(src, 0, sizeof(Ehdr), "ELF header", &bytes, err)) return false;
  const Ehdr eh = At<Ehdr>(bytes, 0);
  return ReadNotes<Ehdr, Phdr>(src, eh, info, err) &&
         ReadSections<Ehdr, Shdr, Sym>(src, eh, info, err);
}

}  // namespace

bool ReadElfSymbolInfo(const ByteSource& src, ElfSymbolInfo* info, std::string* err) {
  *info = ElfSymbolInfo();
  ElfFile header;
  if (!ReadElfHeader(src, &header, err)) return false;
  info->elf_class = header.elf_class;
  bool ok = true;
  if (header.elf_class == ELFCLASS64) {
    ok = ReadInfo<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr, Elf64_Sym>(src, info, err);
  } else if (header.elf_class == ELFCLASS32) {
    ok = ReadInfo<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr, Elf32_Sym>(src, info, err);
  }
  if (!ok) {
    // Nothing half-read: a malformed file says nothing about its symbols.
    info->has_symtab = false;
    info->build_id.clear();
    info->go = false;
  }
  return ok;
}

bool ParseElfSymbolInfo(std::string_view bytes, ElfSymbolInfo* info, std::string* err) {
  return ReadElfSymbolInfo(MemorySource(bytes), info, err);
}

std::string BuildIdDebugPath(const std::string& debug_root, const std::string& build_id) {
  if (build_id.size() < 2) return "";
  return debug_root + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug";
}

}  // namespace workgate
