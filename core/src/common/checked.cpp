#include "tcemu/checked.hpp"

#include <unistd.h>

#include <limits>

#include "tcemu/error.hpp"

namespace tcemu {

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what) {
  if (a < 0) throw InvalidArgument(what + ": negative size " + std::to_string(a));
  if (b < 0) throw InvalidArgument(what + ": negative size " + std::to_string(b));
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    throw InvalidArgument(what + ": " + std::to_string(a) + " x " + std::to_string(b) + " overflows 64-bit sizes");
  return product;
}

std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, std::int64_t element_bytes,
                                   const std::string& what) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? " x " : "") + std::to_string(shape[i]);
  const std::string where = what + " (shape " + (text.empty() ? "scalar" : text) + ")";
  std::int64_t count = 1;
  for (auto extent : shape) count = checked_mul(count, extent, where);
  checked_mul(count, element_bytes, where);
  return count;
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

}  // namespace tcemu
