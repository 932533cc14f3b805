// libFuzzer entry point for what workgate reads from a candidate's binaries
// without running them (src/identity/elf_file.h, elf_symbols.h, ld_so_cache.h):
// the ELF header, PT_INTERP and the dynamic section, the note segments and
// section headers, and the loader cache's format. The
// input's first byte chooses which reader gets the rest. Built by
// fuzz/CMakeLists.txt with clang only; run by ci/fuzz.
//
// Checks: no crash, no hang, no allocation beyond the readers' own limits,
// and what a reader returns stays within them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "identity/elf_file.h"
#include "identity/elf_symbols.h"
#include "identity/ld_so_cache.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string err;
  if (data[0] & 1) {
    std::vector<workgate::LdSoCacheEntry> entries;
    if (workgate::ParseLdSoCache(bytes, &entries, &err)) Check(entries.size() <= bytes.size());
    return 0;
  }
  workgate::ElfFile elf;
  if (workgate::ParseElf(bytes, &elf, &err)) {
    Check(elf.interpreter.size() <= workgate::kMaxElfString);
    Check(elf.soname.size() <= workgate::kMaxElfString);
    for (const std::string& name : elf.needed) Check(name.size() <= workgate::kMaxElfString);
  }
  workgate::ElfSymbolInfo info;
  if (workgate::ParseElfSymbolInfo(bytes, &info, &err)) {
    Check(info.build_id.size() <= 2 * workgate::kMaxBuildIdBytes);
    Check(info.build_id.size() % 2 == 0);
    Check(info.elf_class != 0 || (info.build_id.empty() && !info.has_symtab));
  } else {
    // A refused file says nothing about its symbols.
    Check(info.build_id.empty() && !info.has_symtab && !err.empty());
  }
  return 0;
}
