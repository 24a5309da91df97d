// Ozaki scheme II (tcemu/crt.hpp), host reference: the moduli and constants against an independent
// big-integer computation, exact residues and CRT reconstruction, the certified choice of N against a
// double-double reference and a plain FP64 / FP32 GEMM on five distributions and both scaling rules,
// adversarial inputs (widest exponent spread, zero lines, k past the INT32 chunk, one huge entry
// among tiny ones, NaN/Inf), and bitwise reproducibility (repeat, chunk length, layout).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tcemu/crt.hpp"
#include "tcemu/crt_arith.hpp"
#include "tcemu/random.hpp"

using namespace tcemu;
using namespace tcemu::crt;

namespace {

// ---- independent arbitrary-precision unsigned integer (little-endian 32-bit limbs) ----
struct Big {
  std::vector<std::uint32_t> d;  // no leading zero limbs
  static Big of(std::uint64_t v) {
    Big b;
    while (v) {
      b.d.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
    return b;
  }
  void trim() {
    while (!d.empty() && d.back() == 0) d.pop_back();
  }
  bool zero() const { return d.empty(); }
  Big mul(std::uint32_t s) const {
    Big r;
    std::uint64_t c = 0;
    for (auto x : d) {
      const std::uint64_t t = std::uint64_t{x} * s + c;
      r.d.push_back(static_cast<std::uint32_t>(t));
      c = t >> 32;
    }
    if (c) r.d.push_back(static_cast<std::uint32_t>(c));
    r.trim();
    return r;
  }
  std::uint32_t mod(std::uint32_t s) const {
    std::uint64_t r = 0;
    for (std::size_t i = d.size(); i-- > 0;) r = ((r << 32) | d[i]) % s;
    return static_cast<std::uint32_t>(r);
  }
  Big add(const Big& o) const {
    Big r;
    std::uint64_t c = 0;
    for (std::size_t i = 0; i < std::max(d.size(), o.d.size()); ++i) {
      const std::uint64_t t = c + (i < d.size() ? d[i] : 0) + (i < o.d.size() ? o.d[i] : 0);
      r.d.push_back(static_cast<std::uint32_t>(t));
      c = t >> 32;
    }
    if (c) r.d.push_back(static_cast<std::uint32_t>(c));
    r.trim();
    return r;
  }
  int cmp(const Big& o) const {
    if (d.size() != o.d.size()) return d.size() < o.d.size() ? -1 : 1;
    for (std::size_t i = d.size(); i-- > 0;)
      if (d[i] != o.d[i]) return d[i] < o.d[i] ? -1 : 1;
    return 0;
  }
  Big sub(const Big& o) const {  // *this >= o
    Big r;
    std::int64_t b = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      std::int64_t t = std::int64_t{d[i]} - (i < o.d.size() ? o.d[i] : 0) - b;
      b = t < 0;
      if (t < 0) t += std::int64_t{1} << 32;
      r.d.push_back(static_cast<std::uint32_t>(t));
    }
    r.trim();
    return r;
  }
  Big mul(const Big& o) const {
    std::vector<std::uint64_t> t(d.size() + o.d.size() + 1, 0);
    for (std::size_t i = 0; i < d.size(); ++i) {
      std::uint64_t c = 0;
      for (std::size_t j = 0; j < o.d.size(); ++j) {
        const std::uint64_t v = t[i + j] + std::uint64_t{d[i]} * o.d[j] + c;
        t[i + j] = v & 0xffffffffu;
        c = v >> 32;
      }
      std::size_t q = i + o.d.size();
      while (c) {
        const std::uint64_t v = t[q] + c;
        t[q++] = v & 0xffffffffu;
        c = v >> 32;
      }
    }
    Big r;
    for (auto v : t) r.d.push_back(static_cast<std::uint32_t>(v));
    r.trim();
    return r;
  }
  Big div_small(std::uint32_t s) const {
    Big q;
    q.d.assign(d.size(), 0);
    std::uint64_t r = 0;
    for (std::size_t i = d.size(); i-- > 0;) {
      const std::uint64_t cur = (r << 32) | d[i];
      q.d[i] = static_cast<std::uint32_t>(cur / s);
      r = cur % s;
    }
    q.trim();
    return q;
  }
  int bits() const { return d.empty() ? 0 : 32 * int(d.size() - 1) + 32 - __builtin_clz(d.back()); }
  Big shl(int s) const {
    Big r = *this;
    for (int i = 0; i < s; ++i) r = r.mul(2u);
    return r;
  }
  Big pow2_floor_mod(int s) const {  // *this mod 2^s
    Big r = *this;
    for (std::size_t i = 0; i < r.d.size(); ++i) {
      const int lo = 32 * int(i);
      if (lo >= s) r.d[i] = 0;
      else if (lo + 32 > s) r.d[i] &= (1u << (s - lo)) - 1u;
    }
    r.trim();
    return r;
  }
  // Value as a double (approximate, for bound comparisons).
  double approx() const {
    double v = 0;
    for (std::size_t i = d.size(); i-- > 0;) v = v * 4294967296.0 + d[i];
    return v;
  }
  // An integer-valued non-negative double, exactly.
  static Big of_double(double x) {
    EXPECT_EQ(x, std::trunc(x));
    EXPECT_GE(x, 0.0);
    if (x == 0) return Big{};
    int e;
    const double m = std::frexp(x, &e);
    const auto M = static_cast<std::uint64_t>(std::ldexp(m, 53));
    return e >= 53 ? Big::of(M).shl(e - 53) : Big::of(M >> (53 - e));
  }
};

// Signed difference a - b of two bigs as an approximate double.
double diff(const Big& a, const Big& b) { return a.cmp(b) >= 0 ? a.sub(b).approx() : -b.sub(a).approx(); }

Big product(int n) {
  Big P = Big::of(1);
  for (int l = 0; l < n; ++l) P = P.mul(static_cast<std::uint32_t>(kModuli[l]));
  return P;
}

// Symmetric residue of a signed big (sign, magnitude) mod p.
int sym_residue(bool neg, const Big& mag, int p) {
  int r = static_cast<int>(mag.mod(static_cast<std::uint32_t>(p)));
  if (neg) r = (p - r) % p;
  if (r > (p - 1) / 2) r -= p;
  return r;
}

// ---- double-double reference dot products ----
struct DD {
  double hi = 0, lo = 0;
};
void dd_add_prod(DD& s, double a, double b) {
  const double p = a * b, pe = std::fma(a, b, -p);
  const double t = s.hi + p, bv = t - s.hi, te = (s.hi - (t - bv)) + (p - bv);
  const double lo = s.lo + pe + te;
  s.hi = t + lo;
  s.lo = lo - (s.hi - t);
}

struct Problem {
  std::int64_t m, n, k;
  std::vector<double> a, b;  // row-major m x k, k x n
};

template <class T>
Problem make(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dist, std::uint64_t seed) {
  std::vector<T> a(m * k), b(k * n);
  fill_random(row_major(a.data(), m, k), Distribution::parse(dist), seed);
  fill_random(row_major(b.data(), k, n), Distribution::parse(dist), seed + 1);
  return {m, n, k, std::vector<double>(a.begin(), a.end()), std::vector<double>(b.begin(), b.end())};
}

struct Errors {
  double median = 0, max = 0;
  double worst_bound_ratio = 0;  // max over entries of |err| / certified bound
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Relative errors of c against the double-double reference; bound = tol |A||B| + rnd |C|.
template <class T>
Errors errors(const Problem& p, const std::vector<T>& c, double tol, double rnd) {
  std::vector<double> rel;
  Errors e;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      DD s;
      double absprod = 0;
      for (std::int64_t l = 0; l < p.k; ++l) {
        dd_add_prod(s, p.a[i * p.k + l], p.b[l * p.n + j]);
        absprod += std::fabs(p.a[i * p.k + l] * p.b[l * p.n + j]);
      }
      const double err = std::fabs((static_cast<double>(c[i * p.n + j]) - s.hi) - s.lo);
      if (s.hi != 0) rel.push_back(err / std::fabs(s.hi));
      const double bound = (tol * absprod + rnd * std::fabs(s.hi)) * (1 + 1e-6) + 1e-300;
      e.worst_bound_ratio = std::max(e.worst_bound_ratio, err / bound);
    }
  e.median = median_of(rel);
  e.max = rel.empty() ? 0 : *std::max_element(rel.begin(), rel.end());
  return e;
}

// Plain GEMM in T (naive dot products, l ascending).
template <class T>
std::vector<T> native(const Problem& p) {
  std::vector<T> c(p.m * p.n);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      T s = 0;
      for (std::int64_t l = 0; l < p.k; ++l)
        s += static_cast<T>(p.a[i * p.k + l]) * static_cast<T>(p.b[l * p.n + j]);
      c[i * p.n + j] = s;
    }
  return c;
}

