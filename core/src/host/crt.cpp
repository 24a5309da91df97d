// Ozaki scheme II on INT8 (CRT), host reference: tcemu/crt.hpp documents the method and
// docs/crt.md the bound and the exact order of operations. Plain loops, no BLAS, no Kokkos: every
// step but the reconstruction is integer-exact, so the result is bitwise reproducible.
#include "tcemu/crt.hpp"

#include "tcemu/crt_arith.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

namespace tcemu::crt {
namespace {

// ---- a small unsigned 256-bit integer for the constants (P < 2^156) ----
struct U256 {
  std::uint32_t w[8] = {};
  static U256 from(std::uint64_t v) {
    U256 r;
    r.w[0] = static_cast<std::uint32_t>(v);
    r.w[1] = static_cast<std::uint32_t>(v >> 32);
    return r;
  }
  U256 mul(std::uint32_t s) const {
    U256 r;
    std::uint64_t carry = 0;
    for (int i = 0; i < 8; ++i) {
      const std::uint64_t t = std::uint64_t{w[i]} * s + carry;
      r.w[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) throw InvalidArgument("tcemu::crt: 256-bit overflow in the constants");
    return r;
  }
  std::uint32_t mod(std::uint32_t s) const {
    std::uint64_t r = 0;
    for (int i = 7; i >= 0; --i) r = ((r << 32) | w[i]) % s;
    return static_cast<std::uint32_t>(r);
  }
  U256 div(std::uint32_t s) const {
    U256 q;
    std::uint64_t r = 0;
    for (int i = 7; i >= 0; --i) {
      const std::uint64_t cur = (r << 32) | w[i];
      q.w[i] = static_cast<std::uint32_t>(cur / s);
      r = cur % s;
    }
    return q;
  }
  U256 sub(const U256& o) const {  // *this >= o
    U256 r;
    std::int64_t borrow = 0;
    for (int i = 0; i < 8; ++i) {
      std::int64_t t = std::int64_t{w[i]} - o.w[i] - borrow;
      borrow = t < 0;
      if (t < 0) t += std::int64_t{1} << 32;
      r.w[i] = static_cast<std::uint32_t>(t);
    }
    return r;
  }
  bool less(const U256& o) const {
    for (int i = 7; i >= 0; --i)
      if (w[i] != o.w[i]) return w[i] < o.w[i];
    return false;
  }
  int bit_length() const {
    for (int i = 7; i >= 0; --i)
      if (w[i]) return 32 * i + 32 - __builtin_clz(w[i]);
    return 0;
  }
  bool bit(int b) const { return b >= 0 && b < 256 && ((w[b / 32] >> (b % 32)) & 1u); }
  bool any_below(int b) const {  // any set bit in positions [0, b)
    for (int i = 0; i < b && i < 256; ++i)
      if (bit(i)) return true;
    return false;
  }
  U256 shr(int s) const {
    U256 r;
    for (int i = 0; i < 256 - s; ++i)
      if (bit(i + s)) r.w[i / 32] |= 1u << (i % 32);
    return r;
  }
  U256 shl(int s) const {
    U256 r;
    for (int i = s; i < 256; ++i)
      if (bit(i - s)) r.w[i / 32] |= 1u << (i % 32);
    return r;
  }
  std::uint64_t low64() const { return std::uint64_t{w[0]} | (std::uint64_t{w[1]} << 32); }
  // Nearest double (ties to even).
  double to_double() const {
    const int bl = bit_length();
    if (bl <= 53) return static_cast<double>(low64());
    const int s = bl - 53;
    std::uint64_t m = shr(s).low64();
    const bool half = bit(s - 1), sticky = any_below(s - 1);
    if (half && (sticky || (m & 1u))) ++m;
    return std::ldexp(static_cast<double>(m), s);
  }
  // x rounded toward zero to a multiple of 2^g.
  U256 floor_to(int g) const { return shr(g).shl(g); }
  // An integer-valued non-negative double.
  static U256 from_double(double d) {
    if (d == 0) return U256{};
    int e;
    const double m = std::frexp(d, &e);
    const auto M = static_cast<std::uint64_t>(std::ldexp(m, 53));
    return e >= 53 ? U256::from(M).shl(e - 53) : U256::from(M >> (53 - e));
  }
};

using arith::ceil_log2_u64;
using arith::ceil_mag;
using arith::floor_half;

Constants make_constants(int n) {
  Constants c;
  c.n = n;
  U256 P = U256::from(1);
  for (int l = 0; l < n; ++l) P = P.mul(static_cast<std::uint32_t>(kModuli[l]));
  c.bits = P.bit_length();
  c.grid = std::max(0, c.bits + 8 + ceil_log2_u64(static_cast<std::uint64_t>(n)) - 53);
  c.P_hi = P.to_double();
  const U256 Phi = U256::from_double(c.P_hi);
  c.P_lo = Phi.less(P) ? P.sub(Phi).to_double() : -Phi.sub(P).to_double();
  c.inv_P = 1.0 / c.P_hi;
  for (int l = 0; l < n; ++l) {
    const auto p = static_cast<std::uint32_t>(kModuli[l]);
    const U256 Pl = P.div(p);
    const std::uint32_t pl = Pl.mod(p);
    std::uint32_t inv = 0;
    for (std::uint32_t t = 1; t < p; ++t)
      if ((pl * t) % p == 1) {
        inv = t;
        break;
      }
    if (inv == 0) throw InvalidArgument("tcemu::crt: moduli not coprime");
    c.w_mod[l] = static_cast<int>(inv);
    const U256 w = Pl.mul(inv);
    const U256 hi = w.floor_to(c.grid);
    c.w_hi[l] = hi.to_double();
    c.w_lo[l] = w.sub(hi).to_double();
  }
  const double u = 0x1p-53;
  c.recon_error = (n * 128.0 * std::ldexp(1.0, c.grid) * (n + 4) + std::ldexp(1.0, c.bits - 42)) * u *
                  (1 + 0x1p-20);
  return c;
}

// Transposition-free copies: x row-major m x k, y column-major (n rows of k) in double.
template <class T>
void copy_lines(MatrixView<const T> x, MatrixView<const T> y, std::vector<double>& xr,
                std::vector<double>& yc) {
  const std::int64_t m = x.rows, k = x.cols, n = y.cols;
  xr.resize(static_cast<std::size_t>(m * k));
  yc.resize(static_cast<std::size_t>(n * k));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l) xr[i * k + l] = static_cast<double>(x(i, l));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l) yc[j * k + l] = static_cast<double>(y(l, j));
}

// Line data of a scaling rule: e[i] = arith::scale_exponent(Lb_side, c[i], base[i]) for active lines, 0 else.
struct LineRule {
  std::vector<int> c, base;
  std::vector<char> active;
};

// Exponent E with max|line| < 2^E; INT_MIN for a zero line.
int line_exponent(const double* v, std::int64_t k) {
  double mx = 0;
  for (std::int64_t l = 0; l < k; ++l) mx = std::max(mx, std::fabs(v[l]));
  return mx == 0 ? std::numeric_limits<int>::min() : arith::line_exponent_of_max(mx);
}

void rule_cauchy_schwarz(const std::vector<double>& lines, std::int64_t count, std::int64_t k,
                         LineRule& r) {
  r.c.assign(count, 0);
  r.base.assign(count, 0);
  r.active.assign(count, 0);
  for (std::int64_t i = 0; i < count; ++i) {
    const double* v = lines.data() + i * k;
    const int E = line_exponent(v, k);
    if (E == std::numeric_limits<int>::min()) continue;
    std::uint64_t s2 = 0;  // sum of ceil(|v| 2^(16-E))^2 >= 2^(32-2E) ||v||^2, exact
    for (std::int64_t l = 0; l < k; ++l) {
      const std::uint64_t q = ceil_mag(v[l], 16 - E);
      s2 += q * q;
    }
    r.active[i] = 1;
    r.c[i] = ceil_log2_u64(s2);
    r.base[i] = 16 - E;
  }
}

void rule_accurate(const std::vector<double>& xr, const std::vector<double>& yc, std::int64_t m,
                   std::int64_t n, std::int64_t k, LineRule& ra, LineRule& rb) {
  std::vector<int> Ea(m), Eb(n);
  std::vector<std::int8_t> ah(static_cast<std::size_t>(m * k)), bh(static_cast<std::size_t>(n * k));
  for (std::int64_t i = 0; i < m; ++i) {
    Ea[i] = line_exponent(xr.data() + i * k, k);
    for (std::int64_t l = 0; l < k; ++l)
      ah[i * k + l] = Ea[i] == std::numeric_limits<int>::min()
                          ? 0
                          : static_cast<std::int8_t>(ceil_mag(xr[i * k + l], 6 - Ea[i]));
  }
  for (std::int64_t j = 0; j < n; ++j) {
    Eb[j] = line_exponent(yc.data() + j * k, k);
    for (std::int64_t l = 0; l < k; ++l)
      bh[j * k + l] = Eb[j] == std::numeric_limits<int>::min()
                          ? 0
                          : static_cast<std::int8_t>(ceil_mag(yc[j * k + l], 6 - Eb[j]));
  }
  // G = |A_hi| |B_hi| (entries <= 64 * 64 * k): the INT8 GEMM of the rounded-up magnitudes.
  std::vector<std::int64_t> R(m, 0), K(n, 0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int8_t* a = ah.data() + i * k;
      const std::int8_t* b = bh.data() + j * k;
      std::int64_t g = 0;
      for (std::int64_t c0 = 0; c0 < k; c0 += kChunk) {
        const std::int64_t c1 = std::min(k, c0 + kChunk);
        std::int32_t acc = 0;
        for (std::int64_t l = c0; l < c1; ++l) acc += std::int32_t{a[l]} * std::int32_t{b[l]};
        g += acc;
      }
      R[i] = std::max(R[i], g);
      K[j] = std::max(K[j], g);
    }
  auto fill = [](LineRule& r, const std::vector<std::int64_t>& mx, const std::vector<int>& E) {
    const std::int64_t cnt = static_cast<std::int64_t>(mx.size());
    r.c.assign(cnt, 0);
    r.base.assign(cnt, 0);
    r.active.assign(cnt, 0);
    for (std::int64_t i = 0; i < cnt; ++i) {
      if (mx[i] == 0) continue;  // zero line, or every product with it vanishes
      r.active[i] = 1;
      r.c[i] = ceil_log2_u64(static_cast<std::uint64_t>(mx[i]));
      r.base[i] = 6 - E[i];
    }
  };
  fill(ra, R, Ea);
  fill(rb, K, Eb);
}

void exponents_of(const LineRule& r, int Lb_side, int* e) {
  for (std::size_t i = 0; i < r.c.size(); ++i)
    e[i] = r.active[i] ? arith::scale_exponent(Lb_side, r.c[i], r.base[i]) : 0;
}

// Both operands' line rules (a: rows of op(A), b: columns of op(B)) and the split of the budget
// between them: the source (the operand with fewer lines) and how many of its active lines have an
// odd c (crt_arith::split_d; docs/crt.md "Scaling").
struct Rules {
  LineRule a, b;
  bool a_is_source = true;
  std::uint64_t odd = 0, active = 0;
  // The scale exponents at N moduli: ea (m ints) and eb (n ints).
  void exponents(int n_moduli, int* ea, int* eb) const {
    const int Lb = constants(n_moduli).bits - 1;
    exponents_of(a, Lb + arith::split_shift(Lb, odd, active, a_is_source), ea);
    exponents_of(b, Lb + arith::split_shift(Lb, odd, active, !a_is_source), eb);
  }
};

Rules rules_of(Scaling rule, const std::vector<double>& xr, const std::vector<double>& yc, std::int64_t m,
               std::int64_t n, std::int64_t k) {
  Rules r;
  if (rule == Scaling::cauchy_schwarz) {
    rule_cauchy_schwarz(xr, m, k, r.a);
    rule_cauchy_schwarz(yc, n, k, r.b);
  } else {
    rule_accurate(xr, yc, m, n, k, r.a, r.b);
  }
  r.a_is_source = arith::split_source_is_a(m, n);
  const LineRule& src = r.a_is_source ? r.a : r.b;
  for (std::size_t i = 0; i < src.c.size(); ++i)
    if (src.active[i]) {
      ++r.active;
      r.odd += static_cast<std::uint64_t>(src.c[i] & 1);
    }
  return r;
}

template <class T>
bool all_finite(MatrixView<const T> x) {
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < x.cols; ++j)
      if (!std::isfinite(static_cast<double>(x(i, j)))) return false;
  return true;
}

