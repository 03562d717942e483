// TextTable: aligned columns for human output, at most kMaxWidth characters wide.
//
// Columns are separated by two spaces; numbers are right-aligned. When the table would be wider
// than kMaxWidth, the columns marked `shrinkable` give up width — those with the highest
// `shrink_rank` first, the widest first among equals — and their cells are cut with "…". Widths
// count characters (UTF-8 code points), not bytes. A cell's style is applied after padding
// (terminal_style.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/plans/terminal_style.h"

namespace ember::plans {

inline constexpr size_t kMaxWidth = 100;

struct Cell {
  std::string text;
  Style style = Style::kPlain;

  Cell(std::string t = {}, Style s = Style::kPlain) : text(std::move(t)), style(s) {}  // NOLINT
  Cell(const char* t, Style s = Style::kPlain) : text(t), style(s) {}                  // NOLINT
};

struct Column {
  std::string header;
  bool right_aligned = false;
  bool shrinkable = false;
  size_t min_width = 6;  // a shrinkable column never gets narrower than this
  int shrink_rank = 0;   // higher: gives up width before the others
};

class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // REQUIRES: one cell per column.
  void AddRow(std::vector<Cell> cells);
  size_t rows() const { return rows_.size(); }

  // The header, a rule, the rows; every line ends with '\n' and has no trailing spaces.
  std::string Render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// Characters (code points) in UTF-8 `text`.
size_t DisplayWidth(const std::string& text);
// `text` cut to at most `width` characters, ending in "…" when cut.
std::string Truncate(const std::string& text, size_t width);

}  // namespace ember::plans