template <class T>
std::vector<T> emulate(const Problem& p, int moduli, Scaling rule, CrtStats* st = nullptr,
                       std::int64_t chunk = kChunk) {
  std::vector<T> a(p.a.begin(), p.a.end()), b(p.b.begin(), p.b.end()), c(p.m * p.n, T(0));
  crt_gemm_host<T>(Op::N, Op::N, T(1), row_major<const T>(a.data(), p.m, p.k),
                   row_major<const T>(b.data(), p.k, p.n), T(0), row_major(c.data(), p.m, p.n), moduli, rule,
                   st, chunk);
  return c;
}

template <class T>
int choose(const Problem& p, Target t, Scaling rule) {
  std::vector<T> a(p.a.begin(), p.a.end()), b(p.b.begin(), p.b.end());
  return choose_moduli<T>(Op::N, Op::N, row_major<const T>(a.data(), p.m, p.k),
                          row_major<const T>(b.data(), p.k, p.n), t, rule);
}

const Scaling kRules[] = {Scaling::cauchy_schwarz, Scaling::accurate};

}  // namespace

// (1) The table: pairwise coprime, <= 256, descending; every constant against a big-integer CRT.
TEST(CrtConstants, ModuliAndReconstructionConstantsAreExact) {
  static_assert(moduli_pairwise_coprime(), "");
  for (int i = 0; i < kMaxModuli; ++i) {
    EXPECT_LE(kModuli[i], 256);
    if (i) EXPECT_LT(kModuli[i], kModuli[i - 1]);
    for (int j = i + 1; j < kMaxModuli; ++j) EXPECT_EQ(std::gcd(kModuli[i], kModuli[j]), 1);
  }
  EXPECT_THROW(constants(1), InvalidArgument);
  EXPECT_THROW(constants(21), InvalidArgument);
  for (int N = kMinModuli; N <= kMaxModuli; ++N) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const Constants& c = constants(N);
    const Big P = product(N);
    EXPECT_EQ(c.n, N);
    EXPECT_EQ(c.bits, P.bits());
    // P_hi nearest, P_lo the rest.
    const Big Phi = Big::of_double(c.P_hi);
    EXPECT_LE(std::fabs(diff(P, Phi)), std::ldexp(1.0, c.bits - 54));
    EXPECT_LE(std::fabs(diff(P, Phi) - c.P_lo), std::ldexp(1.0, c.bits - 54 - 53));
    for (int l = 0; l < N; ++l) {
      const auto p = static_cast<std::uint32_t>(kModuli[l]);
      const Big Pl = P.div_small(p);
      EXPECT_EQ(Pl.mul(p).cmp(P), 0);
      // w_l = (P/p_l) * inv with inv the inverse of P/p_l mod p_l: w_l = delta_lm mod p_m.
      EXPECT_EQ((Pl.mod(p) * static_cast<std::uint32_t>(c.w_mod[l])) % p, 1u);
      const Big w = Pl.mul(static_cast<std::uint32_t>(c.w_mod[l]));
      EXPECT_LT(w.cmp(P), 0);
      for (int q = 0; q < N; ++q)
        EXPECT_EQ(w.mod(static_cast<std::uint32_t>(kModuli[q])), q == l ? 1u : 0u) << "l=" << l << " q=" << q;
      // w_hi: w rounded down to a multiple of 2^grid, exactly; w_lo: the rest, rounded to nearest.
      const Big hi = Big::of_double(c.w_hi[l]);
      EXPECT_TRUE(hi.pow2_floor_mod(c.grid).zero());
      ASSERT_LE(hi.cmp(w), 0);
      const Big rest = w.sub(hi);
      EXPECT_LT(rest.bits(), c.grid + 1);
      EXPECT_LE(std::fabs(rest.approx() - c.w_lo[l]), std::ldexp(1.0, c.grid - 53));
    }
    // The exactness condition of the hi sum: N * 128 * P < 2^(grid + 53).
    EXPECT_LE(P.mul(static_cast<std::uint32_t>(N * 128)).bits(), c.grid + 53);
  }
  EXPECT_NEAR(std::log2(product(20).approx()), 155.4, 0.1);
}

