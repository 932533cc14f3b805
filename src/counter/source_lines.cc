#include "counter/source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>

#include "counter/debug_view.h"

namespace workgate {

namespace {

// Valgrind's limits on a range (priv_storage.h): 12 bits of size, 20 of line.
constexpr uint64_t kMaxRangeSize = (1u << 12) - 1;
constexpr uint32_t kMaxLine = (1u << 20) - 1;

Elf_Scn* NamedSection(Elf* elf, std::string_view name, GElf_Shdr* shdr) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return nullptr;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    if (gelf_getshdr(scn, shdr) == nullptr) continue;
    const char* n = elf_strptr(elf, shstrndx, shdr->sh_name);
    if (n != nullptr && name == n) return scn;
  }
  return nullptr;
}

// The bytes of the section `name` (or of its ".zdebug" form, GNU's older
// compression), decompressed; empty where there is none or it is NOBITS.
std::string_view SectionBytes(Elf* elf, const std::string& name) {
  GElf_Shdr shdr;
  Elf_Scn* scn = NamedSection(elf, name, &shdr);
  bool gnu_compressed = false;
  if (scn == nullptr && name.starts_with(".debug_")) {
    scn = NamedSection(elf, ".z" + name.substr(1), &shdr);
    gnu_compressed = scn != nullptr;
  }
  if (scn == nullptr || shdr.sh_type == SHT_NOBITS) return {};
  // libdw may have decompressed the section in this same handle already;
  // then the flag is gone, and a ".zdebug" one no longer starts "ZLIB".
  if ((shdr.sh_flags & SHF_COMPRESSED) != 0 && elf_compress(scn, 0, 0) < 0) return {};
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (gnu_compressed && data != nullptr && data->d_size >= 4 &&
      memcmp(data->d_buf, "ZLIB", 4) == 0) {
    if (elf_compress_gnu(scn, 0, 0) < 0) return {};
    data = elf_getdata(scn, nullptr);
  }
  if (data == nullptr || data->d_buf == nullptr) return {};
  return {static_cast<const char*>(data->d_buf), data->d_size};
}

bool HasSection(Elf* elf, const std::string& name) {
  GElf_Shdr shdr;
  return NamedSection(elf, name, &shdr) != nullptr;
}

// The CRC .gnu_debuglink names: zlib's CRC-32 of the whole file.
bool FileCrcIs(const std::string& path, uint32_t want) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  uLong crc = crc32(0, nullptr, 0);
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) crc = crc32(crc, reinterpret_cast<Bytef*>(buf), n);
  close(fd);
  return n == 0 && static_cast<uint32_t>(crc) == want;
}

bool IsRegularElf(const std::string& path) {
  ElfForReading elf(path);
  return elf.get() != nullptr;
}

