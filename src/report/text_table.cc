#include "report/text_table.h"

#include <algorithm>

#include "report/format.h"

namespace workgate {

void TextTable::AddRow(std::vector<std::string> cells, std::vector<std::string> colours) {
  cells.resize(aligns_.size());
  colours.resize(aligns_.size());
  rows_.push_back({std::move(cells), std::move(colours)});
}

std::string TextTable::Render(size_t indent, bool colour) const {
  std::vector<size_t> widths(aligns_.size(), 0);
  for (const Row& row : rows_) {
    for (size_t c = 0; c < aligns_.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row.cells[c]));
    }
  }
  std::string out;
  for (const Row& row : rows_) {
    std::string line(indent, ' ');
    for (size_t c = 0; c < aligns_.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string& cell = row.cells[c];
      std::string padded =
          aligns_[c] == Align::kLeft ? PadRight(cell, widths[c]) : PadLeft(cell, widths[c]);
      if (colour && !row.colours[c].empty() && !cell.empty()) {
        // Colour the text only, not the padding, so the next column lines up.
        size_t at = padded.find(cell);
        padded.replace(at, cell.size(), "\033[" + row.colours[c] + "m" + cell + "\033[0m");
      }
      line += padded;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace workgate