// (2a) Residues of integer-valued doubles, small and huge, both signs.
TEST(CrtResidues, ResiduesOfIntegersAreExact) {
  std::mt19937_64 gen(7);
  std::vector<double> xs = {0, 1, -1, 127, 128, -128, 255, 256, -256, 0x1p53, -0x1p53, 0x1p63, 0x1p78, -0x1p78};
  for (int t = 0; t < 2000; ++t) {
    const double m = std::ldexp(static_cast<double>(gen() >> 11), -53);  // [0, 1)
    const int e = static_cast<int>(gen() % 82);
    double x = std::trunc(std::ldexp(m, e));
    if (gen() & 1) x = -x;
    xs.push_back(x);
  }
  bool saw_m128 = false;
  for (double x : xs)
    for (int l = 0; l < kMaxModuli; ++l) {
      const int p = kModuli[l];
      const int r = residue(x, p);
      EXPECT_EQ(r, sym_residue(x < 0, Big::of_double(std::fabs(x)), p)) << "x=" << x << " p=" << p;
      EXPECT_GE(r, p == 256 ? -128 : -(p - 1) / 2);
      EXPECT_LE(r, (p - 1) / 2);
      saw_m128 = saw_m128 || r == -128;
    }
  EXPECT_TRUE(saw_m128);
  // Rounded to nearest, ties to even: -7.5 -> -8, -6.5 -> -6, 2.75 -> 3, 0.3 -> 0.
  EXPECT_EQ(scaled_integer(-3.75, 1), -8.0);
  EXPECT_EQ(scaled_integer(-3.25, 1), -6.0);
  EXPECT_EQ(scaled_integer(2.75, 0), 3.0);
  EXPECT_EQ(scaled_integer(0.3, 0), 0.0);
  EXPECT_EQ(scaled_integer(0x1.fffffffffffffp-1, 80), std::ldexp(0x1.fffffffffffffp-1, 80));
}

// (2b) Integers in (-P/2, P/2) come back from their residues: the exact CRT sum mod P, and
// reconstruct() within its stated error for |x| <= 2^(L-2) = 2^(Lb-1), the scaling's limit.
TEST(CrtResidues, ReconstructionRecoversIntegers) {
  std::mt19937_64 gen(11);
  for (int N = kMinModuli; N <= kMaxModuli; ++N) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const Constants& c = constants(N);
    const Big P = product(N), halfP = P.div_small(2), limit = Big::of(1).shl(c.bits - 2);
    auto random_below_bits = [&](int bits) {
      Big x;
      for (int b = 0; b < bits; b += 32) x.d.push_back(static_cast<std::uint32_t>(gen()));
      x.trim();
      return x.pow2_floor_mod(bits);
    };
    std::vector<std::pair<bool, Big>> xs = {{false, Big{}},        {false, Big::of(1)},
                                            {true, Big::of(1)},    {false, limit},
                                            {true, limit},         {false, halfP.sub(Big::of(1))},
                                            {true, halfP.sub(Big::of(1))}};
    for (int t = 0; t < 300; ++t) xs.push_back({(gen() & 1) != 0, random_below_bits(1 + int(gen() % (c.bits - 2)))});
    for (const auto& [neg, mag] : xs) {
      std::int8_t r[kMaxModuli];
      for (int l = 0; l < N; ++l) r[l] = static_cast<std::int8_t>(sym_residue(neg, mag, kModuli[l]));
      // Exact: S = sum w_l r_l (r_l >= 0 representatives), S mod P == x mod P.
      Big S;
      for (int l = 0; l < N; ++l) {
        const Big w = P.div_small(static_cast<std::uint32_t>(kModuli[l])).mul(static_cast<std::uint32_t>(c.w_mod[l]));
        S = S.add(w.mul(static_cast<std::uint32_t>((r[l] + kModuli[l]) % kModuli[l])));
      }
      // S mod P via repeated subtraction of P * 2^s.
      Big Sm = S;
      for (int s = Sm.bits() - P.bits() + 1; s >= 0; --s) {
        const Big Ps = P.shl(s);
        if (Sm.cmp(Ps) >= 0) Sm = Sm.sub(Ps);
      }
      const Big expect = neg && !mag.zero() ? P.sub(mag) : mag;
      EXPECT_EQ(Sm.cmp(expect), 0);
      // reconstruct(): within 2u|x| + recon_error where |x| <= 2^(L-2).
      if (mag.cmp(limit) <= 0) {
        const double R = reconstruct(r, 1, c);
        ASSERT_EQ(R, std::trunc(R));
        const double x = (neg ? -1 : 1) * mag.approx();
        const double err = R >= 0 ? (neg ? Big::of_double(R).add(mag).approx() : std::fabs(diff(Big::of_double(R), mag)))
                                  : (neg ? std::fabs(diff(Big::of_double(-R), mag)) : Big::of_double(-R).add(mag).approx());
        EXPECT_LE(err, (2 * 0x1p-53 * std::fabs(x) + c.recon_error) * (1 + 1e-9)) << "x ~ " << x;
        if (c.grid == 0 && std::fabs(x) < 0x1p53) EXPECT_EQ(R, x);  // small N: exact
      }
    }
  }
}