// The debug file Valgrind reads for `object` (readelf.c, find_debug_file):
// looked for only where the object has no .debug_info of its own; first by
// build ID (the debug file's must match), then by the .gnu_debuglink name
// beside the object, in its .debug folder and under /usr/lib/debug, each also
// with the object's folder cut after its first "usr" (a merged /usr), the
// file's CRC matching the link's. "" when none is found.
std::string ValgrindDebugFile(const std::string& object, Elf* elf) {
  const std::string build_id = ElfBuildId(object);
  if (!build_id.empty()) {
    const std::string by_id = DetachedDebugFile(object);
    if (!by_id.empty() && DebugFileBuildId(by_id) == build_id) return by_id;
  }
  const std::string_view link = SectionBytes(elf, ".gnu_debuglink");
  const size_t name_end = link.find('\0');
  if (name_end == std::string_view::npos || name_end == 0) return "";
  const std::string name(link.substr(0, name_end));
  const size_t crc_at = (name_end + 1 + 3) & ~size_t{3};
  if (crc_at + 4 > link.size()) return "";
  uint32_t crc = 0;
  memcpy(&crc, link.data() + crc_at, 4);  // in the object's byte order, which is ours

  const size_t slash = object.rfind('/');
  std::string dir = slash == std::string::npos ? object : object.substr(0, slash);
  const size_t usr = dir.find("usr");
  const bool has_usrmerge = usr != std::string::npos;
  const std::string usrmerge_dir = has_usrmerge ? dir.substr(usr + 3) : "";
  std::vector<std::string> candidates;
  if (name[0] == '/') candidates.push_back(name);
  for (const char* format : {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"}) {
    for (int merged = 0; merged < (has_usrmerge ? 2 : 1); ++merged) {
      const std::string& d = merged ? usrmerge_dir : dir;
      std::string path = format;
      path.replace(path.find("%s"), 2, d);
      path.replace(path.find("%s"), 2, name);
      candidates.push_back(path);
    }
  }
  // A build ID with a zero CRC would be checked by build ID, but a link
  // always carries its CRC.
  for (const std::string& path : candidates) {
    if (crc == 0 && !build_id.empty()) {
      if (DebugFileBuildId(path) == build_id) return path;
    } else if (IsRegularElf(path) && FileCrcIs(path, crc)) {
      return path;
    }
  }
  return "";
}

// A bounded reader of DWARF bytes. Reading past the end leaves it failed,
// and every read after that yields zero.
class DwarfCursor {
 public:
  DwarfCursor(std::string_view bytes, size_t at) : bytes_(bytes), at_(at) {
    if (at > bytes.size()) failed_ = true;
  }
  bool failed() const { return failed_; }
  size_t at() const { return at_; }
  void Seek(size_t at) {
    if (at > bytes_.size()) failed_ = true;
    at_ = at;
  }
  uint64_t Fixed(size_t n) {
    if (failed_ || bytes_.size() - at_ < n) {
      failed_ = true;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(bytes_[at_ + i])} << (8 * i);
    at_ += n;
    return v;
  }
  uint8_t U8() { return static_cast<uint8_t>(Fixed(1)); }
  uint8_t Peek() const { return failed_ || at_ >= bytes_.size() ? 0 : bytes_[at_]; }
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = U8();
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0 || failed_) return v;
    }
  }
  int64_t Sleb() {
    uint64_t v = 0;
    int shift = 0;
    uint8_t b;
    do {
      b = U8();
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
    } while ((b & 0x80) != 0 && !failed_);
    if (shift < 64 && (b & 0x40) != 0) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  std::string String() {
    const size_t end = failed_ ? std::string_view::npos : bytes_.find('\0', at_);
    if (end == std::string_view::npos) {
      failed_ = true;
      return "";
    }
    std::string s(bytes_.substr(at_, end - at_));
    at_ = end + 1;
    return s;
  }

 private:
  std::string_view bytes_;
  size_t at_;
  bool failed_ = false;
};

std::string StringAt(std::string_view section, uint64_t offset) {
  if (offset >= section.size()) return "";
  const size_t end = section.find('\0', offset);
  return std::string(section.substr(offset, end == std::string_view::npos ? end : end - offset));
}

// Valgrind's VG_(ssort), a Bentley-McIlroy quicksort, as it runs on a 64-bit
// host over an array of 32-bit indices (elements smaller than a word are
// swapped byte by byte, so the pivot is swapped to the front). It is not
// stable, and which of several ranges with the same start comes last decides
// which one survives: hence this copy rather than std::sort.
template <typename Compare>
void ValgrindSort(uint32_t* a, size_t n, const Compare& cmp) {
  auto med3 = [&](uint32_t* x, uint32_t* y, uint32_t* z) {
    return cmp(x, y) < 0 ? (cmp(y, z) < 0   ? y
                            : cmp(x, z) < 0 ? z
                                            : x)
                         : (cmp(y, z) > 0   ? y
                            : cmp(x, z) > 0 ? z
                                            : x);
  };
  auto vecswap = [](uint32_t* x, uint32_t* y, ptrdiff_t k) {
    for (; k > 0; --k) std::swap(*x++, *y++);
  };
  for (;;) {
    if (n < 7) {
      for (uint32_t* pm = a + 1; pm < a + n; ++pm)
        for (uint32_t* pl = pm; pl > a && cmp(pl - 1, pl) > 0; --pl) std::swap(*pl, *(pl - 1));
      return;
    }
    uint32_t* pm = a + n / 2;
    if (n > 7) {
      uint32_t* pl = a;
      uint32_t* pn = a + n - 1;
      if (n > 40) {
        const size_t s = n / 8;
        pl = med3(pl, pl + s, pl + 2 * s);
        pm = med3(pm - s, pm, pm + s);
        pn = med3(pn - 2 * s, pn - s, pn);
      }
      pm = med3(pl, pm, pn);
    }
    std::swap(*a, *pm);
    uint32_t* const pv = a;
    uint32_t* pa = a;
    uint32_t* pb = a;
    uint32_t* pc = a + n - 1;
    uint32_t* pd = pc;
    for (;;) {
      int r;
      while (pb <= pc && (r = cmp(pb, pv)) <= 0) {
        if (r == 0) std::swap(*pa++, *pb);
        ++pb;
      }
      while (pc >= pb && (r = cmp(pc, pv)) >= 0) {
        if (r == 0) std::swap(*pc, *pd--);
        --pc;
      }
      if (pb > pc) break;
      std::swap(*pb++, *pc--);
    }
    uint32_t* const pn = a + n;
    ptrdiff_t s = std::min(pa - a, pb - pa);
    vecswap(a, pb - s, s);
    s = std::min(pd - pc, pn - pd - 1);
    vecswap(pb, pn - s, s);
    const ptrdiff_t s1 = pb - pa;
    const ptrdiff_t s2 = pd - pc;
    if (s1 < s2) {
      if (s1 > 1) ValgrindSort(a, s1, cmp);
      if (s2 <= 1) return;
      a = pn - s2;
      n = s2;
    } else {
      if (s2 > 1) ValgrindSort(pn - s2, s2, cmp);
      if (s1 <= 1) return;
      n = s1;
    }
  }
}

