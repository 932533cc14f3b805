#pragma once
// Reading fixed-size pieces of an ELF file through a ByteSource, shared by
// the readers in elf_file.cc and elf_symbols.cc.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "identity/elf_file.h"

namespace workgate::elf_bytes {

/// Exactly `len` bytes at `offset`, or false with `*err` saying `what` lies
/// outside the file.
inline bool ReadExactly(const ByteSource& src, uint64_t offset, size_t len, const char* what,
                        std::string* out, std::string* err) {
  if (!src.ReadAt(offset, len, out, err)) return false;
  if (out->size() != len) {
    *err = std::string(what) + " beyond the end of the file";
    return false;
  }
  return true;
}

/// The T at `offset` of `bytes`; the caller checked that it lies within.
template <typename T>
T At(const std::string& bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

/// The program headers of the file whose header is `eh`: none when e_phnum
/// is 0; false with `*err` for an unexpected entry size, more than
/// kMaxProgramHeaders, or a table outside the file.
template <typename Ehdr, typename Phdr>
bool ReadProgramHeaders(const ByteSource& src, const Ehdr& eh, std::vector<Phdr>* out,
                        std::string* err) {
  out->clear();
  if (eh.e_phnum == 0) return true;
  if (eh.e_phentsize != sizeof(Phdr)) {
    *err = "unexpected ELF program header size " + std::to_string(eh.e_phentsize);
    return false;
  }
  if (eh.e_phnum > kMaxProgramHeaders) {
    *err = "more than " + std::to_string(kMaxProgramHeaders) + " ELF program headers";
    return false;
  }
  std::string bytes;
  if (!ReadExactly(src, eh.e_phoff, eh.e_phnum * sizeof(Phdr), "ELF program headers", &bytes,
                   err)) {
    return false;
  }
  for (size_t i = 0; i < eh.e_phnum; ++i) out->push_back(At<Phdr>(bytes, i * sizeof(Phdr)));
  return true;
}

}  // namespace workgate::elf_bytes