template <class T>
void check_shapes(const char* who, MatrixView<const T> x, MatrixView<const T> y, std::int64_t cr,
                  std::int64_t cc) {
  if (x.cols != y.rows || (cr >= 0 && (cr != x.rows || cc != y.cols)))
    throw InvalidArgument(std::string(who) + ": op(A) is " + std::to_string(x.rows) + " x " +
                          std::to_string(x.cols) + ", op(B) is " + std::to_string(y.rows) + " x " +
                          std::to_string(y.cols) +
                          (cr >= 0 ? ", C is " + std::to_string(cr) + " x " + std::to_string(cc) : "") +
                          "; need op(A) m x k, op(B) k x n, C m x n");
}

}  // namespace

std::string to_string(Scaling rule) {
  return rule == Scaling::cauchy_schwarz ? "cauchy-schwarz" : "accurate";
}

const Constants& constants(int n) {
  if (n < kMinModuli || n > kMaxModuli)
    throw InvalidArgument("tcemu::crt: number of moduli " + std::to_string(n) + " is outside " +
                          std::to_string(kMinModuli) + ".." + std::to_string(kMaxModuli));
  static std::once_flag once;
  static Constants table[kMaxModuli + 1];
  std::call_once(once, [] {
    for (int i = kMinModuli; i <= kMaxModuli; ++i) table[i] = make_constants(i);
  });
  return table[n];
}

