#pragma once
// /etc/ld.so.cache, which ldconfig writes and the dynamic loader consults for
// a library name no search path found: glibc's "glibc-ld.so.cache1.1"
// format, alone or after the old "ld.so-1.7.0" one, or the old one alone.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace workgate {

/// One library the cache names.
struct LdSoCacheEntry {
  int32_t flags = 0;   // library type and architecture variant (see LoaderArch)
  uint64_t hwcap = 0;  // non-zero: for a glibc-hwcaps subdirectory or a legacy hwcap
  std::string name;    // the soname looked up: "libc.so.6"
  std::string path;    // "/lib/x86_64-linux-gnu/libc.so.6"
};

/// Larger caches are not read: real ones are tens of KiB.
inline constexpr size_t kMaxLdSoCacheBytes = 64 << 20;

/// The entries of the cache in `bytes`, in file order. Entries whose strings
/// lie outside the bytes are dropped, as the loader skips them. False with
/// `*err` when the bytes are not a cache in this machine's byte order (the
/// loader then ignores the file).
bool ParseLdSoCache(std::string_view bytes, std::vector<LdSoCacheEntry>* entries, std::string* err);

/// The entries of the cache file at `path`; none when it is absent, larger
/// than kMaxLdSoCacheBytes, or not a cache: the loader then does without it.
std::vector<LdSoCacheEntry> LoadLdSoCache(const std::string& path);

/// The path the loader takes from the cache for `name`: the first entry, in
/// file order, with that name and flags `arch_flags` (or 1, plain ELF, when
/// `takes_plain_elf`). Entries with hwcap bits are skipped: they stand for
/// glibc-hwcaps subdirectories (x86-64-v2..v4) chosen by CPU features, which
/// workgate does not reproduce (and which differ under Valgrind's CPU). ""
/// when the cache has no such entry.
std::string LookUpLdSoCache(const std::vector<LdSoCacheEntry>& entries, std::string_view name,
                            int32_t arch_flags, bool takes_plain_elf);

}  // namespace workgate
