// tcemu/crt_arith.hpp: the FP64 reductions the GPU path uses (sym_mod_small, residue) against plain
// 128-bit integer remainders, for every modulus of the table: exhaustively around zero, at the INT32
// and 2^53 / 2^84 boundaries, and on random integers of every magnitude up to 2^100.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "tcemu/crt.hpp"
#include "tcemu/crt_arith.hpp"

using namespace tcemu::crt;

namespace {

// Symmetric residue of m 2^e (m a signed 64-bit integer, e >= 0) mod p, by 128-bit integers.
int reference(std::int64_t m, int e, int p) {
  __int128 r = static_cast<__int128>(m) % p;
  for (int i = 0; i < e; ++i) r = (r * 2) % p;
  int s = static_cast<int>((r + p) % p);
  if (s > (p - 1) / 2) s -= p;
  return s;
}

}  // namespace

TEST(CrtArith, Fp64ReductionEqualsIntegerRemainder) {
  std::mt19937_64 rng(2026);
  for (int l = 0; l < kMaxModuli; ++l) {
    const int p = kModuli[l];
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusF64 m = arith::modulus_f64(p);
    int bad = 0;
    for (std::int64_t v = -70000; v <= 70000; ++v) bad += arith::residue(double(v), m) != reference(v, 0, p);
    for (std::int64_t edge : {std::int64_t{INT32_MAX}, std::int64_t{INT32_MIN}, (std::int64_t{1} << 53) - 1,
                              -(std::int64_t{1} << 53) + 1, std::int64_t{1} << 52, std::int64_t{3} << 50})
      for (std::int64_t d = -600; d <= 600; ++d) {
        const std::int64_t v = edge + d;
        if (std::llabs(v) < (std::int64_t{1} << 53))
          bad += arith::sym_mod_small(double(v), m) != reference(v, 0, p);
      }
    // Random integers m 2^e: every magnitude to 2^100 (the FP64 split below 2^84, integers above).
    for (int t = 0; t < 20000; ++t) {
      const int bits = 1 + static_cast<int>(rng() % 53);
      std::int64_t mm = static_cast<std::int64_t>(rng() >> (64 - bits));
      if (rng() & 1) mm = -mm;
      const int e = static_cast<int>(rng() % 48);
      bad += arith::residue(std::ldexp(double(mm), e), m) != reference(mm, e, p);
    }
    EXPECT_EQ(bad, 0);
  }
}

// The GPU residue pass's integer reduction of wide scaled integers (residue_wide: five limbs of
// split32, Barrett) equals the independent remainder for every modulus: m 2^e of every magnitude
// below 2^84 and both signs (small ones too: a warp with one wide lane reduces all its lanes so),
// near the 2^32 / 2^53 / 2^74 limb weights and near 2^84.
TEST(CrtArith, WideIntegerReductionEqualsIntegerRemainder) {
  std::mt19937_64 rng(2027);
  for (int l = 0; l < kMaxModuli; ++l) {
    const int p = kModuli[l];
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 m = arith::modulus_u32(p);
    int bad = 0;
    for (std::int64_t v = -70000; v <= 70000; ++v)
      bad += arith::residue_wide(arith::wide_limbs(double(v)), m) != reference(v, 0, p);
    // (2^53 - 1 - d) 2^e: the largest mantissas at every limb boundary up to 2^84, both signs
    for (int e : {0, 11, 21, 31, 32, 42, 52, 53, 63, 74, 83 - 52})
      for (std::int64_t d = 0; d <= 300; ++d)
        for (int sg : {1, -1}) {
          const std::int64_t mm = sg * ((std::int64_t{1} << 53) - 1 - d);
          const double x = std::ldexp(double(mm), e);
          if (std::fabs(x) < 0x1p84) bad += arith::residue_wide(arith::wide_limbs(x), m) != reference(mm, e, p);
        }
    for (int t = 0; t < 20000; ++t) {
      const int bits = 1 + static_cast<int>(rng() % 53);
      auto mm = static_cast<std::int64_t>(rng() >> (64 - bits));
      if (rng() & 1) mm = -mm;
      const int e = static_cast<int>(rng() % (84 - bits + 1));
      const double x = std::ldexp(double(mm), e);
      if (!(std::fabs(x) < 0x1p84)) continue;
      bad += arith::residue_wide(arith::wide_limbs(x), m) != reference(mm, e, p);
      bad += arith::residue_wide(arith::wide_limbs(x), m) != arith::residue(x, arith::modulus_f64(p));
    }
    EXPECT_EQ(bad, 0);
  }
}