std::int8_t residue(double x, int p) { return static_cast<std::int8_t>(arith::residue(x, p)); }

double scaled_integer(double x, int e) { return arith::scaled_integer(x, e); }

double reconstruct(const std::int8_t* r, std::int64_t stride, const Constants& k) {
  return arith::reconstruct(r, stride, k.n, k.w_hi, k.w_lo, k.P_hi, k.P_lo, k.inv_P);
}

template <class T>
void scale_exponents(Scaling rule, int n_moduli, MatrixView<const T> x, MatrixView<const T> y, int* ea,
                     int* eb) {
  check_shapes<T>("tcemu::crt::scale_exponents", x, y, -1, -1);
  std::vector<double> xr, yc;
  copy_lines(x, y, xr, yc);
  rules_of(rule, xr, yc, x.rows, y.cols, x.cols).exponents(n_moduli, ea, eb);
}

namespace {

/// What both certificates start with: op(A), op(B) checked (`who` names the caller in errors), the
/// certificate's tolerance and rule set, the lines copied to xr (rows of op(A)) and yc (columns of
/// op(B)) by copy_lines. Throws InvalidArgument for a tolerance <= 0 and Fallback(nonfinite) for NaN
/// or Inf. Returns false for an empty product (cert.moduli = kMinModuli, nothing to certify).
template <class T>
bool certificate_inputs(const char* who, Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol,
                        Scaling rule, Certificate& cert, std::int64_t& m, std::int64_t& n, std::int64_t& k,
                        std::vector<double>& xr, std::vector<double>& yc) {
  cert.tol = tol;
  cert.rule = rule;
  const auto x = A.apply(opA);
  const auto y = B.apply(opB);
  check_shapes<T>(who, x, y, -1, -1);
  if (!(tol > 0)) throw InvalidArgument(std::string(who) + ": tolerance must be > 0");
  if (!all_finite(x) || !all_finite(y))
    throw Fallback(Fallback::Reason::nonfinite, "tcemu::crt: an operand holds NaN or Inf");
  m = x.rows;
  n = y.cols;
  k = x.cols;
  if (m == 0 || n == 0 || k == 0) {
    cert.moduli = kMinModuli;
    return false;
  }
  copy_lines(x, y, xr, yc);
  return true;
}

}  // namespace

