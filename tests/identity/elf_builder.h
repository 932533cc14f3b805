#pragma once
// Small ELF files made in memory for the ELF reader and resolver tests: the
// headers, PT_INTERP, one PT_LOAD over the whole file and a dynamic section
// with its string table. No code: nothing runs them. Offsets of the parts are
// returned so tests can corrupt them.

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace workgate::testing {

#if defined(__x86_64__)
inline constexpr uint16_t kHostMachine = EM_X86_64;
inline constexpr uint16_t kHostMachine32 = EM_386;
inline constexpr uint16_t kOtherMachine = EM_AARCH64;
#elif defined(__aarch64__)
inline constexpr uint16_t kHostMachine = EM_AARCH64;
inline constexpr uint16_t kHostMachine32 = EM_ARM;
inline constexpr uint16_t kOtherMachine = EM_X86_64;
#endif

struct ElfSpec {
  bool is64 = true;
  uint16_t machine = kHostMachine;
  std::string interpreter;  // "": no PT_INTERP
  std::vector<std::string> needed;
  std::string soname;
  std::optional<std::string> runpath;
  std::optional<std::string> rpath;
  uint64_t flags_1 = 0;  // DT_FLAGS_1 when non-zero
};

struct BuiltElf {
  std::string bytes;
  size_t phdr_offset = 0;     // PT_LOAD, PT_DYNAMIC, then PT_INTERP if any
  size_t strtab_offset = 0;   // the string table
  size_t dynamic_offset = 0;  // the dynamic entries
  uint64_t load_address = 0;  // PT_LOAD's p_vaddr (file offset 0)
};

template <typename T>
void Poke(std::string* bytes, size_t offset, T value) {
  std::memcpy(bytes->data() + offset, &value, sizeof value);
}

template <typename Ehdr, typename Phdr, typename Dyn, uint8_t kClass>
BuiltElf BuildElfOfClass(const ElfSpec& spec) {
  constexpr uint64_t kBase = 0x10000;
  BuiltElf out;
  const size_t nph = spec.interpreter.empty() ? 2 : 3;
  out.phdr_offset = sizeof(Ehdr);
  size_t at = out.phdr_offset + nph * sizeof(Phdr);
  const size_t interp_offset = at;
  at += spec.interpreter.size() + 1;
  out.strtab_offset = at;
  std::string strtab(1, '\0');
  auto add = [&strtab](const std::string& s) {
    size_t index = strtab.size();
    strtab += s;
    strtab += '\0';
    return index;
  };
  std::vector<Dyn> dyn;
  auto entry = [&dyn](int64_t tag, uint64_t value) {
    Dyn d{};
    d.d_tag = tag;
    d.d_un.d_val = value;
    dyn.push_back(d);
  };
  for (const std::string& n : spec.needed) entry(DT_NEEDED, add(n));
  if (!spec.soname.empty()) entry(DT_SONAME, add(spec.soname));
  if (spec.runpath) entry(DT_RUNPATH, add(*spec.runpath));
  if (spec.rpath) entry(DT_RPATH, add(*spec.rpath));
  if (spec.flags_1) entry(DT_FLAGS_1, spec.flags_1);
  entry(DT_STRTAB, kBase + out.strtab_offset);
  entry(DT_STRSZ, strtab.size());
  entry(DT_NULL, 0);
  at += strtab.size();
  at = (at + 7) / 8 * 8;
  out.dynamic_offset = at;
  const size_t total = at + dyn.size() * sizeof(Dyn);

  out.bytes.assign(total, '\0');
  Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = kClass;
  eh.e_ident[EI_DATA] = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ? ELFDATA2LSB : ELFDATA2MSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = spec.machine;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = out.phdr_offset;
  eh.e_ehsize = sizeof(Ehdr);
  eh.e_phentsize = sizeof(Phdr);
  eh.e_phnum = nph;
  Poke(&out.bytes, 0, eh);
  Phdr load{}, dynamic{}, interp{};
  load.p_type = PT_LOAD;
  load.p_vaddr = kBase;
  load.p_filesz = load.p_memsz = total;
  dynamic.p_type = PT_DYNAMIC;
  dynamic.p_offset = out.dynamic_offset;
  dynamic.p_vaddr = kBase + out.dynamic_offset;
  dynamic.p_filesz = dynamic.p_memsz = dyn.size() * sizeof(Dyn);
  interp.p_type = PT_INTERP;
  interp.p_offset = interp_offset;
  interp.p_filesz = spec.interpreter.size() + 1;
  Poke(&out.bytes, out.phdr_offset, load);
  Poke(&out.bytes, out.phdr_offset + sizeof(Phdr), dynamic);
  if (nph == 3) Poke(&out.bytes, out.phdr_offset + 2 * sizeof(Phdr), interp);
  std::memcpy(out.bytes.data() + interp_offset, spec.interpreter.c_str(),
              spec.interpreter.size() + 1);
  std::memcpy(out.bytes.data() + out.strtab_offset, strtab.data(), strtab.size());
  for (size_t i = 0; i < dyn.size(); ++i) {
    Poke(&out.bytes, out.dynamic_offset + i * sizeof(Dyn), dyn[i]);
  }
  out.load_address = kBase;
  return out;
}

inline BuiltElf BuildElf(const ElfSpec& spec) {
  if (spec.is64) return BuildElfOfClass<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn, ELFCLASS64>(spec);
  return BuildElfOfClass<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn, ELFCLASS32>(spec);
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace workgate::testing
