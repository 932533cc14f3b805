#include "identity/loader_paths.h"

#include <elf.h>

#include <cctype>

namespace workgate {

namespace {

// ld.so.cache entry flags (glibc's ldconfig writes them; the loader of each
// architecture takes one value): the library type in the low byte (3: an ELF
// library for glibc), the architecture variant in the next.
constexpr int32_t kCacheElfLibc6 = 0x0003;
constexpr int32_t kCacheX8664Lib64 = 0x0300;
constexpr int32_t kCacheArmHardFloat = 0x0900;
constexpr int32_t kCacheAarch64Lib64 = 0x0a00;
constexpr int32_t kCacheArmSoftFloat = 0x0b00;

// Debian's loaders search /lib/<triplet>, /usr/lib/<triplet>, /lib and
// /usr/lib (`ld.so --help` lists them), and expand $LIB to lib/<triplet>.
LoaderArch Debian(uint8_t elf_class, uint16_t machine, const std::string& triplet,
                  int32_t cache_flags, bool plain_elf) {
  LoaderArch arch;
  arch.elf_class = elf_class;
  arch.machine = machine;
  arch.lib = "lib/" + triplet;
  arch.cache_flags = cache_flags;
  arch.cache_takes_plain_elf = plain_elf;
  arch.default_dirs = {"/lib/" + triplet + "/", "/usr/lib/" + triplet + "/", "/lib/", "/usr/lib/"};
  return arch;
}

// The length of the token `name` at the start of `text` (which follows a
// '$'): "NAME" not followed by a letter, digit or '_', or "{NAME}"; 0 when
// `text` does not start with it.
size_t TokenLength(std::string_view text, std::string_view name) {
  if (!text.empty() && text[0] == '{') {
    if (text.substr(1, name.size()) != name || text.size() < name.size() + 2 ||
        text[name.size() + 1] != '}') {
      return 0;
    }
    return name.size() + 2;
  }
  if (text.substr(0, name.size()) != name) return 0;
  if (text.size() > name.size()) {
    unsigned char next = text[name.size()];
    if (std::isalnum(next) || next == '_') return 0;
  }
  return name.size();
}

}  // namespace

std::optional<LoaderArch> LoaderArchFor(const ElfFile& program) {
  if (program.elf_class == ELFCLASS64 && program.machine == EM_X86_64) {
    return Debian(ELFCLASS64, EM_X86_64, "x86_64-linux-gnu", kCacheX8664Lib64 | kCacheElfLibc6,
                  false);
  }
  if (program.elf_class == ELFCLASS32 && program.machine == EM_386) {
    // i386's loader uses glibc's generic cache check: plain ELF or libc6.
    return Debian(ELFCLASS32, EM_386, "i386-linux-gnu", kCacheElfLibc6, true);
  }
  if (program.elf_class == ELFCLASS64 && program.machine == EM_AARCH64) {
    return Debian(ELFCLASS64, EM_AARCH64, "aarch64-linux-gnu", kCacheAarch64Lib64 | kCacheElfLibc6,
                  false);
  }
  if (program.elf_class == ELFCLASS32 && program.machine == EM_ARM) {
    if (program.flags & EF_ARM_ABI_FLOAT_HARD) {
      return Debian(ELFCLASS32, EM_ARM, "arm-linux-gnueabihf", kCacheArmHardFloat | kCacheElfLibc6,
                    false);
    }
    return Debian(ELFCLASS32, EM_ARM, "arm-linux-gnueabi", kCacheArmSoftFloat | kCacheElfLibc6,
                  false);
  }
  return std::nullopt;
}

std::optional<std::string> ExpandDynamicTokens(std::string_view text, std::string_view origin,
                                               const LoaderArch& arch) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (out.size() > kMaxPathLength) return std::nullopt;
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    std::string_view rest = text.substr(i + 1);
    if (size_t n = TokenLength(rest, "ORIGIN")) {
      if (origin.empty()) return std::nullopt;
      out += origin;
      i += 1 + n;
    } else if (size_t n = TokenLength(rest, "LIB")) {
      out += arch.lib;
      i += 1 + n;
    } else if (TokenLength(rest, "PLATFORM")) {
      return std::nullopt;
    } else {
      out += text[i++];  // not a token the loader knows: a plain '$'
    }
  }
  if (out.size() > kMaxPathLength) return std::nullopt;
  return out;
}

void ForEachSearchDir(std::string_view list, std::string_view separators, std::string_view origin,
                      const LoaderArch& arch,
                      const std::function<bool(const std::string& dir)>& visit) {
  if (list.empty()) return;  // the loader ignores an empty list
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(separators, start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view element = list.substr(start, end - start);
    start = end + 1;
    std::string dir;
    if (!element.empty()) {
      std::optional<std::string> expanded = ExpandDynamicTokens(element, origin, arch);
      if (!expanded || expanded->empty()) continue;
      dir = std::move(*expanded);
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      if (dir.back() != '/') dir += '/';
    }
    if (!visit(dir)) return;
  }
}

}  // namespace workgate
