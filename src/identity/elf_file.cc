#include "identity/elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "identity/elf_bytes.h"

namespace workgate {

bool MemorySource::ReadAt(uint64_t offset, size_t len, std::string* out, std::string*) const {
  if (offset >= bytes_.size()) {
    out->clear();
    return true;
  }
  out->assign(bytes_.substr(offset, len));
  return true;
}

FileSource::~FileSource() {
  if (fd_ >= 0) close(fd_);
}

bool FileSource::Open(const std::string& path, std::string* err) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *err = path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *err = path + ": not a regular file";
    return false;
  }
  // O_NONBLOCK: the file may have been swapped for a FIFO since the stat.
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0 || fstat(fd_, &stat_) != 0) {
    *err = path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(stat_.st_mode)) {
    *err = path + ": not a regular file";
    return false;
  }
  path_ = path;
  return true;
}

bool FileSource::ReadAt(uint64_t offset, size_t len, std::string* out, std::string* err) const {
  out->clear();
  if (offset >= static_cast<uint64_t>(stat_.st_size)) return true;
  len = static_cast<size_t>(std::min<uint64_t>(len, stat_.st_size - offset));
  out->resize(len);
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd_, out->data() + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = path_ + ": " + std::strerror(errno);
      return false;
    }
    if (n == 0) break;  // the file shrank
    done += static_cast<size_t>(n);
  }
  out->resize(done);
  return true;
}