template <class T>
Certificate certify(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol,
                    Scaling rule) {
  Certificate cert;
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<double> xr, yc;
  if (!certificate_inputs<T>("tcemu::crt::choose_moduli", opA, opB, A, B, tol, rule, cert, m, n, k, xr, yc)) return cert;
  // Per entry: LB <= (|x||y|)_ij, Z >= sum [x != 0] |y|, W >= sum |x| [y != 0], any nonzero term.
  const double grow = 1 + (k + 2) * 0x1p-52, shrink = 1 - (k + 2) * 0x1p-52;
  std::vector<double> LB(m * n), Z(m * n), W(m * n);
  std::vector<char> nz(m * n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double* a = xr.data() + i * k;
      const double* b = yc.data() + j * k;
      double s = 0, z = 0, w = 0;
      bool any = false;
      for (std::int64_t l = 0; l < k; ++l) {
        const double fa = std::fabs(a[l]), fb = std::fabs(b[l]);
        s += fa * fb;
        if (fa != 0) z += fb;
        if (fb != 0) w += fa;
        any = any || (fa != 0 && fb != 0);
      }
      LB[i * n + j] = s * shrink;
      Z[i * n + j] = z * grow;
      W[i * n + j] = w * grow;
      nz[i * n + j] = any;
    }
  const Rules rules = rules_of(rule, xr, yc, m, n, k);
  std::vector<int> ea(m), eb(n);
  for (int N = kMinModuli; N <= kMaxModuli; ++N) {
    rules.exponents(N, ea.data(), eb.data());
    const double rec = arith::entry_fixed_error(constants(N).recon_error, k);
    auto bound = [&](std::int64_t i, std::int64_t j) {
      const std::int64_t e = i * n + j;
      return arith::entry_bound(Z[e], W[e], ea[i], eb[j], rec);
    };
    bool ok = true;
    for (std::int64_t i = 0; i < m && ok; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t e = i * n + j;
        if (!nz[e]) continue;  // every product term is zero: C'_ij = 0 exactly
        if (!(bound(i, j) <= tol * LB[e])) {
          ok = false;
          break;
        }
      }
    if (ok || N == kMaxModuli) {  // the ratio for the report (at N = 20 when none is certified)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          if (nz[i * n + j]) cert.worst_ratio = std::max(cert.worst_ratio, bound(i, j) / (tol * LB[i * n + j]));
      cert.moduli = ok ? N : 0;
      return cert;
    }
  }
  return cert;
}