// What Valgrind keeps of a compile unit's first DIE (readdwarf.c, UnitInfo).
struct UnitLines {
  uint64_t stmt_list = 0;
  bool has_comp_dir = false;
  std::string comp_dir;
  bool offset64 = false;  // the unit's 64-bit DWARF: the size of its strp forms
};

}  // namespace

// Builds an ObjectLines' table the way Valgrind builds its DiLoc table:
// ML_(addLineInfo) and addLoc for each row pair, then canonicaliseLoctab.
class LineTableBuilder {
 public:
  LineTableBuilder(std::string_view line, std::string_view str, std::string_view line_str,
                   std::vector<std::pair<uint64_t, uint64_t>> executable, int64_t delta)
      : line_(line),
        str_(str),
        line_str_(line_str),
        executable_(std::move(executable)),
        delta_(delta) {
    files_.push_back("???");
  }

  void ReadUnit(const UnitLines& unit);
  void Finish(ObjectLines* out);

 private:
  // The state machine's registers (readdwarf.c, LineSMR).
  struct Registers {
    uint64_t last_address = 0;
    uint32_t last_file = 1;
    uint32_t last_line = 1;
    uint64_t address = 0;
    uint32_t file = 1;
    uint32_t line = 1;
  };

  uint32_t AddFile(const std::string& name, const std::string* dir);
  std::string LineString(DwarfCursor* c, uint64_t form, const UnitLines& unit);
  static void SkipForm(DwarfCursor* c, uint64_t form, const UnitLines& unit);
  void AddRow(const std::vector<uint32_t>& files, Registers* r);
  void AddRange(uint32_t file, uint64_t from, uint64_t to, uint32_t line);

  std::string_view line_, str_, line_str_;
  std::vector<std::pair<uint64_t, uint64_t>> executable_;
  int64_t delta_;
  std::vector<ObjectLines::Range> loctab_;
  std::map<std::pair<std::string, std::string>, uint32_t> file_ids_;
  std::vector<std::string> files_;
};

uint32_t LineTableBuilder::AddFile(const std::string& name, const std::string* dir) {
  // callgrind's get_file_node: "dir/name", or the name where dir is empty.
  const std::string joined = dir == nullptr || dir->empty() ? name : *dir + "/" + name;
  auto [it, added] = file_ids_.try_emplace({name, dir == nullptr ? "" : *dir}, files_.size());
  if (added) files_.push_back(joined);
  return it->second;
}

// get_line_str: a path of a DWARF 5 directory or file entry.
std::string LineTableBuilder::LineString(DwarfCursor* c, uint64_t form, const UnitLines& unit) {
  switch (form) {
    case DW_FORM_string:
      return c->String();
    case DW_FORM_strp:
      return StringAt(str_, c->Fixed(unit.offset64 ? 8 : 4));
    case DW_FORM_line_strp:
      return StringAt(line_str_, c->Fixed(unit.offset64 ? 8 : 4));
    default:
      return "";  // Valgrind complains and reads nothing
  }
}

