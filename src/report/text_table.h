#pragma once
// Plain-text tables for the terminal: columns padded to their widest cell,
// measured in display columns so that "Δ" or "·" do not shift them, with
// optional ANSI colour that does not count towards the width.

#include <string>
#include <vector>

namespace workgate {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  /// A table whose columns are aligned as given; the first row added is
  /// usually the header.
  explicit TextTable(std::vector<Align> aligns) : aligns_(std::move(aligns)) {}

  /// Adds a row; `colours` (ANSI SGR codes such as "31", "" for none) match
  /// the cells one to one or are empty.
  void AddRow(std::vector<std::string> cells, std::vector<std::string> colours = {});

  /// The table, each line indented by `indent` spaces, two spaces between
  /// columns, no trailing blanks; colours only when `colour`.
  std::string Render(size_t indent, bool colour) const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::vector<std::string> colours;
  };
  std::vector<Align> aligns_;
  std::vector<Row> rows_;
};

}  // namespace workgate