template <class T>
Certificate certify_int8(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol,
                         Scaling rule) {
  Certificate cert;
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<double> xr, yc;
  if (!certificate_inputs<T>("tcemu::crt::certify_int8", opA, opB, A, B, tol, rule, cert, m, n, k, xr, yc)) return cert;
  // Per line: exponent E (0 for a zero line), the 1-norm bound, the two magnitude levels.
  auto lines = [&](const std::vector<double>& d, std::int64_t count, std::vector<int>& E, std::vector<double>& norm1,
                   std::vector<std::int8_t>& hi, std::vector<std::int8_t>& lo) {
    E.assign(count, 0);
    norm1.assign(count, 0);
    hi.assign(count * k, 0);
    lo.assign(count * k, 0);
    for (std::int64_t i = 0; i < count; ++i) {
      const double* v = d.data() + i * k;
      double mx = 0;
      for (std::int64_t l = 0; l < k; ++l) mx = std::max(mx, std::fabs(v[l]));
      if (!(mx > 0)) continue;
      E[i] = arith::line_exponent_of_max(mx);
      std::uint64_t s1 = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        s1 += arith::ceil_mag(v[l], 16 - E[i]);
        int h, r;
        arith::magnitude_levels(v[l], E[i], h, r);
        hi[i * k + l] = static_cast<std::int8_t>(h);
        lo[i * k + l] = static_cast<std::int8_t>(r);
      }
      norm1[i] = arith::norm1_bound(s1, E[i]);
    }
  };
  std::vector<int> Ex, Ey;
  std::vector<double> nx, ny;
  std::vector<std::int8_t> hx, lx, hy, ly;
  lines(xr, m, Ex, nx, hx, lx);
  lines(yc, n, Ey, ny, hy, ly);
  // G_ij = 2^14 (hx . hy) + 2^7 (hx . ly + lx . hy): exact integers (what two INT8 GEMMs give).
  std::vector<double> rhs_of(m * n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t hh = 0, cross = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        hh += std::int64_t{hx[i * k + l]} * hy[j * k + l];
        cross += std::int64_t{hx[i * k + l]} * ly[j * k + l] + std::int64_t{lx[i * k + l]} * hy[j * k + l];
      }
      rhs_of[i * n + j] = arith::int8_certificate_rhs(hh, cross, Ex[i] + Ey[j], tol);
    }
  const Rules rules = rules_of(rule, xr, yc, m, n, k);
  std::vector<int> ea(m), eb(n);
  for (int N = kMinModuli; N <= kMaxModuli; ++N) {
    rules.exponents(N, ea.data(), eb.data());
    const double rec = arith::entry_fixed_error(constants(N).recon_error, k);
    auto bound = [&](std::int64_t i, std::int64_t j) { return arith::entry_bound(ny[j], nx[i], ea[i], eb[j], rec); };
    auto rhs = [&](std::int64_t e) { return rhs_of[e]; };
    bool ok = true;
    for (std::int64_t i = 0; i < m && ok; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        // zero lines: every product term is zero, C'_ij = 0 exactly (certify skips them too)
        if (nx[i] == 0 || ny[j] == 0) continue;
        if (!(bound(i, j) <= rhs(i * n + j))) {
          ok = false;
          break;
        }
      }
    if (ok || N == kMaxModuli) {
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          if (nx[i] != 0 && ny[j] != 0) {
            const double r = rhs(i * n + j);
            cert.worst_ratio = std::max(cert.worst_ratio, r > 0 ? bound(i, j) / r : HUGE_VAL);
          }
      cert.moduli = ok ? N : 0;
      return cert;
    }
  }
  return cert;
}