// skip_line_form: forms Valgrind does not know are skipped by nothing.
void LineTableBuilder::SkipForm(DwarfCursor* c, uint64_t form, const UnitLines& unit) {
  switch (form) {
    case DW_FORM_block:
      c->Seek(c->at() + c->Uleb());
      break;
    case DW_FORM_block1:
      c->Seek(c->at() + c->Fixed(1));
      break;
    case DW_FORM_block2:
      c->Seek(c->at() + c->Fixed(2));
      break;
    case DW_FORM_block4:
      c->Seek(c->at() + c->Fixed(4));
      break;
    case DW_FORM_flag:
    case DW_FORM_data1:
      c->Fixed(1);
      break;
    case DW_FORM_data2:
      c->Fixed(2);
      break;
    case DW_FORM_data4:
      c->Fixed(4);
      break;
    case DW_FORM_data8:
      c->Fixed(8);
      break;
    case DW_FORM_data16:
      c->Seek(c->at() + 16);
      break;
    case DW_FORM_string:
      c->String();
      break;
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_sec_offset:
      c->Fixed(unit.offset64 ? 8 : 4);
      break;
    case DW_FORM_udata:
      c->Uleb();
      break;
    case DW_FORM_sdata:
      c->Sleb();
      break;
    default:
      break;
  }
}

// ML_(addLineInfo) and addLoc.
void LineTableBuilder::AddRange(uint32_t file, uint64_t from, uint64_t to, uint32_t line) {
  from += delta_;
  to += delta_;
  if (from == to) return;
  uint64_t size = to - from;
  if (from > to || size > kMaxRangeSize) size = 1;
  const uint64_t last = from + size - 1;
  const bool in_executable =
      std::any_of(executable_.begin(), executable_.end(),
                  [&](const auto& seg) { return from >= seg.first && last < seg.second; });
  // The line is a signed int there: one past 2^31 is negative, and dropped too.
  if (!in_executable || line > kMaxLine) return;
  // Joined with the range added just before where the two meet and share a
  // line number, whatever their files.
  if (!loctab_.empty()) {
    ObjectLines::Range& previous = loctab_.back();
    if (previous.line == line && previous.start + previous.size == from &&
        previous.size + size <= kMaxRangeSize) {
      previous.size = static_cast<uint16_t>(previous.size + size);
      return;
    }
  }
  loctab_.push_back({from, line, file, static_cast<uint16_t>(size)});
}

void LineTableBuilder::AddRow(const std::vector<uint32_t>& files, Registers* r) {
  // Only where a row came before; a sequence whose rows start at address 0
  // (code the linker dropped) gives nothing for its first row.
  if (r->last_address != 0) {
    const int32_t index = static_cast<int32_t>(r->last_file);
    const uint32_t file =
        index >= 0 && static_cast<size_t>(index) < files.size() ? files[index] : 0;
    AddRange(file, r->last_address, r->address, r->last_line);
  }
  r->last_address = r->address;
  r->last_file = r->file;
  r->last_line = r->line;
}