// (3) At the certified N: the certified bound holds on every entry, and the median and max relative
// errors are no worse than a plain FP64 GEMM's, on five distributions and both rules.
TEST(CrtGemm, CertifiedNMatchesFp64OnFiveDistributions) {
  const char* dists[] = {"uniform(-1,1)", "uniform(0,1)", "phi=0.5", "phi=1", "phi=4"};
  const double u = 0x1p-53;
  int certified = 0;
  for (const char* dist : dists)
    for (Scaling rule : kRules) {
      SCOPED_TRACE(std::string(dist) + ", " + to_string(rule));
      const Problem p = make<double>(48, 40, 256, dist, 2026);
      const int N = choose<double>(p, Target::fp64, rule);
      if (N == 0) {
        EXPECT_THROW(emulate<double>(p, 0, rule), Fallback);
        std::printf("[crt] %-14s %-14s  N = 0 (native fallback)\n", dist, to_string(rule).c_str());
        EXPECT_STREQ(dist, "phi=4");  // only the widest distribution may exceed the table
        continue;
      }
      ++certified;
      CrtStats st;
      const auto c = emulate<double>(p, 0, rule, &st);
      EXPECT_EQ(st.moduli, N);
      const Errors emu = errors(p, c, u, 2 * u);
      const Errors nat = errors(p, native<double>(p), 0, 0);
      std::printf("[crt] %-14s %-14s  N = %2d  median %.3g (fp64 %.3g, ratio %.3f)  max %.3g (fp64 %.3g, "
                  "ratio %.3f)  err/bound %.3g\n",
                  dist, to_string(rule).c_str(), N, emu.median, nat.median, emu.median / nat.median, emu.max,
                  nat.max, emu.max / nat.max, emu.worst_bound_ratio);
      EXPECT_LE(emu.worst_bound_ratio, 1.0);
      EXPECT_LE(emu.median, nat.median);
      EXPECT_LE(emu.max, nat.max);
    }
  EXPECT_GE(certified, 8);  // at least four distributions under both rules
}

// (6) FP32 target on float data: certified N, bound with u = 2^-24, no worse than a float GEMM.
TEST(CrtGemm, Fp32TargetOnFloatData) {
  const double uf = 0x1p-24;
  for (const char* dist : {"uniform(-1,1)", "uniform(0,1)", "phi=1"})
    for (Scaling rule : kRules) {
      SCOPED_TRACE(std::string(dist) + ", " + to_string(rule));
      const Problem p = make<float>(40, 36, 200, dist, 99);
      const int N = choose<float>(p, Target::fp32, rule);
      ASSERT_GT(N, 0);
      EXPECT_LT(N, choose<double>(p, Target::fp64, rule));
      CrtStats st;
      const auto c = emulate<float>(p, 0, rule, &st);
      EXPECT_EQ(st.moduli, N);
      const Errors emu = errors(p, c, uf, uf + 2 * 0x1p-53);
      const Errors nat = errors(p, native<float>(p), 0, 0);
      std::printf("[crt] fp32 %-14s %-14s N = %2d  median %.3g (fp32 %.3g)  max %.3g (fp32 %.3g)  err/bound %.3g\n",
                  dist, to_string(rule).c_str(), N, emu.median, nat.median, emu.max, nat.max,
                  emu.worst_bound_ratio);
      EXPECT_LE(emu.worst_bound_ratio, 1.0);
      EXPECT_LE(emu.median, nat.median);
      EXPECT_LE(emu.max, nat.max);
    }
}

// (4) Widest exponent spread: x_il = u 2^(-s (l odd)), y_lj = v 2^(-s (l even)): every product
// term is ~2^-s while the lines span s binades. N grows with s up to 20, then the chooser says 0.
TEST(CrtAdversarial, WidestExponentSpreadThenFallback) {
  const double u = 0x1p-53;
  for (Scaling rule : kRules) {
    SCOPED_TRACE(to_string(rule));
    int last = kMinModuli, widest = -1;
    for (int s = 0; s <= 120; s += 2) {
      Problem p = make<double>(6, 5, 64, "uniform(0.5,1)", 5 + s);
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t l = 1; l < p.k; l += 2) p.a[i * p.k + l] = std::ldexp(p.a[i * p.k + l], -s);
      for (std::int64_t l = 0; l < p.k; l += 2)
        for (std::int64_t j = 0; j < p.n; ++j) p.b[l * p.n + j] = std::ldexp(p.b[l * p.n + j], -s);
      const int N = choose<double>(p, Target::fp64, rule);
      if (N == 0) {
        EXPECT_THROW(emulate<double>(p, 0, rule), Fallback);
        last = 0;
        continue;
      }
      EXPECT_NE(last, 0) << "the chooser went back from 0 to " << N << " at s = " << s;
      EXPECT_GE(N, last);
      last = N;
      widest = s;
      const auto c = emulate<double>(p, 0, rule);
      EXPECT_LE(errors(p, c, u, 2 * u).worst_bound_ratio, 1.0) << "s = " << s;
    }
    std::printf("[crt] %s: widest certified spread s = %d binades (N = 20), fallback beyond\n",
                to_string(rule).c_str(), widest);
    EXPECT_EQ(last, 0);
    EXPECT_GT(widest, 0);
  }
}

