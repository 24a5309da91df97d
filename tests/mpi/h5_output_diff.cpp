// h5_output_diff A.h5 B.h5 ITEM...: compares two apps' --output files item by item, for the CLI tests
// of --output over MPI ranks against one process (tests/mpi/CMakeLists.txt). An ITEM is
//   /group/dataset[:TOL]  floating-point data: ||a - b||_F / ||b||_F <= TOL (tcemu's
//                         relative_frobenius_error; |a - b| for a single value); integer data: at most
//                         a fraction TOL of the entries unequal (a sampler's draw within rounding of a
//                         boundary may fall the other way); the shapes must agree; TOL defaults to 0
//   @attribute            a string or integer attribute of the file's root, equal in both
// Exit status: 0 when every item agrees, 1 at the first that does not (printed), 2 on a usage or read
// error (a missing dataset or attribute is a difference).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app_common/io/hdf5.hpp"
#include "tcemu/metrics.hpp"

namespace {

using tcemu::app::io::DType;
using tcemu::app::io::Reader;

std::string formatted(const char* format, double x, double y) {
  char msg[96];
  std::snprintf(msg, sizeof msg, format, x, y);
  return msg;
}

/// "" when the item agrees in both files, else what differs.
std::string item_difference(const Reader& a, const Reader& b, const std::string& item) {
  if (item.rfind('@', 0) == 0) {
    const std::string attr = item.substr(1);
    // The attribute as text, from a string or an integer attribute (reading one of the other kind throws).
    auto text = [&](const Reader& r) -> std::optional<std::string> {
      try {
        return r.string_attribute("/", attr);
      } catch (const std::exception&) {
        const auto v = r.int_attribute("/", attr);
        return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
      }
    };
    const auto ta = text(a), tb = text(b);
    if (!ta && !tb) return item + ": in neither file";
    return ta == tb ? "" : item + ": differs";
  }
  const std::size_t colon = item.rfind(':');
  const std::string name = item.substr(0, colon);
  double tol = 0;
  if (colon != std::string::npos) {
    char* end = nullptr;
    tol = std::strtod(item.c_str() + colon + 1, &end);
    if (end == item.c_str() + colon + 1 || *end != '\0' || !(tol >= 0))
      throw std::invalid_argument("item '" + item + "': the tolerance is not a non-negative number");
  }
  const bool in_a = a.has_dataset(name), in_b = b.has_dataset(name);
  if (!in_a || !in_b) return name + (in_a || in_b ? ": in one file only" : ": in neither file");
  const auto info = a.info(name);
  if (info.shape != b.info(name).shape) return name + ": shapes differ";
  const int rank = static_cast<int>(info.shape.size());
  if (info.dtype == DType::int32 || info.dtype == DType::int64) {
    const auto x = a.read<std::int32_t>(name, rank), y = b.read<std::int32_t>(name, rank);
    std::size_t unequal = 0;
    for (std::size_t i = 0; i < x.data.size(); ++i) unequal += x.data[i] != y.data[i];
    const double fraction = static_cast<double>(unequal) / static_cast<double>(x.data.size());
    return fraction <= tol ? "" : name + formatted(": %.0f entries unequal (a fraction %.3g)", static_cast<double>(unequal), fraction);
  }
  const auto x = a.read<double>(name, rank), y = b.read<double>(name, rank);
  const double e = x.data.size() == 1 ? std::fabs(x.data[0] - y.data[0]) : tcemu::relative_frobenius_error(x.view(), y.data);
  return e <= tol ? "" : name + formatted(": differs by %.3g (tolerance %.3g)", e, tol);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: h5_output_diff A.h5 B.h5 ITEM... (ITEM: /group/dataset[:TOL] or @attribute)\n");
    return 2;
  }
  try {
    const Reader a(argv[1]), b(argv[2]);
    for (int i = 3; i < argc; ++i) {
      const std::string d = item_difference(a, b, argv[i]);
      if (!d.empty()) {
        std::printf("%s and %s differ: %s\n", argv[1], argv[2], d.c_str());
        return 1;
      }
    }
    std::printf("%s and %s agree in %d items\n", argv[1], argv[2], argc - 3);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "h5_output_diff: %s\n", e.what());
    return 2;
  }
}
