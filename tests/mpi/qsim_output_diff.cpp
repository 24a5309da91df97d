// qsim_output_diff A.h5 B.h5 TOL SCHEME...: compares two `qsim --output` files (apps/qsim/outputs.cpp's
// layout) dataset by dataset, for the CLI test of --output over MPI ranks against one process
// (tests/mpi/CMakeLists.txt). Per scheme group /<scheme>/: state and amplitudes (complex as [.., 2])
// within a relative difference of TOL (1e-12 for fp64, the reference run), fidelity, max_amp_err and
// norm within TOL absolute (they are of order 1 or below), samples equal for fp64 and differing in at
// most 1 % of the draws elsewhere (a draw within rounding of a boundary may fall the other way); a
// dataset present in one file only is a difference. Then the file's attributes (circuit, num_qubits,
// fuse, shots, seed, bitstrings) must be equal. Timings are not compared.
// Exit status: 0 when the files agree, 1 at the first difference (printed), 2 on a usage or read error.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "app_common/io/hdf5.hpp"

namespace {

using tcemu::app::io::Reader;

/// ||a - b|| / ||b|| (the Frobenius norms of the flattened values), or |a - b| when b is zero.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    ref += b[i] * b[i];
  }
  return ref > 0 ? std::sqrt(diff / ref) : std::sqrt(diff);
}

/// The first difference between the two files, or "" when they agree.
/// The datasets come first, so that files of two different circuits differ by their data.
std::string first_difference(const Reader& a, const Reader& b, double tol, const std::vector<std::string>& schemes) {
  for (const std::string& scheme : schemes) {
    const double t = scheme == "fp64" ? 1e-12 : tol;
    const std::string g = "/" + scheme + "/";
    if (!a.has_dataset(g + "fidelity") || !b.has_dataset(g + "fidelity")) return "group " + g + " missing";
    for (const char* name : {"state", "amplitudes", "fidelity", "max_amp_err", "norm", "samples"}) {
      const std::string d = g + name;
      const bool in_a = a.has_dataset(d), in_b = b.has_dataset(d);
      if (in_a != in_b) return d + ": in one file only";
      if (!in_a) continue;
      const int rank = static_cast<int>(a.info(d).shape.size());
      if (std::string(name) == "samples") {
        const auto x = a.read<std::int32_t>(d, 1), y = b.read<std::int32_t>(d, 1);
        if (x.data.size() != y.data.size()) return d + ": lengths differ";
        std::size_t unequal = 0;
        for (std::size_t i = 0; i < x.data.size(); ++i) unequal += x.data[i] != y.data[i];
        const std::size_t allowed = scheme == "fp64" ? 0 : x.data.size() / 100;
        if (unequal > allowed)
          return d + ": " + std::to_string(unequal) + " of " + std::to_string(x.data.size()) + " draws differ";
        continue;
      }
      const auto x = a.read<double>(d, rank), y = b.read<double>(d, rank);
      if (x.shape != y.shape) return d + ": shapes differ";
      const bool scalar = x.data.size() == 1;
      const double e = scalar ? std::fabs(x.data[0] - y.data[0]) : relative_difference(x.data, y.data);
      if (!(e <= t)) {
        char msg[96];
        std::snprintf(msg, sizeof msg, ": differs by %.3g (tolerance %.3g)", e, t);
        return d + msg;
      }
    }
  }
  for (const char* attr : {"circuit", "bitstrings"})
    if (a.string_attribute("/", attr) != b.string_attribute("/", attr)) return std::string("attribute /") + attr;
  for (const char* attr : {"num_qubits", "fuse", "shots", "seed"})
    if (a.int_attribute("/", attr) != b.int_attribute("/", attr)) return std::string("attribute /") + attr;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: qsim_output_diff A.h5 B.h5 TOLERANCE SCHEME...\n");
    return 2;
  }
  char* end = nullptr;
  const double tol = std::strtod(argv[3], &end);
  if (end == argv[3] || *end != '\0' || !(tol >= 0)) {
    std::fprintf(stderr, "qsim_output_diff: tolerance '%s' is not a non-negative number\n", argv[3]);
    return 2;
  }
  try {
    const Reader a(argv[1]), b(argv[2]);
    const std::string d = first_difference(a, b, tol, std::vector<std::string>(argv + 4, argv + argc));
    if (!d.empty()) {
      std::printf("%s and %s differ: %s\n", argv[1], argv[2], d.c_str());
      return 1;
    }
    std::printf("%s and %s agree\n", argv[1], argv[2]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qsim_output_diff: %s\n", e.what());
    return 2;
  }
}