template <class T>
int choose_moduli_tol(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol,
                      Scaling rule) {
  const auto x = A.apply(opA);
  return (x.cols <= kInt8CertificateMaxK ? certify_int8<T>(opA, opB, A, B, tol, rule)
                                         : certify<T>(opA, opB, A, B, tol, rule))
      .moduli;
}

std::string Certificate::text() const {
  char buf[256];
  if (moduli == 0) {
    std::snprintf(buf, sizeof buf,
                  "no N <= %d certified: at N = %d the bound reaches %.3g x %.3g |A||B| entrywise (%s scaling)",
                  kMaxModuli, kMaxModuli, worst_ratio, tol, to_string(rule).c_str());
  } else {
    const Constants& c = constants(moduli);
    std::snprintf(buf, sizeof buf,
                  "N = %d moduli (P < 2^%d), certified |error| <= %.3g x %.3g |A||B| + 2u|AB| entrywise (%s "
                  "scaling)",
                  moduli, c.bits, worst_ratio, tol, to_string(rule).c_str());
  }
  return buf;
}

std::string Certificate::report() const {
  return (moduli != 0 ? "" : "N = " + std::to_string(kMaxModuli) + " moduli under range policy ignore; ") + text();
}

std::string Certificate::too_wide() const {
  return "the operands' exponent spread needs more than " + std::to_string(kMaxModuli) + " moduli (" + text() + ")";
}

template <class T>
int choose_moduli(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, Target target,
                  Scaling rule) {
  return choose_moduli_tol<T>(opA, opB, A, B, unit_roundoff(target), rule);
}