// The sign-free limb reduction of the GPU residue pass (residue_i64: signed top limb, one offset per
// modulus) and the reconstruction's INT32 reduction (sym_residue_i32) equal the independent
// remainder for every modulus: near 0, near the limb edges 2^23 / 2^46 of both signs, at the int64
// extremes, at random magnitudes; and |v| <= 2^30 at its ends (the INT32 sums of a 2^16 chunk).
TEST(CrtArith, SignFreeLimbAndInt32ReductionsEqualIntegerRemainder) {
  std::mt19937_64 rng(2028);
  for (int l = 0; l < kMaxModuli; ++l) {
    const int p = kModuli[l];
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 m = arith::modulus_u32(p);
    int bad = 0;
    for (std::int64_t v = -70000; v <= 70000; ++v) bad += arith::residue_i64(v, m) != reference(v, 0, p);
    for (std::int64_t edge : {std::int64_t{1} << 23, std::int64_t{1} << 46, -(std::int64_t{1} << 23),
                              -(std::int64_t{1} << 46), std::int64_t{INT32_MAX}, (std::int64_t{1} << 53) - 1,
                              -(std::int64_t{1} << 53) + 1, INT64_MAX - 700, INT64_MIN + 700})
      for (std::int64_t d = -600; d <= 600; ++d) bad += arith::residue_i64(edge + d, m) != reference(edge + d, 0, p);
    for (int t = 0; t < 20000; ++t) {
      const int bits = 1 + static_cast<int>(rng() % 63);
      auto v = static_cast<std::int64_t>(rng() >> (64 - bits));
      if (rng() & 1) v = -v;
      bad += arith::residue_i64(v, m) != reference(v, 0, p);
      const double x = double(v);  // the residue pass's input: an integer-valued double below 2^63
      if (std::fabs(x) < 0x1p63) bad += arith::residue_i64(static_cast<std::int64_t>(x), m) != arith::residue(x, p);
    }
    const std::int32_t lim = std::int32_t{1} << 30;
    for (std::int32_t d = 0; d <= 1000; ++d)
      for (std::int32_t v : {lim - d, -lim + d, d, -d})
        bad += arith::sym_residue_i32(v, m) != reference(v, 0, p);
    for (int t = 0; t < 20000; ++t) {
      const auto v = static_cast<std::int32_t>(static_cast<std::int64_t>(rng() % ((std::uint64_t{1} << 31) + 1)) - lim);
      bad += arith::sym_residue_i32(v, m) != reference(v, 0, p);
      bad += arith::sym_residue_i32(v, m) != static_cast<int>(arith::sym_mod_small(double(v), arith::modulus_f64(p)));
    }
    EXPECT_EQ(bad, 0);
  }
}

// Barrett's reduction (mod_u32, s - q p computed as s + q neg_p) equals the remainder for every p
// from 2 to 256 and 32-bit words at both ends and at random, with the full constants (modulus_u32)
// and with the kernels' Barrett-only ones (barrett_u32).
TEST(CrtArith, BarrettReductionEqualsTheRemainderForEveryWord) {
  std::mt19937_64 rng(2031);
  for (std::uint32_t p = 2; p <= 256; ++p) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 full = arith::modulus_u32(static_cast<int>(p));
    const arith::ModulusU32 bare = arith::barrett_u32(p, full.magic);
    EXPECT_EQ(bare.half, full.half);
    int bad = 0;
    const auto check = [&](std::uint32_t s) {
      bad += arith::mod_u32(s, full) != s % p;
      bad += arith::mod_u32(s, bare) != s % p;
    };
    for (std::uint32_t d = 0; d <= 2000; ++d) {
      check(d);
      check(UINT32_MAX - d);
    }
    for (int t = 0; t < 20000; ++t) check(static_cast<std::uint32_t>(rng()));
    EXPECT_EQ(bad, 0);
  }
}