// (4) Zero rows and columns, k = 0, empty C, NaN / Inf, bad arguments.
TEST(CrtAdversarial, ZeroLinesEmptyAndNonfinite) {
  const double u = 0x1p-53;
  for (Scaling rule : kRules) {
    Problem p = make<double>(9, 7, 33, "uniform(-1,1)", 3);
    for (std::int64_t l = 0; l < p.k; ++l) p.a[4 * p.k + l] = 0;  // row 4 of A
    for (std::int64_t l = 0; l < p.k; ++l) p.b[l * p.n + 2] = 0;  // column 2 of B
    const auto c = emulate<double>(p, 0, rule);
    for (std::int64_t j = 0; j < p.n; ++j) EXPECT_EQ(c[4 * p.n + j], 0.0);
    for (std::int64_t i = 0; i < p.m; ++i) EXPECT_EQ(c[i * p.n + 2], 0.0);
    EXPECT_LE(errors(p, c, u, 2 * u).worst_bound_ratio, 1.0);
    // All-zero operands: C = beta * C.
    std::vector<double> z(6, 0.0), cc = {1, 2, 3, 4};
    crt_gemm_host<double>(Op::N, Op::N, 2.0, row_major<const double>(z.data(), 2, 3),
                          row_major<const double>(z.data(), 3, 2), 0.5, row_major(cc.data(), 2, 2), 0, rule);
    EXPECT_EQ(cc, (std::vector<double>{0.5, 1, 1.5, 2}));
  }
  // k = 0: C = beta * C; beta = 0 overwrites NaN.
  std::vector<double> c = {1, std::nan("")};
  crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(nullptr, 1, 0),
                        row_major<const double>(nullptr, 0, 2), 0.0, row_major(c.data(), 1, 2), 0,
                        Scaling::accurate);
  EXPECT_EQ(c[0], 0.0);
  EXPECT_EQ(c[1], 0.0);
  c = {1, 2};
  crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(nullptr, 1, 0),
                        row_major<const double>(nullptr, 0, 2), 3.0, row_major(c.data(), 1, 2), 5,
                        Scaling::accurate);
  EXPECT_EQ(c, (std::vector<double>{3, 6}));
  // NaN / Inf: Fallback(nonfinite), C untouched.
  std::vector<double> a = {1, 2, std::numeric_limits<double>::infinity(), 4}, b = {1, 2, 3, 4}, d = {7, 7, 7, 7};
  try {
    crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, 2),
                          row_major<const double>(b.data(), 2, 2), 0.0, row_major(d.data(), 2, 2), 0,
                          Scaling::cauchy_schwarz);
    ADD_FAILURE() << "no throw";
  } catch (const Fallback& f) {
    EXPECT_EQ(f.reason, Fallback::Reason::nonfinite);
  }
  EXPECT_EQ(d, (std::vector<double>{7, 7, 7, 7}));
  a[2] = std::nan("");
  EXPECT_THROW(crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, 2),
                                     row_major<const double>(b.data(), 2, 2), 0.0, row_major(d.data(), 2, 2), 12,
                                     Scaling::accurate),
               Fallback);
  // Bad arguments.
  a[2] = 3;
  EXPECT_THROW(crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, 2),
                                     row_major<const double>(b.data(), 2, 2), 0.0, row_major(d.data(), 2, 2), 1,
                                     Scaling::accurate),
               InvalidArgument);
  EXPECT_THROW(crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, 2),
                                     row_major<const double>(b.data(), 1, 4), 0.0, row_major(d.data(), 2, 2), 0,
                                     Scaling::accurate),
               InvalidArgument);
  EXPECT_THROW(crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, 2),
                                     row_major<const double>(b.data(), 2, 2), 0.0, row_major(d.data(), 2, 2), 0,
                                     Scaling::accurate, nullptr, kChunk + 1),
               InvalidArgument);
}

// (4) k = 2^17 + 3: two INT32 chunks; the result meets the bound and does not depend on the chunk.
TEST(CrtAdversarial, KPastTheInt32ChunkIsChunkedExactly) {
  const double u = 0x1p-53;
  const Problem p = make<double>(3, 2, kChunk + 3, "uniform(-1,1)", 17);
  for (Scaling rule : kRules) {
    CrtStats st;
    const auto c = emulate<double>(p, 0, rule, &st);
    EXPECT_EQ(st.chunks, 2);
    EXPECT_LE(errors(p, c, u, 2 * u).worst_bound_ratio, 1.0);
    const auto c2 = emulate<double>(p, st.moduli, rule, nullptr, 4099);
    for (std::size_t e = 0; e < c.size(); ++e) EXPECT_EQ(c[e], c2[e]);
  }
}

// (4) One huge entry among many tiny ones per row: the tiny ones vanish in the truncation, which the
// certificate allows only where their contribution is below u |A||B|.
TEST(CrtAdversarial, OneHugeAmongTinyEntries) {
  const double u = 0x1p-53;
  for (double tiny : {1e-20, 1e-12, 1e-6}) {
    Problem p = make<double>(8, 8, 200, "uniform(-1,1)", 23);
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t l = 0; l < p.k; ++l)
        p.a[i * p.k + l] = l == (i * 7) % p.k ? 1e10 : tiny * p.a[i * p.k + l];
    for (Scaling rule : kRules) {
      SCOPED_TRACE(std::to_string(tiny) + " " + to_string(rule));
      const int N = choose<double>(p, Target::fp64, rule);
      if (N == 0) {
        EXPECT_THROW(emulate<double>(p, 0, rule), Fallback);
        std::printf("[crt] huge/tiny %g %-14s N = 0 (native fallback)\n", tiny, to_string(rule).c_str());
        continue;
      }
      const auto c = emulate<double>(p, 0, rule);
      const Errors emu = errors(p, c, u, 2 * u), nat = errors(p, native<double>(p), 0, 0);
      std::printf("[crt] huge/tiny %g %-14s N = %2d  max %.3g (fp64 %.3g)\n", tiny, to_string(rule).c_str(), N,
                  emu.max, nat.max);
      EXPECT_LE(emu.worst_bound_ratio, 1.0);
    }
  }
}

