#pragma once
/// \file table.hpp
/// The apps' one text-table printer: columns as wide as their widest cell, two spaces apart, names
/// left-aligned and numbers right-aligned, no trailing spaces.
#include <string>
#include <vector>

namespace tcemu::app {

/// A table of text cells under a header row.
class Table {
 public:
  /// How a column's cells line up.
  enum class Align { left, right };
  /// A column: its header and alignment.
  struct Column {
    std::string header;
    Align align = Align::right;
  };

  explicit Table(std::vector<Column> columns);
  /// Appends a row; throws tcemu::InvalidArgument unless it has one cell per column.
  void add_row(std::vector<std::string> cells);
  /// The header and the rows, one line each, every line ending in '\n'.
  std::string str() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// `value` printed with one printf conversion ("%.1f", "%.2e"), for table cells.
std::string cell(const char* printf_format, double value);

}  // namespace tcemu::app