// The residue pass's FP64 moduli: reduce_by_group (one group of 2 to 6 consecutive odd moduli of the
// table) then residue_word_fp64 give the canonical symmetric residue (the 128-bit remainder's) in the
// word's low byte and as the whole word, for integer-valued |v| below min(2^84, 2^51 M) (the residue
// pass's fp64_limit): random magnitudes, both ends of the range, and v near odd multiples of M / 2 and
// of p / 2 (where a rounding could go either way).
TEST(CrtArith, Fp64GroupResiduesAreTheCanonicalSymmetricResidues) {
  std::mt19937_64 rng(2032);
  for (int first = 1; first < kMaxModuli; ++first)
    for (int size = 2; size <= 6 && first + size <= kMaxModuli; ++size) {
      SCOPED_TRACE("moduli " + std::to_string(first) + " .. " + std::to_string(first + size - 1));
      double M = 1;
      for (int j = 0; j < size; ++j) M *= kModuli[first + j];
      ASSERT_LT(M, 0x1p48);
      const double inv_M = 1.0 / M;
      int bad = 0;
      const auto check = [&](double v) {
        const double w = arith::reduce_by_group(v, M, inv_M);
        bad += !(std::fabs(w) < 0x1p48) || w != std::trunc(w);  // the second step's range
        for (int j = 0; j < size; ++j) {
          const int p = kModuli[first + j];
          const std::uint32_t word = arith::residue_word_fp64(w, p, 1.0 / p);
          const int want = arith::residue(v, p);
          bad += static_cast<std::int8_t>(word & 0xFFu) != want;
          bad += static_cast<std::int32_t>(word) != want;
        }
      };
      const double limit = std::min(0x1p84, 0x1p51 * M);
      for (int t = 0; t < 3000; ++t) {
        const int bits = 1 + static_cast<int>(rng() % 63);
        auto v = static_cast<std::int64_t>(rng() >> (64 - bits));
        if (rng() & 1) v = -v;
        check(static_cast<double>(v));  // rounded to a double: still an integer below 2^63
        const double wide = std::ldexp(static_cast<double>(v), static_cast<int>(rng() % 22));
        if (std::fabs(wide) < limit) check(wide);
      }
      const double top = std::nextafter(limit, 0.0);  // the largest double below the limit (an integer)
      for (double v : {top, -top, 0x1p63 - 1024, -0x1p63 + 1024, 0x1p53, -0x1p53, 1.0, -1.0, 0.0})
        check(v);
      const auto Mi = static_cast<std::int64_t>(M);
      for (std::int64_t q : {std::int64_t{1}, std::int64_t{3}, std::int64_t{12345}, ((std::int64_t{1} << 40) / Mi) | 1})
        for (std::int64_t d = -3; d <= 3; ++d) {
          check(static_cast<double>(q * Mi / 2 + d));
          check(static_cast<double>(-(q * Mi / 2) + d));
          for (int j = 0; j < size; ++j) check(static_cast<double>(q * kModuli[first + j] / 2 + d));
        }
      EXPECT_EQ(bad, 0);
    }
}