// (5) Bitwise reproducibility: repeated runs, chunk lengths, operand layouts and transposes.
TEST(CrtReproducible, BitwiseAcrossRunsChunksAndLayouts) {
  const Problem p = make<double>(17, 13, 300, "phi=1", 31);
  for (Scaling rule : kRules) {
    CrtStats st;
    const auto c1 = emulate<double>(p, 0, rule, &st);
    const auto c2 = emulate<double>(p, 0, rule);
    const auto c3 = emulate<double>(p, st.moduli, rule, nullptr, 1);
    const auto c4 = emulate<double>(p, st.moduli, rule, nullptr, 7);
    // op(A) = A^T with A stored column-major... the same numbers through other strides.
    std::vector<double> at(p.k * p.m), bt(p.n * p.k), c5(p.m * p.n, 0.0);
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t l = 0; l < p.k; ++l) at[l * p.m + i] = p.a[i * p.k + l];
    for (std::int64_t l = 0; l < p.k; ++l)
      for (std::int64_t j = 0; j < p.n; ++j) bt[l + j * p.k] = p.b[l * p.n + j];
    crt_gemm_host<double>(Op::T, Op::N, 1.0, row_major<const double>(at.data(), p.k, p.m),
                          col_major<const double>(bt.data(), p.k, p.n), 0.0, col_major(c5.data(), p.m, p.n),
                          st.moduli, rule);
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j) {
        const std::int64_t e = i * p.n + j;
        EXPECT_EQ(c1[e], c2[e]);
        EXPECT_EQ(c1[e], c3[e]);
        EXPECT_EQ(c1[e], c4[e]);
        EXPECT_EQ(c1[e], c5[i + j * p.m]);
      }
    // alpha / beta: C = alpha AB + beta C from the same AB.
    std::vector<double> a(p.a), b(p.b), c(p.m * p.n, 1.0);
    crt_gemm_host<double>(Op::N, Op::N, -2.0, row_major<const double>(a.data(), p.m, p.k),
                          row_major<const double>(b.data(), p.k, p.n), 0.5, row_major(c.data(), p.m, p.n),
                          st.moduli, rule);
    for (std::size_t e = 0; e < c.size(); ++e) EXPECT_EQ(c[e], -2.0 * c1[e] + 0.5);
  }
}

// Measurement (docs/crt.md): errors against FP64 at the certified N and below it, k = 256 and 4096.
// Asserts only that the certified N is at least as accurate as N - 3.
TEST(CrtGemm, ErrorsByNumberOfModuli) {
  for (std::int64_t k : {256, 4096})
    for (const char* dist : {"uniform(-1,1)", "phi=1"}) {
      const Problem p = make<double>(24, 24, k, dist, 77);
      const Errors nat = errors(p, native<double>(p), 0, 0);
      for (Scaling rule : kRules) {
        const int N = choose<double>(p, Target::fp64, rule);
        ASSERT_GT(N, 3);
        double at_n = 0, at_n3 = 0;
        for (int M = N - 3; M <= N; ++M) {
          const Errors e = errors(p, emulate<double>(p, M, rule), 0, 0);
          std::printf("[crt] k=%5lld %-14s %-14s N=%2d%s  median/fp64 %.3f  max/fp64 %.3g\n",
                      static_cast<long long>(k), dist, to_string(rule).c_str(), M, M == N ? "*" : " ",
                      e.median / nat.median, e.max / nat.max);
          if (M == N) at_n = e.max;
          if (M == N - 3) at_n3 = e.max;
        }
        EXPECT_LE(at_n, at_n3);
      }
    }
}

// (2c) Rounding to nearest stays within what the scaling rules count: for every line exponent,
// |rint(2^(e - base) t)| <= 2^h ceil(t) for t = |x| 2^base on the rule's grid (t <= 2^16), h =
// floor((Lb - 1 - c) / 2) (crt_arith::scale_exponent takes one more halving where h < 0, where
// rint(2^h t) alone could exceed 2^h t by up to 1/2, e.g. 2^-8 384 = 1.5 -> 2).
TEST(CrtScaling, RoundedElementsStayWithinTheRuleGrid) {
  std::mt19937_64 gen(5);
  std::vector<double> ts = {0, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 3, 383.5, 384, 65535.5, 65536};
  for (int t = 0; t < 400; ++t) ts.push_back(std::ldexp(static_cast<double>(gen() >> 11), -37));  // [0, 2^16)
  int negative_h = 0;
  for (int Lb : {15, 23, 39, 63, 110, 155})
    for (int c = 0; c <= 70; ++c) {
      const int base = 16, e = arith::scale_exponent(Lb, c, base), h = arith::floor_half(Lb - 1 - c);
      negative_h += h < 0;
      for (double t : ts)
        ASSERT_LE(std::rint(std::ldexp(t, e - base)), std::ldexp(std::ceil(t), h))
            << "Lb " << Lb << " c " << c << " t " << t;
    }
  EXPECT_GT(negative_h, 100);  // the h < 0 branch is exercised
}

