#include "tools/plans/text_table.h"

#include <algorithm>
#include <numeric>

#include "engine/core/check.h"
#include "engine/core/printable.h"

namespace ember::plans {

size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string Truncate(const std::string& text, size_t width) {
  if (DisplayWidth(text) <= width) return text;
  if (width == 0) return {};
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts_char = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_char && chars == width - 1) break;
    if (starts_char) ++chars;
    out += text[i];
  }
  return out + "…";
}

void TextTable::AddRow(std::vector<Cell> cells) {
  EMBER_CHECK(cells.size() == columns_.size(), "table row has {} cells for {} columns",
              cells.size(), columns_.size());
  // Cells show names and rows others wrote (workloads, segments, bundles): escaped and bounded
  // here, once for every table (engine/core/printable.h).
  for (Cell& cell : cells) cell.text = ShownText(cell.text);
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render() const {
  const size_t n = columns_.size();
  std::vector<size_t> widths(n);
  for (size_t i = 0; i < n; ++i) {
    widths[i] = DisplayWidth(columns_[i].header);
    for (const auto& row : rows_) widths[i] = std::max(widths[i], DisplayWidth(row[i].text));
  }
  auto total = [&] {
    return std::accumulate(widths.begin(), widths.end(), size_t{0}) + 2 * (n - 1);
  };
  while (total() > kMaxWidth) {
    // The shrinkable column of highest rank, then widest, that can still give up a character.
    size_t best = n;
    for (size_t i = 0; i < n; ++i) {
      const size_t floor = std::max(columns_[i].min_width, DisplayWidth(columns_[i].header));
      if (!columns_[i].shrinkable || widths[i] <= floor) continue;
      if (best == n || columns_[i].shrink_rank > columns_[best].shrink_rank ||
          (columns_[i].shrink_rank == columns_[best].shrink_rank && widths[i] > widths[best])) {
        best = i;
      }
    }
    if (best == n) break;  // Nothing left to shrink: the table stays wider.
    --widths[best];
  }

  std::string out;
  auto append_line = [&](const std::vector<Cell>& cells) {
    std::string line;
    for (size_t i = 0; i < n; ++i) {
      const std::string text = Truncate(cells[i].text, widths[i]);
      const std::string pad(widths[i] - DisplayWidth(text), ' ');
      if (i > 0) line += "  ";
      if (columns_[i].right_aligned) {
        line += pad + Styled(text, cells[i].style);
      } else {
        line += Styled(text, cells[i].style) + pad;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  std::vector<Cell> header;
  std::vector<Cell> rule;
  for (size_t i = 0; i < n; ++i) {
    header.emplace_back(columns_[i].header, Style::kBold);
    rule.emplace_back(std::string(widths[i], '-'), Style::kDim);
  }
  append_line(header);
  append_line(rule);
  for (const auto& row : rows_) append_line(row);
  return out;
}

}  // namespace ember::plans