template <class T>
void crt_gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                   MatrixView<T> C, int moduli, Scaling rule, CrtStats* stats, std::int64_t chunk) {
  const auto x = A.apply(opA);
  const auto y = B.apply(opB);
  check_shapes<T>("tcemu::crt::crt_gemm_host", x, y, C.rows, C.cols);
  if (moduli != 0 && (moduli < kMinModuli || moduli > kMaxModuli))
    throw InvalidArgument("tcemu::crt::crt_gemm_host: moduli " + std::to_string(moduli) +
                          " is neither 0 (choose) nor in " + std::to_string(kMinModuli) + ".." +
                          std::to_string(kMaxModuli));
  if (chunk < 1 || chunk > kChunk)
    throw InvalidArgument("tcemu::crt::crt_gemm_host: chunk " + std::to_string(chunk) +
                          " is outside 1..2^17");
  const std::int64_t m = x.rows, n = y.cols, k = x.cols;
  if (stats) *stats = CrtStats{};
  if (m == 0 || n == 0) return;
  if (!all_finite(x) || !all_finite(y))
    throw Fallback(Fallback::Reason::nonfinite,
                   "tcemu::crt::crt_gemm_host: op(A) or op(B) holds NaN or Inf; take the native path");
  auto write = [&](std::int64_t i, std::int64_t j, double v) {
    T& c = C(i, j);
    c = static_cast<T>(static_cast<double>(alpha) * v +
                       (beta == T(0) ? 0.0 : static_cast<double>(beta) * static_cast<double>(c)));
  };
  if (k == 0) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) write(i, j, 0.0);
    return;
  }
  int N = moduli;
  Certificate cert;
  if (N == 0) {
    const double tol = unit_roundoff(std::is_same_v<T, double> ? Target::fp64 : Target::fp32);
    cert = A.apply(opA).cols <= kInt8CertificateMaxK ? certify_int8<T>(opA, opB, A, B, tol, rule)
                                                     : certify<T>(opA, opB, A, B, tol, rule);
    N = cert.moduli;
    if (N == 0)
      throw Fallback(Fallback::Reason::needs_more_moduli,
                     "tcemu::crt::crt_gemm_host: the operands' exponent spread needs more than " +
                         std::to_string(kMaxModuli) + " moduli (" + cert.text() + "); take the native path");
  }
  const Constants& K = constants(N);

  // Scaling and residues: one pass per operand writes all N residue matrices.
  std::vector<double> xr, yc;
  copy_lines(x, y, xr, yc);
  const Rules rules = rules_of(rule, xr, yc, m, n, k);
  std::vector<int> ea(m), eb(n);
  rules.exponents(N, ea.data(), eb.data());
  const std::int64_t sa = m * k, sb = n * k, sc = m * n;
  std::vector<std::int8_t> ar(static_cast<std::size_t>(N * sa)), br(static_cast<std::size_t>(N * sb));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l) {
      const double v = scaled_integer(xr[i * k + l], ea[i]);
      for (int p = 0; p < N; ++p) ar[p * sa + i * k + l] = residue(v, kModuli[p]);
    }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      const double v = scaled_integer(yc[j * k + l], eb[j]);
      for (int p = 0; p < N; ++p) br[p * sb + j * k + l] = residue(v, kModuli[p]);
    }

  // N exact INT8 products, k in chunks (INT32 sums, wrapping only for p = 256), each reduced mod p.
  std::vector<std::int8_t> cr(static_cast<std::size_t>(N * sc));
  for (int p = 0; p < N; ++p) {
    const int mod = kModuli[p];
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int8_t* a = ar.data() + p * sa + i * k;
        const std::int8_t* b = br.data() + p * sb + j * k;
        int rs = 0;
        for (std::int64_t c0 = 0; c0 < k; c0 += chunk) {
          const std::int64_t c1 = std::min(k, c0 + chunk);
          std::uint32_t acc = 0;
          for (std::int64_t l = c0; l < c1; ++l)
            acc += static_cast<std::uint32_t>(std::int32_t{a[l]} * std::int32_t{b[l]});
          rs = arith::add_chunk_mod(rs, static_cast<std::int32_t>(acc), mod);
        }
        cr[p * sc + i * n + j] = static_cast<std::int8_t>(arith::symmetric(rs, mod));
      }
  }

  // Reconstruction (fixed order), undo the scaling, alpha / beta.
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      write(i, j, std::ldexp(reconstruct(cr.data() + i * n + j, sc, K), -(ea[i] + eb[j])));

  if (stats) {
    stats->moduli = N;
    stats->rule = rule;
    stats->chunks = (k + chunk - 1) / chunk;
    stats->int8_gemms = N + (rule == Scaling::accurate ? 1 : 0);
    stats->certificate = cert;
  }
}

#define TCEMU_CRT_INSTANTIATE(T)                                                                      \
  template void scale_exponents<T>(Scaling, int, MatrixView<const T>, MatrixView<const T>, int*, int*); \
  template int choose_moduli<T>(Op, Op, MatrixView<const T>, MatrixView<const T>, Target, Scaling);  \
  template int choose_moduli_tol<T>(Op, Op, MatrixView<const T>, MatrixView<const T>, double,         \
                                    Scaling);                                                         \
  template Certificate certify<T>(Op, Op, MatrixView<const T>, MatrixView<const T>, double, Scaling); \
  template Certificate certify_int8<T>(Op, Op, MatrixView<const T>, MatrixView<const T>, double, Scaling); \
  template void crt_gemm_host<T>(Op, Op, T, MatrixView<const T>, MatrixView<const T>, T, MatrixView<T>, \
                                 int, Scaling, CrtStats*, std::int64_t);
TCEMU_CRT_INSTANTIATE(double)
TCEMU_CRT_INSTANTIATE(float)
#undef TCEMU_CRT_INSTANTIATE

}  // namespace tcemu::crt