namespace {

using elf_bytes::At;
using elf_bytes::ReadExactly;

// The string table: where DT_STRTAB lies in the file and how many bytes of it
// may be read.
struct StringTable {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// A NUL-terminated string at `index` in the table, at most kMaxElfString
// bytes. Reads a short piece first: most names fit in it.
bool ReadString(const ByteSource& src, const StringTable& table, uint64_t index, std::string* out,
                std::string* err) {
  if (index >= table.size) {
    *err = "dynamic string offset " + std::to_string(index) + " outside the string table";
    return false;
  }
  const uint64_t room = table.size - index;
  const uint64_t at = table.offset + index;
  if (at < table.offset) {
    *err = "dynamic string offset " + std::to_string(index) + " wraps around";
    return false;
  }
  for (size_t want : {size_t{256}, kMaxElfString + 1}) {
    size_t len = static_cast<size_t>(std::min<uint64_t>(want, room));
    std::string piece;
    if (!src.ReadAt(at, len, &piece, err)) return false;
    size_t nul = piece.find('\0');
    if (nul != std::string::npos) {
      out->assign(piece, 0, nul);
      return true;
    }
    if (piece.size() < len || len == room) break;  // no more bytes to look at
  }
  *err = "dynamic string at offset " + std::to_string(index) + " is unterminated or longer than " +
         std::to_string(kMaxElfString) + " bytes";
  return false;
}

// PT_INTERP's path into elf->interpreter.
template <typename Phdr>
bool ReadInterpreter(const ByteSource& src, const Phdr& interp, ElfFile* elf, std::string* err) {
  if (interp.p_filesz == 0 || interp.p_filesz > kMaxElfString) {
    *err = "ELF interpreter name of " + std::to_string(interp.p_filesz) + " bytes";
    return false;
  }
  std::string bytes;
  if (!ReadExactly(src, interp.p_offset, interp.p_filesz, "ELF interpreter name", &bytes, err)) {
    return false;
  }
  elf->interpreter = bytes.substr(0, bytes.find('\0'));
  if (elf->interpreter.empty()) {
    *err = "empty ELF interpreter name";
    return false;
  }
  return true;
}

// The dynamic section's entries that name strings, as offsets into the
// string table, and the table's address and size.
struct DynamicEntries {
  std::vector<uint64_t> needed;
  std::optional<uint64_t> soname, runpath, rpath, strtab, strsz;
  bool names_strings() const { return !needed.empty() || soname || runpath || rpath; }
};

template <typename Dyn>
DynamicEntries ReadDynamicEntries(const std::string& bytes, ElfFile* elf) {
  DynamicEntries e;
  for (size_t off = 0; off + sizeof(Dyn) <= bytes.size(); off += sizeof(Dyn)) {
    Dyn d = At<Dyn>(bytes, off);
    if (d.d_tag == DT_NULL) break;
    // For a tag given twice the loader keeps the last.
    switch (d.d_tag) {
      case DT_NEEDED:
        e.needed.push_back(d.d_un.d_val);
        break;
      case DT_SONAME:
        e.soname = d.d_un.d_val;
        break;
      case DT_RUNPATH:
        e.runpath = d.d_un.d_val;
        break;
      case DT_RPATH:
        e.rpath = d.d_un.d_val;
        break;
      case DT_STRTAB:
        e.strtab = d.d_un.d_ptr;
        break;
      case DT_STRSZ:
        e.strsz = d.d_un.d_val;
        break;
      case DT_FLAGS_1:
        elf->no_default_libs = (d.d_un.d_val & DF_1_NODEFLIB) != 0;
        break;
      default:
        break;
    }
  }
  return e;
}

// DT_STRTAB is an address in memory: the PT_LOAD segment that maps it gives
// its place in the file.
template <typename Phdr>
bool LocateStringTable(const std::vector<Phdr>& loads, uint64_t strtab,
                       std::optional<uint64_t> strsz, StringTable* table, std::string* err) {
  bool mapped = false;
  for (const Phdr& load : loads) {
    if (strtab < load.p_vaddr || strtab - load.p_vaddr >= load.p_filesz) continue;
    uint64_t into = strtab - load.p_vaddr;
    table->offset = load.p_offset + into;
    table->size = load.p_filesz - into;
    if (table->offset < load.p_offset) break;  // wrapped around: no place in the file
    mapped = true;
    break;
  }
  if (!mapped) {
    *err = "ELF string table address is in no loaded segment";
    return false;
  }
  if (strsz) table->size = std::min(table->size, *strsz);
  return true;
}

// The names the dynamic entries point at.
bool ReadDynamicStrings(const ByteSource& src, const StringTable& table,
                        const DynamicEntries& entries, ElfFile* elf, std::string* err) {
  for (uint64_t index : entries.needed) {
    std::string name;
    if (!ReadString(src, table, index, &name, err)) return false;
    elf->needed.push_back(std::move(name));
  }
  if (entries.soname && !ReadString(src, table, *entries.soname, &elf->soname, err)) return false;
  if (entries.runpath) {
    elf->runpath.emplace();
    if (!ReadString(src, table, *entries.runpath, &*elf->runpath, err)) return false;
  } else if (entries.rpath) {
    elf->rpath.emplace();
    if (!ReadString(src, table, *entries.rpath, &*elf->rpath, err)) return false;
  }
  return true;
}

template <typename Ehdr, typename Phdr, typename Dyn>
bool ReadElf(const ByteSource& src, const std::string& ehdr_bytes, ElfFile* elf, std::string* err) {
  const Ehdr eh = At<Ehdr>(ehdr_bytes, 0);
  std::vector<Phdr> headers;
  if (!elf_bytes::ReadProgramHeaders(src, eh, &headers, err)) return false;
  std::vector<Phdr> loads;
  std::optional<Phdr> interp, dynamic;
  for (const Phdr& ph : headers) {
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    // The kernel and the loader take the first of each.
    if (ph.p_type == PT_INTERP && !interp) interp = ph;
    if (ph.p_type == PT_DYNAMIC && !dynamic) dynamic = ph;
  }
  if (interp && !ReadInterpreter(src, *interp, elf, err)) return false;
  if (!dynamic) return true;
  if (dynamic->p_filesz > kMaxDynamicBytes) {
    *err = "ELF dynamic section larger than " + std::to_string(kMaxDynamicBytes) + " bytes";
    return false;
  }
  std::string bytes;
  if (!ReadExactly(src, dynamic->p_offset, dynamic->p_filesz, "ELF dynamic section", &bytes, err)) {
    return false;
  }
  const DynamicEntries entries = ReadDynamicEntries<Dyn>(bytes, elf);
  if (!entries.names_strings()) return true;
  if (!entries.strtab) {
    *err = "ELF dynamic section names strings but has no DT_STRTAB";
    return false;
  }
  StringTable table;
  return LocateStringTable(loads, *entries.strtab, entries.strsz, &table, err) &&
         ReadDynamicStrings(src, table, entries, elf, err);
}

// The ELF header's bytes when `src` is an ELF file of this machine's byte
// order, with its class in `elf`; empty otherwise.
bool ReadIdentification(const ByteSource& src, ElfFile* elf, std::string* bytes, std::string* err) {
  *elf = ElfFile();
  if (!src.ReadAt(0, sizeof(Elf64_Ehdr), bytes, err)) return false;
  const unsigned char host_order =
      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ? ELFDATA2LSB : ELFDATA2MSB;
  if (bytes->size() < EI_NIDENT || bytes->compare(0, SELFMAG, ELFMAG) != 0 ||
      static_cast<unsigned char>((*bytes)[EI_DATA]) != host_order) {
    bytes->clear();
    return true;
  }
  const unsigned char cls = (*bytes)[EI_CLASS];
  const size_t need = cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  if ((cls != ELFCLASS64 && cls != ELFCLASS32) || bytes->size() < need) {
    bytes->clear();
    return true;
  }
  elf->elf_class = cls;
  if (cls == ELFCLASS64) {
    elf->machine = At<Elf64_Ehdr>(*bytes, 0).e_machine;
    elf->flags = At<Elf64_Ehdr>(*bytes, 0).e_flags;
  } else {
    elf->machine = At<Elf32_Ehdr>(*bytes, 0).e_machine;
    elf->flags = At<Elf32_Ehdr>(*bytes, 0).e_flags;
  }
  return true;
}

}  // namespace

bool ReadElfHeader(const ByteSource& src, ElfFile* elf, std::string* err) {
  std::string bytes;
  return ReadIdentification(src, elf, &bytes, err);
}

bool ReadElfFile(const ByteSource& src, ElfFile* elf, std::string* err) {
  std::string bytes;
  if (!ReadIdentification(src, elf, &bytes, err)) return false;
  if (elf->elf_class == ELFCLASS64)
    return ReadElf<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(src, bytes, elf, err);
  if (elf->elf_class == ELFCLASS32)
    return ReadElf<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(src, bytes, elf, err);
  return true;
}

bool ParseElf(std::string_view bytes, ElfFile* elf, std::string* err) {
  return ReadElfFile(MemorySource(bytes), elf, err);
}

}  // namespace workgate
