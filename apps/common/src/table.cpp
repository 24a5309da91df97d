// The apps' text-table printer (app_common/table.hpp).
#include "app_common/table.hpp"

#include <algorithm>
#include <cstdio>

#include "tcemu/error.hpp"

namespace tcemu::app {

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size())
    throw tcemu::InvalidArgument("Table::add_row: " + std::to_string(cells.size()) + " cells for " +
                                 std::to_string(columns_.size()) + " columns");
  rows_.push_back(std::move(cells));
}

std::string Table::str() const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].header.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto line = [&](auto&& text_of) {
    std::string s;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string& text = text_of(c);
      const std::string pad(width[c] - text.size(), ' ');
      s += (c ? "  " : "") + (columns_[c].align == Align::left ? text + pad : pad + text);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  line([&](std::size_t c) -> const std::string& { return columns_[c].header; });
  for (const auto& row : rows_) line([&](std::size_t c) -> const std::string& { return row[c]; });
  return out;
}

std::string cell(const char* printf_format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, value);
  return buf;
}

}  // namespace tcemu::app
