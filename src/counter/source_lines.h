#pragma once
// The source file and line Valgrind gives an instruction address, worked out
// after a run from the object's DWARF line tables, so that a profile kept by
// address names its lines exactly as callgrind would have named them.
//
// Valgrind 3.19 to 3.27 (readdwarf.c, storage.c) runs every line program of
// an object once and keeps a table of address ranges that a plain DWARF
// reader does not reproduce: it adds a range between each row and the row
// before it (is_stmt ignored), joins a range to the one added just before it
// when they share a line number even where their files differ, drops ranges
// that reach outside the object's executable segments or hold a line past
// 2^20 - 1, shrinks a range longer than 4095 bytes to 1 byte, and then sorts
// the table with its own unstable quicksort and cuts each range at the start
// of the next. Which of several ranges that start at one address survives
// depends on that sort, and a range of one compile unit can cut one of
// another, so the whole table is built, in Valgrind's order, before the first
// lookup; elfutils' libdw finds the compile units and their directories, and
// the line programs are run here, row for row as Valgrind runs them.

#include <cstdint>
#include <string>
#include <vector>

namespace workgate {

/// One object's line table as Valgrind reads it: the DWARF of the object
/// itself, or else of its detached debug file (by build ID under
/// /usr/lib/debug/.build-id, or by .gnu_debuglink, as Valgrind looks).
class ObjectLines {
 public:
  /// Reads the line tables of the ELF object `object` (the file the process
  /// mapped). False with `*why` when it cannot be read; an object without
  /// DWARF is no error: then no address has a line.
  bool Open(const std::string& object, std::string* why);

  /// As Open, for an object whose DWARF lies in a detached debug file only,
  /// read from `debug_file` (a decompressed copy of it: counter/debug_view.h)
  /// in place of the file Valgrind would find. An object with DWARF of its
  /// own gets no lines here: that DWARF (a build's own, which may be hostile)
  /// is read by Valgrind in the contained run, not by workgate.
  bool OpenDetached(const std::string& object, const std::string& debug_file, std::string* why);

  /// The file and line of the instruction at `svma` (an address in the
  /// object's own ELF address space: the runtime address less the load
  /// bias), the file as callgrind writes it: the directory, "/" and the
  /// name, or the name alone where the directory is empty; "???" for a
  /// line whose file index is out of range. False where Valgrind gives no
  /// line: outside the object's .text, or no range holds the address.
  bool Lookup(uint64_t svma, std::string* file, uint32_t* line) const;

  /// The file whose DWARF was read: the object, its debug file, or "" when
  /// neither has any.
  const std::string& dwarf_file() const { return dwarf_file_; }

  /// How many address ranges the table holds.
  size_t size() const { return ranges_.size(); }

 private:
  // A range of Valgrind's table (its DiLoc): [start, start + size).
  struct Range {
    uint64_t start = 0;
    uint32_t line = 0;
    uint32_t file = 0;  // index into files_
    uint16_t size = 0;
  };
  friend class LineTableBuilder;

  std::string dwarf_file_;
  uint64_t text_start_ = 0;  // the object's .text, where Valgrind looks lines up
  uint64_t text_end_ = 0;
  std::vector<Range> ranges_;       // sorted, disjoint
  std::vector<std::string> files_;  // files_[0] is "???"
};

}  // namespace workgate