// (2c') The split (crt_arith::split_d, split_shift): d = 1 exactly when every active source line has
// c of Lb's parity; the source gets -d and the other operand +d (they cancel). No line's exponent falls
// below d = 0's: at d = 1 a source line keeps floor((Lb - 1 - c) / 2) and the other operand's lines
// keep it or gain one. op(A) is the source when it has no more lines than op(B).
TEST(CrtScaling, SplitNeverLowersAnExponent) {
  EXPECT_EQ(arith::split_d(63, 5, 5), 1);  // Lb odd, every c odd
  EXPECT_EQ(arith::split_d(63, 4, 5), 0);
  EXPECT_EQ(arith::split_d(94, 0, 5), 1);  // Lb even, every c even
  EXPECT_EQ(arith::split_d(94, 1, 5), 0);
  EXPECT_EQ(arith::split_d(94, 0, 0), 0);  // no active line: no shift
  int raised = 0;
  for (int Lb = 15; Lb <= 155; ++Lb)
    for (std::uint64_t odd : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{7}}) {
      const std::uint64_t active = 7;
      const int s = arith::split_shift(Lb, odd, active, true);
      EXPECT_EQ(s + arith::split_shift(Lb, odd, active, false), 0);
      EXPECT_TRUE(s == 0 || s == -1);
      for (int c = 0; c <= 80; ++c) {
        const int plain = arith::scale_exponent(Lb, c, 0);
        const bool source_line = odd == 0 ? c % 2 == 0 : odd == active ? c % 2 == 1 : true;
        if (source_line) EXPECT_EQ(arith::scale_exponent(Lb + s, c, 0), plain) << "Lb " << Lb << " c " << c;
        const int other = arith::scale_exponent(Lb - s, c, 0);
        EXPECT_GE(other, plain);  // (+2 where h crosses from -1 to 0: the h < 0 halving ends)
        raised += other > plain;
      }
    }
  EXPECT_GT(raised, 0);
  EXPECT_TRUE(arith::split_source_is_a(8, 8));
  EXPECT_TRUE(arith::split_source_is_a(7, 8));
  EXPECT_FALSE(arith::split_source_is_a(9, 8));
}

// (2d) The scaled, rounded operands of both rules keep sum_l |A'_il| |B'_lj| <= 2^(Lb-1) for every
// entry, the reconstruction's limit: random, wide-spread and tight lines at small N (h < 0) and large
// N. Tight lines hold 1 - 2^-40 (rounded up to the rule's grid value 2^16 or 2^6, k a power of two):
// the sum reaches the limit exactly at N = 8 (Lb = 63) for k = 4096 (c = 44 or 24, Lb - 1 - c even:
// no shift) and k = 2048 (c = 43 or 23, odd on every line: the split gives the source -1 and the other
// operand +1), so a rule one bit too generous fails, and without the split k = 2048 would reach a quarter.
TEST(CrtScaling, RoundedProductsStayWithinTheReconstructionLimit) {
  const std::int64_t m = 6, n = 5;
  for (const char* dist : {"tight", "uniform(-1,1)", "phi=4"})
    for (std::int64_t k : {std::int64_t{1}, std::int64_t{7}, std::int64_t{2048}, std::int64_t{4096}}) {
      Problem p;
      if (std::string(dist) == "tight")
        p = {m, n, k, std::vector<double>(m * k, 1 - 0x1p-40), std::vector<double>(k * n, 1 - 0x1p-40)};
      else
        p = make<double>(m, n, k, dist, 40 + static_cast<std::uint64_t>(k));
      for (Scaling rule : kRules) {
        double worst = 0;
        for (int N : {2, 3, 5, 8, 14, 20}) {
          SCOPED_TRACE(std::string(dist) + " k = " + std::to_string(k) + " N = " + std::to_string(N) + " " +
                       to_string(rule));
          std::vector<int> ea(m), eb(n);
          scale_exponents<double>(rule, N, row_major<const double>(p.a.data(), m, k),
                                  row_major<const double>(p.b.data(), k, n), ea.data(), eb.data());
          const long double limit = std::ldexp(1.0L, constants(N).bits - 2);
          for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              long double s = 0;  // 64-bit significands: exact for the tight lines, else within k 2^-63
              for (std::int64_t l = 0; l < k; ++l)
                s += std::fabs(static_cast<long double>(scaled_integer(p.a[i * k + l], ea[i]))) *
                     std::fabs(static_cast<long double>(scaled_integer(p.b[l * n + j], eb[j])));
              ASSERT_LE(s, limit * (1 + static_cast<long double>(k) * 0x1p-62L)) << "entry " << i << ", " << j;
              if (N == 8) worst = std::max(worst, static_cast<double>(s / limit));
            }
        }
        if (std::string(dist) == "tight" && k >= 2048) EXPECT_EQ(worst, 1.0) << to_string(rule) << " k = " << k;
      }
    }
}

// (4) k = 2^17 exactly with every residue mod 256 equal to -128: the INT32 sum of that product is
// 2^31, which wraps; the result must still be exact (2^31 = 0 mod 256). x = y = 1.5 + 2^-30 with
// N = 12 and the Cauchy-Schwarz rule (c = 49 on every line, not of Lb = 94's parity: no split shift)
// scales to 3 2^36 + 2^7 = 128 mod 256 (checked first).
TEST(CrtAdversarial, Int32WrapAtTheChunkLimitForModulus256) {
  const std::int64_t k = kChunk;
  const double v = 1.5 + 0x1p-30;
  std::vector<double> a(2 * k, v), b(k * 2, v), c(4, 0.0), c2(4, 0.0);
  int ea[2], eb[2];
  scale_exponents<double>(Scaling::cauchy_schwarz, 12, row_major<const double>(a.data(), 2, k),
                          row_major<const double>(b.data(), k, 2), ea, eb);
  ASSERT_EQ(ea[0], 37);
  ASSERT_EQ(eb[1], 37);
  ASSERT_EQ(residue(scaled_integer(v, ea[0]), 256), -128);
  crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, k),
                        row_major<const double>(b.data(), k, 2), 0.0, row_major(c.data(), 2, 2), 12,
                        Scaling::cauchy_schwarz);
  crt_gemm_host<double>(Op::N, Op::N, 1.0, row_major<const double>(a.data(), 2, k),
                        row_major<const double>(b.data(), k, 2), 0.0, row_major(c2.data(), 2, 2), 12,
                        Scaling::cauchy_schwarz, nullptr, 1000);
  // Exact: k v^2 = 2.25 2^17 + 3 2^-13 + 2^-43, nearest double 2.25 2^17 + 3 2^-13.
  for (int e = 0; e < 4; ++e) {
    EXPECT_EQ(c[e], 0x1.2p18 + 0x1.8p-12);
    EXPECT_EQ(c2[e], c[e]);
  }
}

