#pragma once
/// \file random.hpp
/// Seeded test inputs of docs/accuracy.md, "Metrics and inputs" (the papers' distributions). Never zeros: a draw of
/// exactly 0 is redrawn, because zeros hide unwritten outputs and skew the timing.
#include <cstdint>
#include <string>

#include "tcemu/matrix.hpp"

namespace tcemu {

/// Input distribution: uniform(lo, hi), or uniform(-0.5, 0.5) * exp(phi * N(0,1)) (Ozaki 2012; the
/// ozIMMU and GEMMul8 papers) whose exponent spread grows with phi.
struct Distribution {
  enum class Kind { uniform, phi } kind = Kind::uniform;
  double lo = -1.0, hi = 1.0;  ///< uniform bounds
  double phi = 1.0;            ///< exponent-spread parameter

  /// "uniform(-1,1)", or "phi=<phi>".
  std::string name() const;
  /// Parses "uniform", "uniform(a,b)" or "phi=<x>"; throws InvalidArgument otherwise.
  static Distribution parse(const std::string& s);
};

/// Fills X with seeded draws from `dist` (values computed in double, then converted to T).
template <class T>
void fill_random(MatrixView<T> X, const Distribution& dist, std::uint64_t seed);

}  // namespace tcemu
