#pragma once
// A vgcount profile whose lines were kept by address, named after the run.
//
// A run that keeps a profile needs glibc's symbols (its internal function
// names) but would otherwise parse the DWARF line tables of every compile
// unit of glibc, in every run. workgate shows it the detached debug files of
// the system's libraries without their DWARF (counter/debug_view.h), and
// vgcount (--vgcount-lines-by-address, tools/vgcount/vgcount_lines.c) writes
// each instruction it then has no line for as its address in its object,
// under a marker "file". NameProfileLines turns those back into the files
// and lines Valgrind would have given (counter/source_lines.h reads them as
// Valgrind does), once per object for a whole gate rather than once per run,
// and writes the profile in vgcount's ordinary form: what a run that read
// the debug files itself would have written, as callgrind's reader sums it.

#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string>

namespace workgate {

/// The file and line of the instruction at `address` in `object` (the path
/// the run mapped), as Valgrind would give it. False when it gives none, or
/// when `object` is not one whose lines workgate names: the instruction then
/// keeps callgrind's no-line rule.
using LineLookup =
    std::function<bool(const std::string& object, uint64_t address, std::string* file,
                       uint32_t* line)>;

/// Rewrites the profile read from `in` (callgrind's format, as vgcount
/// writes it) to `out`, every marker file named through `lookup`: each cost
/// line by address becomes its file and line (switching files with fi= and
/// fe= as needed), a function's own file the file of its first instruction.
/// A line at a time: memory stays bounded by the longest line and the file
/// names, however large the profile. False with `*err` on a line it cannot
/// read or one longer than `max_line_bytes`.
bool NameProfileLines(std::istream& in, const LineLookup& lookup, std::ostream& out,
                      std::string* err, size_t max_line_bytes = 16 << 20);

/// Whether the profile read from `in` holds a marker at all.
bool HasAddressLines(std::istream& in);

}  // namespace workgate