// The GPU residue pass's split of N moduli between the integer limbs and the FP64 groups
// (residue_pass_split), for every N of the table: at most 8 on the integers, the groups contiguous
// after them up to N, 2 to 6 odd moduli each with a product below 2^48 (reduce_by_group's range), and
// about 3/5 of the moduli in the groups from N = 6 on.
TEST(CrtArith, ResiduePassSplitKeepsEveryBoundForEveryN) {
  for (int n = kMinModuli; n <= kMaxModuli; ++n) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const arith::ResiduePassSplit s = arith::residue_pass_split(n);
    EXPECT_GE(s.n_int, 0);
    EXPECT_LE(s.n_int, arith::kResidueIntModuliMax);
    EXPECT_LE(s.groups, arith::kResidueFp64Groups);
    if (n < 6) EXPECT_EQ(s.groups, 0);
    else EXPECT_GE(5 * (n - s.n_int), 3 * n - 5);  // 3/5 of N, rounded down
    int next = s.n_int;
    for (int g = 0; g < s.groups; ++g) {
      EXPECT_EQ(s.first[g], next);
      EXPECT_GE(s.size[g], 2);
      EXPECT_LE(s.size[g], arith::kResidueFp64GroupMax);
      double M = 1;
      for (int j = 0; j < s.size[g]; ++j) {
        EXPECT_EQ(kModuli[s.first[g] + j] % 2, 1);
        M *= kModuli[s.first[g] + j];
      }
      EXPECT_LT(M, 0x1p48);
      next += s.size[g];
    }
    EXPECT_EQ(next, n);
  }
}

// The INT8 wgmma kernel's epilogue reduction (sym_residue_i32_k17, |v| <= 2^31 - 2^14: one INT32
// product of up to 2^17 - 1 INT8 x INT8 terms) equals the independent remainder for every p the kernel
// accepts (2 to 256, the table's moduli among them): at both ends of its range, near 0 and at random.
TEST(CrtArith, KernelEpilogueReductionEqualsIntegerRemainderToTheInt32Limit) {
  std::mt19937_64 rng(2029);
  const std::int32_t lim = INT32_MAX - (std::int32_t{1} << 14) + 1;  // 2^31 - 2^14
  for (int p = 2; p <= 256; ++p) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 m = arith::modulus_u32(p);
    int bad = 0;
    for (std::int32_t d = 0; d <= 600; ++d)
      for (std::int32_t v : {lim - d, -lim + d, d, -d}) bad += arith::sym_residue_i32_k17(v, m) != reference(v, 0, p);
    for (int t = 0; t < 4000; ++t) {
      const auto v = static_cast<std::int32_t>(static_cast<std::int64_t>(rng() % (2 * std::uint64_t(lim) + 1)) - lim);
      bad += arith::sym_residue_i32_k17(v, m) != reference(v, 0, p);
      if (std::abs(v) <= (std::int32_t{1} << 30)) bad += arith::sym_residue_i32_k17(v, m) != arith::sym_residue_i32(v, m);
    }
    EXPECT_EQ(bad, 0);
  }
}

// The same reduction four entries at a time, as the bytes the kernel stores (sym_residue_bytes4_k17;
// the host build runs its per-lane branch): each byte equals the one-entry form's residue as int8,
// for every p from 2 to 256, with the four entries drawn from the ends of the range, near 0 and at
// random, so that both 16-bit lanes see remainders below and above p.
TEST(CrtArith, KernelEpilogueResidueBytesEqualTheOneEntryForm) {
  std::mt19937_64 rng(2031);
  const std::int32_t lim = INT32_MAX - (std::int32_t{1} << 14) + 1;  // 2^31 - 2^14
  std::vector<std::int32_t> values;
  for (std::int32_t d = 0; d <= 300; ++d)
    for (std::int32_t v : {lim - d, -lim + d, d, -d}) values.push_back(v);
  for (int t = 0; t < 4000; ++t)
    values.push_back(static_cast<std::int32_t>(static_cast<std::int64_t>(rng() % (2 * std::uint64_t(lim) + 1)) - lim));
  for (int p = 2; p <= 256; ++p) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 m = arith::modulus_u32(p);
    const arith::ResidueBytesLanes c = arith::residue_bytes_lanes(m);
    std::shuffle(values.begin(), values.end(), rng);
    long bad = 0;
    for (std::size_t i = 0; i + 4 <= values.size(); i += 4) {
      const std::int32_t v[4] = {values[i], values[i + 1], values[i + 2], values[i + 3]};
      const std::uint32_t word = arith::sym_residue_bytes4_k17(v, m, c);
      for (int e = 0; e < 4; ++e)
        bad += static_cast<std::int8_t>(word >> (8 * e)) != static_cast<std::int8_t>(arith::sym_residue_i32_k17(v[e], m));
    }
    EXPECT_EQ(bad, 0);
  }
}