// read_dwarf2_lineblock, step for step, quirks included: the opcodes start
// where the file table ends (header_length is not consulted),
// DW_LNE_set_address reads a whole address whatever its length says, and an
// unknown extended opcode's operands are not skipped.
void LineTableBuilder::ReadUnit(const UnitLines& unit) {
  DwarfCursor c(line_, unit.stmt_list);
  if (c.failed()) return;
  const size_t block = unit.stmt_list;
  uint64_t length = c.Fixed(4);
  bool is64 = false;
  if (length == 0xffffffffu) {
    is64 = true;
    length = c.Fixed(8);
  }
  if (length > line_.size() - block) return;
  const unsigned version = c.Fixed(2);
  if (version < 2 || version > 5) return;
  if (version >= 5) c.Fixed(2);  // address and segment selector sizes
  c.Fixed(is64 ? 8 : 4);         // header_length
  const uint8_t min_insn_length = c.U8();
  if (version >= 4 && c.U8() != 1) return;  // VLIW line tables are refused
  c.U8();                                   // default_is_stmt
  const int line_base = static_cast<int8_t>(c.U8());
  const uint8_t line_range = c.U8();
  const uint8_t opcode_base = c.U8();
  if (c.failed() || line_range == 0) return;
  const size_t end = block + length + (is64 ? 12 : 4);
  const size_t standard_opcodes = c.at();
  c.Seek(standard_opcodes + opcode_base - 1);

  // Directory 0 of DWARF 2 to 4 is the unit's comp_dir ("." without one);
  // DWARF 5 lists it itself. A relative directory is put under a non-empty
  // comp_dir, ".." and "." left as they are.
  std::vector<std::string> dirs;
  auto under_comp_dir = [&](std::string dir) {
    if (dir[0] != '/' && unit.has_comp_dir && !unit.comp_dir.empty())
      dir = unit.comp_dir + "/" + dir;
    return dir;
  };
  auto dir_at = [&](int64_t index) -> const std::string* {
    const int32_t i = static_cast<int32_t>(index);
    return i >= 0 && static_cast<size_t>(i) < dirs.size() ? &dirs[i] : nullptr;
  };
  std::vector<uint32_t> files;  // fndn_ix_xa: file register -> files_ index
  if (version < 5) {
    files.push_back(0);
    dirs.push_back(unit.has_comp_dir ? unit.comp_dir : ".");
    while (!c.failed() && c.Peek() != 0) dirs.push_back(under_comp_dir(c.String()));
    c.U8();
    while (!c.failed() && c.Peek() != 0) {
      const std::string name = c.String();
      const int64_t dir = static_cast<int64_t>(c.Uleb());
      c.Uleb();  // modification time
      c.Uleb();  // size
      files.push_back(AddFile(name, dir_at(dir)));
    }
    c.U8();
  } else {
    // One path column and one directory column, the last of each kind; the
    // path's column carries over from the directory table's format.
    uint8_t path_column = 0;
    uint8_t dir_column = 0;
    uint64_t forms[256] = {};
    const uint8_t dir_format_count = c.U8();
    for (unsigned n = 0; n < dir_format_count; ++n) {
      const uint64_t content = c.Uleb();
      forms[n] = c.Uleb();
      if (content == DW_LNCT_path) path_column = n;
    }
    const uint32_t dir_count = static_cast<uint32_t>(c.Uleb());
    for (uint32_t n = 0; n < dir_count && !c.failed(); ++n) {
      for (unsigned f = 0; f < dir_format_count; ++f) {
        if (f == path_column) {
          dirs.push_back(under_comp_dir(LineString(&c, forms[f], unit)));
        } else {
          SkipForm(&c, forms[f], unit);
        }
      }
    }
    const uint8_t file_format_count = c.U8();
    for (unsigned n = 0; n < file_format_count; ++n) {
      const uint64_t content = c.Uleb();
      forms[n] = c.Uleb();
      if (content == DW_LNCT_path) path_column = n;
      if (content == DW_LNCT_directory_index) dir_column = n;
    }
    const uint32_t file_count = static_cast<uint32_t>(c.Uleb());
    for (uint32_t n = 0; n < file_count && !c.failed(); ++n) {
      std::string name;
      int64_t dir = 0;
      for (unsigned f = 0; f < file_format_count; ++f) {
        if (f == path_column) {
          name = LineString(&c, forms[f], unit);
        } else if (f == dir_column) {
          switch (forms[f]) {
            case DW_FORM_data1:
              dir = c.Fixed(1);
              break;
            case DW_FORM_data2:
              dir = c.Fixed(2);
              break;
            case DW_FORM_udata:
              dir = static_cast<int64_t>(c.Uleb());
              break;
            default:
              break;
          }
        } else {
          SkipForm(&c, forms[f], unit);
        }
      }
      files.push_back(AddFile(name, dir_at(dir)));
    }
  }

  Registers r;
  while (!c.failed() && c.at() < end) {
    uint8_t op = c.U8();
    if (op >= opcode_base) {
      op -= opcode_base;
      r.address += static_cast<uint64_t>(op / line_range) * min_insn_length;
      r.line += (op % line_range) + line_base;
      AddRow(files, &r);
      continue;
    }
    switch (op) {
      case 0: {  // extended
        if (c.Uleb() == 0) break;
        switch (c.U8()) {
          case DW_LNE_end_sequence:
            if (r.last_address != 0) {
              const int32_t index = static_cast<int32_t>(r.last_file);
              const uint32_t file =
                  index >= 0 && static_cast<size_t>(index) < files.size() ? files[index] : 0;
              AddRange(file, r.last_address, r.address, r.last_line);
            }
            r = Registers();
            break;
          case DW_LNE_set_address:
            r.address = c.Fixed(8);
            break;
          case DW_LNE_define_file: {
            const std::string name = c.String();
            files.push_back(AddFile(name, nullptr));
            c.Uleb();
            c.Uleb();
            c.Uleb();
            break;
          }
          case DW_LNE_set_discriminator:
            c.Uleb();
            break;
          default:
            break;
        }
        break;
      }
      case DW_LNS_copy:
        AddRow(files, &r);
        break;
      case DW_LNS_advance_pc:
        r.address += min_insn_length * c.Uleb();
        break;
      case DW_LNS_advance_line:
        r.line += static_cast<uint32_t>(c.Sleb());
        break;
      case DW_LNS_set_file:
        r.file = static_cast<uint32_t>(c.Uleb());
        break;
      case DW_LNS_set_column:
      case DW_LNS_set_isa:
        c.Uleb();
        break;
      case DW_LNS_negate_stmt:
      case DW_LNS_set_basic_block:
      case DW_LNS_set_prologue_end:
      case DW_LNS_set_epilogue_begin:
        break;
      case DW_LNS_const_add_pc:
        r.address += static_cast<uint64_t>((255u - opcode_base) / line_range) * min_insn_length;
        break;
      case DW_LNS_fixed_advance_pc:
        r.address += c.Fixed(2);
        break;
      default: {
        DwarfCursor lengths(line_, standard_opcodes + op - 1);
        for (unsigned j = lengths.U8(); j > 0; --j) c.Uleb();
        break;
      }
    }
  }
}

