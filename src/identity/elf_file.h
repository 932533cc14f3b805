#pragma once
// What the dynamic loader reads from an ELF file, read without running it:
// the program interpreter, the needed libraries and the search paths the file
// names. Bytes come through a ByteSource, so a file is read piecewise (the
// headers and the few strings needed, never a whole multi-GB file) and a fuzz
// target can feed bytes from memory. A candidate build's files are hostile:
// every offset and count is checked against the bytes there are and against
// the limits below.

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workgate {

/// Bytes read at an offset.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Up to `len` bytes at `offset` into `*out`: fewer, or none, past the end.
  /// False with `*err` on a read error.
  virtual bool ReadAt(uint64_t offset, size_t len, std::string* out, std::string* err) const = 0;
};

/// Bytes in memory (tests, fuzz targets).
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  bool ReadAt(uint64_t offset, size_t len, std::string* out, std::string* err) const override;

 private:
  std::string_view bytes_;
};

/// A regular file, read with pread(2).
class FileSource final : public ByteSource {
 public:
  FileSource() = default;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override;
  /// Opens `path`; false with `*err` when it cannot be opened or is not a
  /// regular file. It is checked with stat(2) before open(2): opening a FIFO
  /// or a device a hostile search path names could block or act.
  bool Open(const std::string& path, std::string* err);
  bool ReadAt(uint64_t offset, size_t len, std::string* out, std::string* err) const override;
  /// The file's identity (st_dev, st_ino) and size, from fstat(2) on the open file.
  const struct stat& Stat() const { return stat_; }

 private:
  int fd_ = -1;
  std::string path_;
  struct stat stat_ = {};
};

/// Bounds on what is read from one file: larger values are refused as
/// malformed. Real files stay far below them (a few program headers, a
/// dynamic section of a few hundred bytes, strings shorter than PATH_MAX).
inline constexpr size_t kMaxProgramHeaders = 1024;
inline constexpr size_t kMaxDynamicBytes = 1 << 20;
inline constexpr size_t kMaxElfString = 4096;

/// What workgate reads from an ELF file.
struct ElfFile {
  /// ELFCLASS32 or ELFCLASS64; 0 when the bytes are not an ELF file in this
  /// machine's byte order (a script, another machine's binary, fewer bytes
  /// than an ELF header): then nothing else is set.
  uint8_t elf_class = 0;
  uint16_t machine = 0;             // e_machine
  uint32_t flags = 0;               // e_flags: the ARM float ABI
  std::string interpreter;          // PT_INTERP; "" without one (statically linked)
  std::vector<std::string> needed;  // DT_NEEDED, in order
  std::string soname;               // DT_SONAME; "" without one
  std::optional<std::string> runpath;
  std::optional<std::string> rpath;
  bool no_default_libs = false;  // DF_1_NODEFLIB: not the cache, not the default directories
};

/// Reads the ELF identification and header only: class, machine and flags
/// (what the loader checks before it takes a file it found). Not an ELF file
/// of this byte order: true with `elf_class` 0.
bool ReadElfHeader(const ByteSource& src, ElfFile* elf, std::string* err);

/// Reads the header, PT_INTERP and the dynamic section (PT_DYNAMIC), whose
/// strings are found by mapping DT_STRTAB's address to a file offset through
/// the PT_LOAD segments. Where DT_RUNPATH is present DT_RPATH is dropped, as
/// the loader ignores it then. False with `*err` for a malformed file: an
/// offset or size outside the file, a count or string over the limits above.
bool ReadElfFile(const ByteSource& src, ElfFile* elf, std::string* err);

/// ReadElfFile over bytes in memory.
bool ParseElf(std::string_view bytes, ElfFile* elf, std::string* err);

}  // namespace workgate
