#pragma once
// Shared by the int8-crt tests (test_crt_scheme.cpp, test_cuda_crt.cpp): random operands of the
// GEMMul8 distributions, a double-double reference of every entry, relative errors and the
// certified-bound ratio, and a plain T GEMM (naive dot products, l ascending).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tcemu/random.hpp"

namespace tcemu::crt_test {

/// Row-major operands op(A) = a (m x k), op(B) = b (k x n) in T.
template <class T>
struct Operands {
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<T> a, b;
};

template <class T>
Operands<T> make_operands(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dist,
                          std::uint64_t seed) {
  Operands<T> p{m, n, k, std::vector<T>(m * k), std::vector<T>(k * n)};
  fill_random(row_major(p.a.data(), m, k), Distribution::parse(dist), seed);
  fill_random(row_major(p.b.data(), k, n), Distribution::parse(dist), seed + 1);
  return p;
}

/// Double-double accumulation s += a b (a, b doubles; TwoProd by fma, TwoSum).
struct DD {
  double hi = 0, lo = 0;
  void add_prod(double a, double b) {
    const double p = a * b, pe = std::fma(a, b, -p);
    const double t = hi + p, bv = t - hi, te = (hi - (t - bv)) + (p - bv);
    const double l = lo + pe + te;
    hi = t + l;
    lo = l - (hi - t);
  }
};

struct Errors {
  double median = 0, max = 0;
  double worst_bound_ratio = 0;  ///< max |err| / (tol |A||B| + rnd |AB|)
};

/// Relative errors of c (row-major m x n) against the double-double reference of a b.
template <class T, class U>
Errors errors(const Operands<T>& p, const std::vector<U>& c, double tol, double rnd) {
  std::vector<double> rel;
  Errors e;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      DD s;
      double absprod = 0;
      for (std::int64_t l = 0; l < p.k; ++l) {
        const double x = static_cast<double>(p.a[i * p.k + l]), y = static_cast<double>(p.b[l * p.n + j]);
        s.add_prod(x, y);
        absprod += std::fabs(x * y);
      }
      const double err = std::fabs((static_cast<double>(c[i * p.n + j]) - s.hi) - s.lo);
      if (s.hi != 0) rel.push_back(err / std::fabs(s.hi));
      const double bound = (tol * absprod + rnd * std::fabs(s.hi)) * (1 + 1e-6) + 1e-300;
      e.worst_bound_ratio = std::max(e.worst_bound_ratio, err / bound);
    }
  std::sort(rel.begin(), rel.end());
  e.median = rel.empty() ? 0 : rel[rel.size() / 2];
  e.max = rel.empty() ? 0 : rel.back();
  return e;
}

/// Plain GEMM in T (naive dot products, l ascending): what the emulation must not be worse than.
template <class T>
std::vector<T> plain_gemm(const Operands<T>& p) {
  std::vector<T> c(p.m * p.n);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      T s = 0;
      for (std::int64_t l = 0; l < p.k; ++l) s += p.a[i * p.k + l] * p.b[l * p.n + j];
      c[i * p.n + j] = s;
    }
  return c;
}

}  // namespace tcemu::crt_test