// canonicaliseLoctab: sort by start (Valgrind's sort), cut each range at the
// next one's start, drop the empty ones.
void LineTableBuilder::Finish(ObjectLines* out) {
  std::vector<uint32_t> order(loctab_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  ValgrindSort(order.data(), order.size(), [&](const uint32_t* x, const uint32_t* y) {
    const uint64_t a = loctab_[*x].start;
    const uint64_t b = loctab_[*y].start;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  std::vector<ObjectLines::Range> sorted;
  sorted.reserve(order.size());
  for (uint32_t i : order) sorted.push_back(loctab_[i]);
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    if (sorted[i].start + sorted[i].size > sorted[i + 1].start) {
      // A 32-bit difference there, as the sizes are 12 bits.
      const int32_t cut = static_cast<int32_t>(sorted[i + 1].start - sorted[i].start);
      sorted[i].size = cut < 0 ? 0 : static_cast<uint16_t>(std::min<int64_t>(cut, kMaxRangeSize));
    }
  }
  std::erase_if(sorted, [](const ObjectLines::Range& r) { return r.size == 0; });
  out->ranges_ = std::move(sorted);
  out->files_ = std::move(files_);
}

bool ObjectLines::Open(const std::string& object, std::string* why) {
  return OpenDetached(object, "", why);
}

bool ObjectLines::OpenDetached(const std::string& object, const std::string& detached,
                               std::string* why) {
  *this = ObjectLines();
  ElfForReading main(object);
  if (main.get() == nullptr) {
    *why = object + ": not a readable ELF file" +
           (main.fd() < 0 ? std::string(" (") + strerror(errno) + ")" : "");
    return false;
  }
  const long page = sysconf(_SC_PAGESIZE);
  // The mappings Valgrind calls r-x (readable, executable, not writable), as
  // the loader maps them: whole pages.
  std::vector<std::pair<uint64_t, uint64_t>> executable;
  size_t phnum = 0;
  if (elf_getphdrnum(main.get(), &phnum) != 0) {
    *why = object + ": no program headers";
    return false;
  }
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(main.get(), static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD || (phdr.p_flags & (PF_R | PF_X | PF_W)) != (PF_R | PF_X)) continue;
    const uint64_t start = phdr.p_vaddr & ~uint64_t(page - 1);
    const uint64_t end = (phdr.p_vaddr + phdr.p_filesz + page - 1) & ~uint64_t(page - 1);
    if (end > start) executable.emplace_back(start, end);
  }
  // Lines are looked up only inside .text, and only where .text is mapped
  // r-x (Valgrind refuses the object otherwise).
  GElf_Shdr text;
  if (NamedSection(main.get(), ".text", &text) == nullptr) return true;
  const bool text_mapped = std::any_of(executable.begin(), executable.end(), [&](const auto& seg) {
    return text.sh_addr >= seg.first && text.sh_addr + text.sh_size <= seg.second;
  });
  if (!text_mapped) return true;

  std::string dwarf_path = object;
  const bool own_dwarf = HasSection(main.get(), ".debug_info") || HasSection(main.get(), ".zdebug_info");
  if (own_dwarf && !detached.empty()) {
    text_start_ = text_end_ = 0;
    return true;
  }
  if (!own_dwarf) {
    dwarf_path = !detached.empty() ? detached : ValgrindDebugFile(object, main.get());
    if (dwarf_path.empty()) {
      text_start_ = text_end_ = 0;
      return true;
    }
  }
  ElfForReading debug(dwarf_path);
  Elf* const elf = dwarf_path == object ? main.get() : debug.get();
  if (elf == nullptr) {
    *why = dwarf_path + ": not a readable ELF file";
    return false;
  }
  // Where a prelinked object's debug file has its .text elsewhere, its
  // addresses are moved by the difference.
  int64_t delta = 0;
  GElf_Shdr debug_text;
  if (elf != main.get() && NamedSection(elf, ".text", &debug_text) != nullptr) {
    delta = static_cast<int64_t>(text.sh_addr - debug_text.sh_addr);
  }

  Dwarf* dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (dwarf == nullptr) {
    // No .debug_info (or none libdw takes): Valgrind reads no lines either.
    text_start_ = text.sh_addr;
    text_end_ = text.sh_addr + text.sh_size;
    dwarf_file_.clear();
    return true;
  }
  std::vector<UnitLines> units;
  Dwarf_Off offset = 0;
  Dwarf_Off next = 0;
  size_t header_size = 0;
  uint8_t offset_size = 0;
  while (dwarf_next_unit(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr,
                         &offset_size, nullptr, nullptr) == 0) {
    Dwarf_Die die;
    // Valgrind takes the line table of a compile unit only: not of a
    // partial unit, nor a type or skeleton unit.
    if (dwarf_offdie(dwarf, offset + header_size, &die) != nullptr &&
        dwarf_tag(&die) == DW_TAG_compile_unit) {
      Dwarf_Attribute attr;
      Dwarf_Word stmt_list = 0;
      if (dwarf_attr(&die, DW_AT_stmt_list, &attr) != nullptr &&
          dwarf_formudata(&attr, &stmt_list) == 0) {
        UnitLines unit;
        unit.stmt_list = stmt_list;
        unit.offset64 = offset_size == 8;
        const char* comp_dir = dwarf_formstring(dwarf_attr(&die, DW_AT_comp_dir, &attr));
        unit.has_comp_dir = comp_dir != nullptr;
        if (comp_dir != nullptr) unit.comp_dir = comp_dir;
        units.push_back(std::move(unit));
      }
    }
    offset = next;
  }
  dwarf_end(dwarf);

  LineTableBuilder builder(SectionBytes(elf, ".debug_line"), SectionBytes(elf, ".debug_str"),
                           SectionBytes(elf, ".debug_line_str"), std::move(executable), delta);
  for (const UnitLines& unit : units) builder.ReadUnit(unit);
  builder.Finish(this);
  dwarf_file_ = dwarf_path;
  text_start_ = text.sh_addr;
  text_end_ = text.sh_addr + text.sh_size;
  return true;
}

bool ObjectLines::Lookup(uint64_t svma, std::string* file, uint32_t* line) const {
  if (svma < text_start_ || svma >= text_end_) return false;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), svma,
                             [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == ranges_.begin()) return false;
  --it;
  if (svma - it->start >= it->size) return false;
  *file = files_[it->file];
  *line = it->line;
  return true;
}

}  // namespace workgate
