#include "identity/ld_so_cache.h"

#include <cstring>
#include <optional>

#include "identity/elf_file.h"

namespace workgate {

namespace {

// The old format: an 11-byte magic, the entry count at offset 12, then
// 12-byte entries (flags, name offset, path offset) and their strings.
constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr size_t kOldHeader = 16;
constexpr size_t kOldEntry = 12;
// The new format: a 20-byte magic and version, the entry count at 20, the
// string table's length at 24, a byte-order byte at 28, 48 bytes in all;
// then 24-byte entries (flags, name offset, path offset, an unused OS
// version, hwcap bits). Its offsets count from the start of its header.
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr size_t kNewHeader = 48;
constexpr size_t kNewEntry = 24;
// The byte-order byte: 0 (not set) is accepted, 1 is invalid.
constexpr uint8_t kNewLittleEndian = 2;
constexpr uint8_t kNewBigEndian = 3;
// The loader takes the new format after the old one at the next multiple
// of the new header's alignment (its 64-bit hwcap fields).
constexpr size_t kNewAlignment = 8;

template <typename T>
T At(std::string_view bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// The NUL-terminated string at `offset` in `strings`, or nullopt when it
// does not end inside them.
std::optional<std::string> StringAt(std::string_view strings, uint64_t offset) {
  if (offset >= strings.size()) return std::nullopt;
  size_t nul = strings.find('\0', offset);
  if (nul == std::string_view::npos) return std::nullopt;
  return std::string(strings.substr(offset, nul - offset));
}

// Entries of `count` records of `entry_size` bytes at `table`, with strings
// at offsets counted from the start of `strings`.
void ReadEntries(std::string_view table, uint64_t count, size_t entry_size,
                 std::string_view strings, std::vector<LdSoCacheEntry>* entries) {
  for (uint64_t i = 0; i < count; ++i) {
    const size_t at = i * entry_size;
    LdSoCacheEntry e;
    e.flags = At<int32_t>(table, at);
    std::optional<std::string> name = StringAt(strings, At<uint32_t>(table, at + 4));
    std::optional<std::string> path = StringAt(strings, At<uint32_t>(table, at + 8));
    if (!name || !path) continue;
    e.name = std::move(*name);
    e.path = std::move(*path);
    if (entry_size == kNewEntry) e.hwcap = At<uint64_t>(table, at + 16);
    entries->push_back(std::move(e));
  }
}

bool ParseNew(std::string_view bytes, std::vector<LdSoCacheEntry>* entries, std::string* err) {
  if (bytes.size() < kNewHeader) {
    *err = "ld.so.cache header truncated";
    return false;
  }
  const uint32_t count = At<uint32_t>(bytes, 20);
  const uint8_t order = static_cast<uint8_t>(bytes[28]) & 3;
  const uint8_t host =
      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ? kNewLittleEndian : kNewBigEndian;
  if (order != 0 && order != host) {
    *err = "ld.so.cache is for another byte order";
    return false;
  }
  if (count > (bytes.size() - kNewHeader) / kNewEntry) {
    *err = "ld.so.cache has more entries than bytes";
    return false;
  }
  ReadEntries(bytes.substr(kNewHeader), count, kNewEntry, bytes, entries);
  return true;
}

}  // namespace

bool ParseLdSoCache(std::string_view bytes, std::vector<LdSoCacheEntry>* entries,
                    std::string* err) {
  entries->clear();
  if (bytes.substr(0, kNewMagic.size()) == kNewMagic) return ParseNew(bytes, entries, err);
  if (bytes.substr(0, kOldMagic.size()) != kOldMagic || bytes.size() < kOldHeader) {
    *err = "not an ld.so.cache file";
    return false;
  }
  const uint32_t count = At<uint32_t>(bytes, kOldMagic.size() + 1);
  if (count > (bytes.size() - kOldHeader) / kOldEntry) {
    *err = "ld.so.cache has more entries than bytes";
    return false;
  }
  const size_t old_end = kOldHeader + size_t{count} * kOldEntry;
  const size_t new_start = (old_end + kNewAlignment - 1) / kNewAlignment * kNewAlignment;
  if (new_start < bytes.size() && bytes.substr(new_start, kNewMagic.size()) == kNewMagic) {
    return ParseNew(bytes.substr(new_start), entries, err);
  }
  ReadEntries(bytes.substr(kOldHeader), count, kOldEntry, bytes.substr(old_end), entries);
  return true;
}

std::vector<LdSoCacheEntry> LoadLdSoCache(const std::string& path) {
  std::vector<LdSoCacheEntry> entries;
  FileSource file;
  std::string err, bytes;
  if (!file.Open(path, &err) || file.Stat().st_size > static_cast<off_t>(kMaxLdSoCacheBytes)) {
    return entries;
  }
  if (!file.ReadAt(0, kMaxLdSoCacheBytes, &bytes, &err)) return entries;
  if (!ParseLdSoCache(bytes, &entries, &err)) entries.clear();
  return entries;
}

std::string LookUpLdSoCache(const std::vector<LdSoCacheEntry>& entries, std::string_view name,
                            int32_t arch_flags, bool takes_plain_elf) {
  for (const LdSoCacheEntry& e : entries) {
    if (e.name != name || e.hwcap != 0) continue;
    if (e.flags == arch_flags || (takes_plain_elf && e.flags == 1)) return e.path;
  }
  return "";
}

}  // namespace workgate