// ---- certify_int8: the cheap rigorous certificate (two magnitude levels, 1-norms) ----

// magnitude_levels bounds |v| from below to 14 bits of its line's exponent: 2^(E-14) (2^7 hi + lo)
// <= |v| < 2^(E-14) (2^7 hi + lo + 1), hi and lo in [0, 127].
TEST(CrtCertifyInt8, MagnitudeLevelsBoundFromBelow) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> ex(-1060, 1000), drop(0, 40);
  for (int t = 0; t < 20000; ++t) {
    const int E = ex(rng);
    const double v = std::ldexp(u(rng), E - drop(rng));  // |v| < 2^E
    int hi = -1, lo = -1;
    arith::magnitude_levels(v, E, hi, lo);
    ASSERT_GE(hi, 0);
    ASSERT_LE(hi, 127);
    ASSERT_GE(lo, 0);
    ASSERT_LE(lo, 127);
    const double t14 = std::ldexp(std::fabs(v), 14 - E);
    ASSERT_LE(hi * 128.0 + lo, t14) << v << " E " << E;
    if (std::fabs(v) >= std::numeric_limits<double>::min()) {
      ASSERT_GT(hi * 128.0 + lo + 1, t14) << v << " E " << E;
    }
  }
  int hi, lo;
  arith::magnitude_levels(-0.75, 0, hi, lo);  // |v| 2^14 = 12288 = 96 * 128
  EXPECT_EQ(hi, 96);
  EXPECT_EQ(lo, 0);
}

// At the N that certify_int8 returns the certified bound holds on every entry against a double-double
// reference, on four distributions and an adversarial wide spread (half of the k positions 12
// binades down, alternating between the operands), both rules; it asks at most two moduli more than
// the O(mnk) certificate and gives up (0) wherever that one does.
TEST(CrtCertifyInt8, CertifiedNMeetsTheBound) {
  const double u = 0x1p-53;
  int certified = 0;
  for (const char* dist : {"uniform(-1,1)", "phi=0.1", "phi=1", "phi=2", "phi=4", "spread12"})
    for (Scaling rule : kRules) {
      SCOPED_TRACE(std::string(dist) + ", " + to_string(rule));
      const bool spread = std::string(dist) == "spread12";
      Problem p = make<double>(48, 40, 256, spread ? "uniform(0.5,1)" : dist, 2027);
      if (spread) {
        for (std::int64_t i = 0; i < p.m; ++i)
          for (std::int64_t l = 1; l < p.k; l += 2) p.a[i * p.k + l] = std::ldexp(p.a[i * p.k + l], -12);
        for (std::int64_t l = 0; l < p.k; l += 2)
          for (std::int64_t j = 0; j < p.n; ++j) p.b[l * p.n + j] = std::ldexp(p.b[l * p.n + j], -12);
      }
      const auto A = row_major<const double>(p.a.data(), p.m, p.k);
      const auto B = row_major<const double>(p.b.data(), p.k, p.n);
      const Certificate exact = certify<double>(Op::N, Op::N, A, B, u, rule);
      const Certificate cheap = certify_int8<double>(Op::N, Op::N, A, B, u, rule);
      std::printf("[crt] certify_int8 %-14s %-14s  N = %2d (ratio %.3g)  certify: N = %2d (ratio %.3g)\n", dist,
                  to_string(rule).c_str(), cheap.moduli, cheap.worst_ratio, exact.moduli, exact.worst_ratio);
      if (exact.moduli == 0) {
        EXPECT_EQ(cheap.moduli, 0);
        continue;
      }
      if (cheap.moduli == 0) {
        ADD_FAILURE() << "certify gives N = " << exact.moduli << ", certify_int8 none";
        continue;
      }
      EXPECT_LE(cheap.worst_ratio, 1.0);
      EXPECT_LE(cheap.moduli, exact.moduli + 2);
      const auto c = emulate<double>(p, cheap.moduli, rule);
      EXPECT_LE(errors(p, c, u, 2 * u).worst_bound_ratio, 1.0);
      // worst_ratio is the largest ratio at N: a tolerance just below it no longer certifies N
      const int tighter = certify_int8<double>(Op::N, Op::N, A, B, u * cheap.worst_ratio * 0.999, rule).moduli;
      EXPECT_TRUE(tighter == 0 || tighter > cheap.moduli) << tighter;
      ++certified;
    }
  EXPECT_GE(certified, 8);  // four distributions under both rules at least
}

// A line pair meeting only in elements below 2^-14 of their maxima has G_ij = 0: no N (conservative),
// where certify still certifies; zero lines are skipped as in certify.
TEST(CrtCertifyInt8, TinyOverlapGivesNoCertificateZeroLinesAreSkipped) {
  Problem p = make<double>(3, 3, 8, "uniform(0.5,1)", 5);
  for (std::int64_t l = 0; l < p.k; ++l) {
    p.a[0 * p.k + l] = l == 0 ? 1.0 : 0x1p-20;  // row 0: large only at l = 0
    p.b[l * p.n + 0] = l == 0 ? 0.0 : 1.0;      // column 0: zero at l = 0
    p.a[2 * p.k + l] = 0;                       // row 2: zero line
  }
  const auto A = row_major<const double>(p.a.data(), p.m, p.k);
  const auto B = row_major<const double>(p.b.data(), p.k, p.n);
  EXPECT_GT(certify<double>(Op::N, Op::N, A, B, 0x1p-53, Scaling::cauchy_schwarz).moduli, 0);
  EXPECT_EQ(certify_int8<double>(Op::N, Op::N, A, B, 0x1p-53, Scaling::cauchy_schwarz).moduli, 0);
  for (std::int64_t l = 0; l < p.k; ++l) p.a[0 * p.k + l] = 0;  // row 0 zero too: only zero entries left
  EXPECT_GT(certify_int8<double>(Op::N, Op::N, A, B, 0x1p-53, Scaling::cauchy_schwarz).moduli, 0);
}
