// Seeded inputs of docs/accuracy.md, "Metrics and inputs".
#include "tcemu/random.hpp"

#include <cmath>
#include <cstdio>
#include <random>

#include "tcemu/error.hpp"

namespace tcemu {

std::string Distribution::name() const {
  char buf[64];
  if (kind == Kind::uniform) std::snprintf(buf, sizeof buf, "uniform(%g,%g)", lo, hi);
  else std::snprintf(buf, sizeof buf, "phi=%g", phi);
  return buf;
}

Distribution Distribution::parse(const std::string& s) {
  Distribution d;
  double a = 0, b = 0;
  char tail = 0;
  if (s == "uniform") return d;
  int used = 0;  // %n after the literal ')' is set only when the whole "uniform(a,b)" matched
  if (std::sscanf(s.c_str(), "uniform(%lf,%lf)%n", &a, &b, &used) == 2 && used == static_cast<int>(s.size()) &&
      a < b) {
    d.lo = a;
    d.hi = b;
    return d;
  }
  if (std::sscanf(s.c_str(), "phi=%lf%c", &a, &tail) == 1 && a >= 0) {
    d.kind = Kind::phi;
    d.phi = a;
    return d;
  }
  throw InvalidArgument("distribution '" + s + "' is not one of: uniform, uniform(a,b) with a<b, phi=<x>=0>");
}

template <class T>
void fill_random(MatrixView<T> X, const Distribution& dist, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (std::int64_t i = 0; i < X.rows; ++i)
    for (std::int64_t j = 0; j < X.cols; ++j) {
      T v = 0;
      while (v == T(0)) {
        const double u = u01(gen);
        const double x = dist.kind == Distribution::Kind::uniform
                             ? dist.lo + (dist.hi - dist.lo) * u
                             : (u - 0.5) * std::exp(dist.phi * normal(gen));
        v = static_cast<T>(x);
      }
      X(i, j) = v;
    }
}

template void fill_random<float>(MatrixView<float>, const Distribution&, std::uint64_t);
template void fill_random<double>(MatrixView<double>, const Distribution&, std::uint64_t);

}  // namespace tcemu