// The GPU 3M reconstruction's two-entry form (shifted_3m_lanes; the host build runs its per-lane
// branch, compute 9.0 one __viaddmin_u16x2 per step): from stored residue bytes XOR 0x80 in two 16-bit
// lanes, each lane equals shifted_re_3m and shifted_im_3m of its own triple, for every table modulus
// and every triple (r1, r2, r3), both lanes at once with different triples.
TEST(CrtArith, ThreeMultiplicationLanesEqualTheOneEntryForm) {
  for (int p : kModuli) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 m = arith::modulus_u32(p);
    const arith::Lanes3m c = arith::lanes_3m(m);
    const int lo = -static_cast<int>(m.half), hi = p - 1 - static_cast<int>(m.half);
    auto byte_lane = [](int r) { return static_cast<std::uint32_t>(static_cast<std::uint8_t>(r)) ^ 0x80u; };
    long bad = 0;
    for (int r1 = lo; r1 <= hi; ++r1)
      for (int r2 = lo; r2 <= hi; ++r2)
        for (int r3 = lo; r3 <= hi; ++r3) {
          const int s1 = hi - (r1 - lo), s2 = r3, s3 = r2;  // the high lane's triple: another one
          const std::uint32_t a1 = byte_lane(r1) | byte_lane(s1) << 16, a2 = byte_lane(r2) | byte_lane(s2) << 16,
                              a3 = byte_lane(r3) | byte_lane(s3) << 16;
          std::uint32_t re = 0, im = 0;
          arith::shifted_3m_lanes(a1, a2, a3, c, re, im);
          const auto u = [&](int r) { return static_cast<std::uint32_t>(r + static_cast<int>(m.half)); };
          bad += (re & 0xFFFFu) != arith::shifted_re_3m(u(r1), u(r2), m);
          bad += (re >> 16) != arith::shifted_re_3m(u(s1), u(s2), m);
          bad += (im & 0xFFFFu) != arith::shifted_im_3m(u(r1), u(r2), u(r3), m);
          bad += (im >> 16) != arith::shifted_im_3m(u(s1), u(s2), u(s3), m);
        }
    EXPECT_EQ(bad, 0);
  }
}

// Complex int8-crt's 3M in the residue domain: the residue of a sum of two residues, and Re = P1 - P2,
// Im = P3 - P1 - P2 on shifted residues, equal the independent remainders for every table modulus and
// every input pair (triple: on a grid through the whole range, ends included).
TEST(CrtArith, ThreeMultiplicationResidueCombinationsEqualIntegerRemainders) {
  for (int p : kModuli) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const arith::ModulusU32 m = arith::modulus_u32(p);
    const int lo = -static_cast<int>(m.half), hi = p - 1 - static_cast<int>(m.half);
    int bad = 0;
    for (int a = lo; a <= hi; ++a)
      for (int b = lo; b <= hi; ++b) {
        bad += arith::sym_add_residues(a, b, m) != reference(a + b, 0, p);
        const auto ua = static_cast<std::uint32_t>(a - lo), ub = static_cast<std::uint32_t>(b - lo);
        bad += static_cast<int>(arith::shifted_re_3m(ua, ub, m)) + lo != reference(a - b, 0, p);
        for (int c = lo; c <= hi + 6; c += 7) {
          if (c > hi) c = hi;  // the top end too
          const auto uc = static_cast<std::uint32_t>(c - lo);
          bad += static_cast<int>(arith::shifted_im_3m(ua, ub, uc, m)) + lo != reference(c - a - b, 0, p);
        }
      }
    EXPECT_EQ(bad, 0);
  }
}
