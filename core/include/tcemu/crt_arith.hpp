#pragma once
/// \file crt_arith.hpp
/// The element and entry operations of Ozaki scheme II (tcemu/crt.hpp) as __host__ __device__
/// inline functions, shared by the host reference (host/crt.cpp) and the CUDA path
/// (cuda/passes/crt_*.cu), so that both run the same IEEE operations and agree bit for bit
/// (docs/crt.md, "What a GPU kernel must reproduce bit for bit"). Only integer operations, exact
/// scalings, fma and rint appear here: nothing a compiler may contract or reorder.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tcemu/float_bits.hpp"

namespace tcemu::crt::arith {

/// ceil(log2 v) for v >= 1 (0 for v <= 1).
TCEMU_HD int ceil_log2_u64(std::uint64_t v) {
  if (v <= 1) return 0;
#ifdef __CUDA_ARCH__
  return 64 - __clzll(static_cast<long long>(v - 1));
#else
  return 64 - __builtin_clzll(v - 1);
#endif
}

/// floor(a / 2) for any int a.
TCEMU_HD int floor_half(int a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }

/// x 2^e, the value of std::ldexp(x, e) for every x and e. On a GPU, where ldexp is a library routine
/// of some 15-20 instructions: one product by 2^e where that is a normal double (-1022 <= e <= 1023;
/// exact, or the one correctly rounded result where it leaves the normal range, as ldexp rounds),
/// written __dmul_rn so that no compiler fuses it into a neighbouring add; ldexp itself elsewhere.
/// The host calls std::ldexp (the same value; no product there that a compiler could contract).
TCEMU_HD double ldexp_fast(double x, int e) {
#ifdef __CUDA_ARCH__
  if (e < -1022 || e > 1023) return ldexp(x, e);
  return __dmul_rn(x, __longlong_as_double(static_cast<long long>(e + 1023) << 52));
#else
  return std::ldexp(x, e);
#endif
}

/// ceil(|v| 2^s), at least 1 when v != 0 (an upper bound even where the ldexp underflows); 0 for 0.
TCEMU_HD std::uint64_t ceil_mag(double v, int s) {
  if (v == 0) return 0;
  const double t = std::ceil(ldexp_fast(std::fabs(v), s));
  const auto q = static_cast<std::uint64_t>(t);
  return q > 1 ? q : 1;
}

/// Exponent E with max |line| < 2^E for a nonzero line maximum mx > 0 (ilogb(mx) + 1).
TCEMU_HD int line_exponent_of_max(double mx) { return std::ilogb(mx) + 1; }

/// Scale exponent of an active line (both rules, docs/crt.md "Scaling"): h = floor((Lb_side - 1 - c) /
/// 2), Lb_side = floor(log2 P) + the line's split shift (split_shift: +d on one operand, -d on the other,
/// so the two cancel in every product), c = ceil(log2) of the line's bound on the grid 2^base
/// (Cauchy-Schwarz: s2 = sum_l ceil(|x_l| 2^base)^2, base = 16 - E; accurate: the line's largest
/// magnitude product, base = 6 - E), and the exponent base + h where h >= 0, base + h - 1 where h < 0.
/// The elements are rounded to nearest (scaled_integer), and each rounded element stays within what the
/// rule's bound counted: for h >= 0, |rint(2^h t)| <= ceil(2^h t) <= 2^h ceil(t) (t = |x| 2^base,
/// 2^h ceil(t) an integer); for h < 0, |rint(2^(h-1) t)| <= 2^h t (rint(v) <= 2v for v >= 0). So the
/// products' magnitudes stay below 2^(Lb-1) < P/2 entrywise.
TCEMU_HD int scale_exponent(int Lb_side, int c, int base) {
  const int h = floor_half(Lb_side - 1 - c);
  return (h >= 0 ? h : h - 1) + base;
}

/// The split of the scaling's budget between the operands (docs/crt.md "Scaling"): one operand's lines
/// get h = floor((Lb - 1 - d - c) / 2), the other's floor((Lb - 1 + d - c) / 2), so every product keeps
/// h_i + h_j <= Lb - 1 - (c_i + c_j) / 2 whatever d is. d = 1 exactly when every active line of the
/// first operand (the split's source) has Lb - 1 - c odd (c of Lb's parity): those lines then keep the
/// exponent d = 0 gives them, floor((Lb - 2 - c) / 2) = floor((Lb - 1 - c) / 2), and the other operand's
/// lines with Lb - 1 - c odd gain one, the rest keep theirs. So the split never lowers an exponent below
/// d = 0's and raises every product's scale by 2 where both operands' lines all share that parity
/// (8192^3 at phi = 0.1: c = 42 on every line). The source is the operand with fewer lines (op(A) on a
/// tie: split_source_is_a), whose rule must be whole before any exponent, so that a residue pass that
/// also computes its operand's line rule can run on the other, larger one. `odd` of the source's
/// `active` lines have an odd c.
TCEMU_HD int split_d(int Lb, std::uint64_t odd, std::uint64_t active) {
  if (active == 0) return 0;
  return (Lb & 1) != 0 ? (odd == active ? 1 : 0) : (odd == 0 ? 1 : 0);
}
/// The shift of one operand's Lb at Lb = floor(log2 P): -d for the source, +d for the other.
TCEMU_HD int split_shift(int Lb, std::uint64_t odd, std::uint64_t active, bool source) {
  const int d = split_d(Lb, odd, active);
  return source ? -d : d;
}
/// Whether op(A)'s m lines are the split's source rather than op(B)'s n lines: m <= n.
TCEMU_HD bool split_source_is_a(std::int64_t m, std::int64_t n) { return m <= n; }

/// 2^e mod p (e >= 0, p <= 256), in 32-bit arithmetic (every product below 2^16).
TCEMU_HD std::uint32_t pow2_mod(int e, std::uint32_t p) {
  std::uint32_t r = 1 % p, b = 2 % p;
  while (e > 0) {
    if (e & 1) r = r * b % p;
    b = b * b % p;
    e >>= 1;
  }
  return r;
}

/// Per-modulus constants of the FP64 reduction (sym_mod_small, residue): p, RN(1/p), 2^32 mod p.
struct ModulusF64 {
  double p = 0, inv_p = 0, two32 = 0;
};
TCEMU_HD ModulusF64 modulus_f64(int p) {
  ModulusF64 m;
  m.p = p;
  m.inv_p = 1.0 / m.p;
  m.two32 = static_cast<double>(pow2_mod(32, static_cast<std::uint32_t>(p)));
  return m;
}

/// Symmetric residue of an integer-valued double |x| < 2^53 mod p, in [-floor(p/2), floor((p-1)/2)]
/// ([-128, 127] for p = 256), as an integer-valued double. q = rint(x RN(1/p)) is within 1 of
/// x / p, so r = x - p q (one fma, exact: an integer below 2^10) lies in [-3p/2, 3p/2] and two
/// corrections each way bring it into range. Exact; FP64 operations only (a GPU's integer division
/// costs some 20 instructions, this some 8).
TCEMU_HD double sym_mod_small(double x, const ModulusF64& m) {
  const double q = std::rint(x * m.inv_p);
  double r = std::fma(-m.p, q, x);
  const double hi = std::floor((m.p - 1) * 0.5), lo = -std::floor(m.p * 0.5);
  if (r > hi) r -= m.p;
  if (r > hi) r -= m.p;
  if (r < lo) r += m.p;
  if (r < lo) r += m.p;
  return r;
}

/// 1.5 x 2^52: for |t| < 2^51, fma(a, b, kRoundMagic) - kRoundMagic is the exact a b rounded to the
/// nearest integer (ties to even) in one rounding, and x + kRoundMagic of an integer |x| < 2^31
/// holds x in its low 32 bits (two's complement).
inline constexpr double kRoundMagic = 0x1.8p52;

/// The first step of the GPU residue pass's FP64 moduli (a group of 2 to 6 odd moduli of the table,
/// product M exact in a double, M < 2^48): w = v - M q with q = rint(v RN(1/M)) (one fma-rounding),
/// for an integer-valued v with |v| < 2^51 M (the rounding constant's range) and |v| < 2^84. As |v
/// RN(1/M) - v / M| <= |v / M| 2^-53, |w| <= M / 2 + |v| 2^-53 < 2^48, an integer, so the fma's v - q
/// M is exact. w = v mod every modulus of the group.
TCEMU_HD double reduce_by_group(double v, double M, double inv_M) {
  const double q = std::fma(v, inv_M, kRoundMagic) - kRoundMagic;
  return std::fma(-q, M, v);
}

/// The symmetric residue of an integer-valued |w| < 2^48 mod an odd p <= 255 (inv_p = RN(1/p)), as
/// the low 32 bits of r + kRoundMagic: the int8 residue is its low byte, r itself the word. q =
/// rint(w inv_p) equals round(w / p) exactly: the error |w inv_p - w / p| <= |w| / p 2^-53 stays
/// below the distance 1 / (2p) from w / p to any half-integer (p odd) whenever |w| < 2^52, so r = w -
/// q p lies in [-(p - 1) / 2, (p - 1) / 2], the canonical symmetric residue (residue() of the same
/// integer).
/// Three FP64 operations and an add: the residue pass runs these on the FP64 pipe beside the integer
/// limbs on the IMAD pipe.
TCEMU_HD std::uint32_t residue_word_fp64(double w, double p, double inv_p) {
  const double q = std::fma(w, inv_p, kRoundMagic) - kRoundMagic;
  const double r = std::fma(-q, p, w) + kRoundMagic;
#ifdef __CUDA_ARCH__
  return static_cast<std::uint32_t>(__double2loint(r));
#else
  std::uint64_t u;
  std::memcpy(&u, &r, sizeof u);
  return static_cast<std::uint32_t>(u);
#endif
}

/// How the GPU residue pass splits N moduli between its pipes (cuda/passes/crt_residue.cu,
/// plan_fp64_groups): moduli [0, n_int) through the integer limbs on the IMAD pipe, then `groups`
/// FP64 groups of consecutive moduli (reduce_by_group, residue_word_fp64; group g holds moduli
/// first[g] .. first[g] + size[g] - 1). From N = 6 on about 3/5 of the moduli go to the FP64 pipe (an
/// FP64 residue costs 4 FP64 operations on a pipe of 64 per SM and clock, an integer one about 4.3
/// IMAD-class of 64 and 8.4 issue slots: the split that keeps both pipes and the issue slots nearly
/// evenly busy; docs/perf-notes.md "Session 24"), in at most kResidueFp64Groups balanced groups of at
/// most kResidueFp64GroupMax (of the table's odd moduli, the product below 2^48), leaving at most
/// kResidueIntModuliMax on the integers; below N = 6 integers only. Tested for every N
/// (CrtArith.ResiduePassSplitKeepsEveryBoundForEveryN).
inline constexpr int kResidueFp64Groups = 2;
inline constexpr int kResidueFp64GroupMax = 6;
inline constexpr int kResidueIntModuliMax = 8;
struct ResiduePassSplit {
  int n_int = 0, groups = 0;
  int first[kResidueFp64Groups] = {}, size[kResidueFp64Groups] = {};
};
TCEMU_HD ResiduePassSplit residue_pass_split(int n) {
  ResiduePassSplit s;
  s.n_int = n;
  if (n < 6) return s;
  const int cap = kResidueFp64Groups * kResidueFp64GroupMax;
  const int n_fp64 = (3 * n) / 5 < cap ? (3 * n) / 5 : cap;
  s.groups = (n_fp64 + kResidueFp64GroupMax - 1) / kResidueFp64GroupMax;
  s.n_int = n - n_fp64;
  int first = s.n_int;
  for (int g = 0; g < s.groups; ++g) {
    s.first[g] = first;
    s.size[g] = (n_fp64 - (first - s.n_int) + (s.groups - g) - 1) / (s.groups - g);  // balanced sizes
    first += s.size[g];
  }
  return s;
}

/// The split of an integer-valued double 2^53 <= |x| < 2^84 for residue_split: xh = trunc(x 2^-32)
/// and xl = x - xh 2^32 (both exact; |xh| < 2^52, |xl| < 2^32, xl of x's sign).
struct Split32 {
  double xh, xl;
};
TCEMU_HD Split32 split32(double x) {
  const double xh = std::trunc(x * 0x1p-32);
  return {xh, std::fma(-xh, 0x1p32, x)};
}

/// Symmetric residue of xh 2^32 + xl (a split32) mod p: (xh mod p)(2^32 mod p) + xl, exact in FP64
/// (|.| <= 128 * 255 + 2^32 < 2^53), reduced once more: two sym_mod_small. Exact, so it equals every
/// other exact reduction of the same integer.
TCEMU_HD double residue_split(const Split32& s, const ModulusF64& m) {
  return sym_mod_small(std::fma(sym_mod_small(s.xh, m), m.two32, s.xl), m);
}

/// Per-modulus constants of the integer reductions (residue_i64, residue_wide, sym_residue_i32): p,
/// floor(2^32 / p), 2^e mod p for e = 23, 46 (residue_limbs) and 32, 53, 74 (residue_wide), half =
/// floor(p / 2) (the symmetric range is [-half, p - 1 - half]), and the non-negative offsets off_b =
/// p ceil(2^b / p) + half (multiples of p plus the shift to the symmetric range) for b = 19, 25, 30.
struct ModulusU32 {
  std::uint32_t p = 0, magic = 0, c23 = 0, c46 = 0, half = 0, off25 = 0, off30 = 0;
  std::uint32_t c32 = 0, c53 = 0, c74 = 0, off19 = 0;
  std::uint32_t off31 = 0;  ///< ceil(2^31 / p) p + half (sym_residue_i32_k17)
  std::uint32_t neg_p = 0;  ///< 2^32 - p: mod_u32's s - q p as one multiply-add s + q neg_p
};
/// The Barrett constants alone (p, magic, half, neg_p; the limb constants and offsets zero): for
/// kernels that hold p and magic in their parameters and set the one offset they use.
TCEMU_HD ModulusU32 barrett_u32(std::uint32_t p, std::uint32_t magic) {
  ModulusU32 m;
  m.p = p;
  m.magic = magic;
  m.half = p / 2;
  m.neg_p = 0u - p;
  return m;
}

TCEMU_HD ModulusU32 modulus_u32(int p) {
  const auto pu = static_cast<std::uint32_t>(p);
  ModulusU32 m = barrett_u32(pu, static_cast<std::uint32_t>((std::uint64_t{1} << 32) / pu));
  m.c23 = pow2_mod(23, m.p);
  m.c46 = pow2_mod(46, m.p);
  m.off25 = ((std::uint32_t{1} << 25) + m.p - 1) / m.p * m.p + m.half;
  m.off30 = ((std::uint32_t{1} << 30) + m.p - 1) / m.p * m.p + m.half;
  m.c32 = pow2_mod(32, m.p);
  m.c53 = pow2_mod(53, m.p);
  m.c74 = pow2_mod(74, m.p);
  m.off19 = ((std::uint32_t{1} << 19) + m.p - 1) / m.p * m.p + m.half;
  m.off31 = static_cast<std::uint32_t>(((std::uint64_t{1} << 31) + m.p - 1) / m.p * m.p + m.half);
  return m;
}

/// Barrett's remainder of any 32-bit s before its correction, in [0, 2p): q = floor(s magic / 2^32)
/// is floor(s / p) or one less (magic <= 2^32 / p < magic + 1, s < 2^32), so r = s - q p lies in
/// [0, 2p). s - q p is computed as s + q neg_p (equal mod 2^32): one IMAD, where s - q p compiles to
/// a negation of q and an IMAD (the GPU multiply-add negates no product operand). `m` needs magic
/// and neg_p.
TCEMU_HD std::uint32_t barrett_remainder_u32(std::uint32_t s, const ModulusU32& m) {
#ifdef __CUDA_ARCH__
  const std::uint32_t q = __umulhi(s, m.magic);
#else
  const auto q = static_cast<std::uint32_t>((std::uint64_t{s} * m.magic) >> 32);
#endif
  return s + q * m.neg_p;
}

/// s mod p for any 32-bit s (Barrett): barrett_remainder_u32, then one correction, written as an
/// unsigned min (r - p wraps above r when r < p: one IMNMX on a GPU instead of a compare and a select).
TCEMU_HD std::uint32_t mod_u32(std::uint32_t s, const ModulusU32& m) {
  const std::uint32_t r = barrett_remainder_u32(s, m);
  const std::uint32_t d = r - m.p;
  return d < r ? d : r;
}

/// A signed 64-bit integer as three limbs, v = a2 2^46 + a1 2^23 + a0 with a0, a1 in [0, 2^23) and
/// the top limb signed, a2 = v >> 46 (arithmetic shift) in [-2^17, 2^17): two's complement makes the
/// identity exact for every v, so no sign branch is needed per modulus.
struct Limbs23 {
  std::uint32_t a0, a1;
  std::int32_t a2;
};
TCEMU_HD Limbs23 limbs23(std::int64_t v) {
  return {static_cast<std::uint32_t>(v & 0x7FFFFF), static_cast<std::uint32_t>((v >> 23) & 0x7FFFFF),
          static_cast<std::int32_t>(v >> 46)};
}

/// Symmetric residue of the limbs' integer v (any int64) mod p, integers only and no sign branch:
/// t = a2 (2^46 mod p) + a1 (2^23 mod p) + a0 + off25 (true value in [off25 - 2^25, 2^31.1): the
/// 32-bit arithmetic wraps nowhere that matters: the result is exact mod 2^32 and lies in [0, 2^32)),
/// t = v + half mod p, so mod_u32(t) - half is the symmetric residue. The GPU residue pass splits
/// each element once and reduces it for every modulus with this (two IMAD, an add, Barrett).
TCEMU_HD int residue_limbs(const Limbs23& a, const ModulusU32& m) {
  std::uint32_t t = static_cast<std::uint32_t>(a.a2) * m.c46 + m.off25;
  t = a.a1 * m.c23 + t + a.a0;
  return static_cast<int>(mod_u32(t, m)) - static_cast<int>(m.half);
}

/// Symmetric residue of any signed 64-bit integer v mod p (residue_limbs(limbs23(v))); equal to
/// residue(double(v)) wherever that double is exact.
TCEMU_HD int residue_i64(std::int64_t v, const ModulusU32& m) { return residue_limbs(limbs23(v), m); }

/// An integer-valued double |x| < 2^84 as five integer limbs: x = H 2^32 + L (split32: H =
/// trunc(x 2^-32), |H| < 2^52, L = x - H 2^32 exact, |L| < 2^32), H = b0 + b1 2^21 + b2 2^42 (b0, b1 in
/// [0, 2^21), b2 = H >> 42 in [-2^10, 2^10)), L = l0 + l1 2^23 (l0 in [0, 2^23), l1 = L >> 23 in
/// [-2^9, 2^9)): x = b0 2^32 + b1 2^53 + b2 2^74 + l1 2^23 + l0, two's complement again.
struct WideLimbs {
  std::uint32_t b0, b1, l0;
  std::int32_t b2, l1;
};
TCEMU_HD WideLimbs wide_limbs(double x) {
  const Split32 sp = split32(x);
  const auto H = static_cast<std::int64_t>(sp.xh);
  const auto L = static_cast<std::int64_t>(sp.xl);
  return {static_cast<std::uint32_t>(H & 0x1FFFFF), static_cast<std::uint32_t>((H >> 21) & 0x1FFFFF),
          static_cast<std::uint32_t>(L & 0x7FFFFF), static_cast<std::int32_t>(H >> 42),
          static_cast<std::int32_t>(L >> 23)};
}

/// Symmetric residue of the WideLimbs' integer mod p in 32-bit integers: t = b0 c32 + b1 c53 + b2 c74
/// + l1 c23 + l0 + off19 (each product below 2^29 in magnitude, the signed ones above -2^19, so t lies
/// in [0, 2^31) and no 32-bit operation loses a bit), Barrett, minus half. Exact: equals residue(x).
/// The GPU residue pass takes it for scaled integers from 2^63 to 2^84 (N >= 17 on lines with few
/// large elements), where residue() needs two FP64 reductions with their conversions, and for every
/// lane of a warp where one lane needs it (smaller values too).
TCEMU_HD int residue_wide(const WideLimbs& a, const ModulusU32& m) {
  std::uint32_t t = static_cast<std::uint32_t>(a.b2) * m.c74 + m.off19;
  t = static_cast<std::uint32_t>(a.l1) * m.c23 + t;
  t = a.b0 * m.c32 + t;
  t = a.b1 * m.c53 + t + a.l0;
  return static_cast<int>(mod_u32(t, m)) - static_cast<int>(m.half);
}

/// r in [0, p) with r = v + half mod p, for |v| <= 2^30 (one INT32 product of a GPU k chunk of at
/// most 2^16 INT8 x INT8 terms): mod_u32(v + off30), t in [half, 2^31 + 2^9). The symmetric residue
/// is r - half (sym_residue_i32).
TCEMU_HD std::uint32_t shifted_residue_i32(std::int32_t v, const ModulusU32& m) {
  return mod_u32(static_cast<std::uint32_t>(v) + m.off30, m);
}

/// Symmetric residue of |v| <= 2^30 mod p in integers (the reconstruction's reduction of one INT32
/// product); equal to sym_mod_small(double(v)).
TCEMU_HD int sym_residue_i32(std::int32_t v, const ModulusU32& m) {
  return static_cast<int>(shifted_residue_i32(v, m)) - static_cast<int>(m.half);
}

/// Symmetric residue of |v| <= 2^31 - 2^14 mod p (one INT32 product of k < 2^17 INT8 x INT8 terms,
/// the INT8 wgmma kernel's epilogue): t = v + off31 lies in [2^14, 2^32) and is congruent to v + half,
/// so mod_u32(t) - half (one IMAD.HI, an IMAD, an add and a min). Equal to sym_residue_i32 where both
/// apply.
TCEMU_HD int sym_residue_i32_k17(std::int32_t v, const ModulusU32& m) {
  return static_cast<int>(mod_u32(static_cast<std::uint32_t>(v) + m.off31, m)) - static_cast<int>(m.half);
}

/// Symmetric residue of a + b mod p for two symmetric residues a, b in [-half, p - 1 - half]
/// (complex int8-crt's residue of Re x + Im x, 3M in the residue domain): t = a + b + half + p lies in
/// [p - half, 2p + half) (never negative), so mod_u32(t) - half. Exact.
TCEMU_HD int sym_add_residues(int a, int b, const ModulusU32& m) {
  return static_cast<int>(mod_u32(static_cast<std::uint32_t>(a + b + static_cast<int>(m.half + m.p)), m)) -
         static_cast<int>(m.half);
}

/// Complex int8-crt's 3M in the residue domain (Gauss: Re = P1 - P2, Im = P3 - P1 - P2 with P1 =
/// xr.yr, P2 = xi.yi, P3 = (xr + xi).(yr + yi), all mod p). Inputs and outputs are shifted residues
/// u = r + half in [0, p) (the reconstruction's form); the results are those of Re and Im. Exact.
TCEMU_HD std::uint32_t shifted_re_3m(std::uint32_t u1, std::uint32_t u2, const ModulusU32& m) {
  return mod_u32(u1 + m.half + m.p - u2, m);  // (r1 - r2) + half, in [half + 1, half + 2p)
}
TCEMU_HD std::uint32_t shifted_im_3m(std::uint32_t u1, std::uint32_t u2, std::uint32_t u3, const ModulusU32& m) {
  return mod_u32(u3 + 2 * (m.half + m.p) - u1 - u2, m);  // (r3 - r1 - r2) + half, in [2 half + 2, 2 half + 3p)
}

/// Complex 3M's reduction of two entries at once, one per 16-bit lane (the GPU's 3M reconstruction is
/// issue-bound: docs/perf-notes.md, "Session 30"). The constants of modulus m, each value in both
/// lanes: half + p, half + 2p + 128, 2^16 - p and 2^16 - 2p.
struct Lanes3m {
  std::uint32_t re_c2 = 0, im_c2 = 0, neg_p2 = 0, neg_2p2 = 0;
};
TCEMU_HD Lanes3m lanes_3m(const ModulusU32& m) {
  return {(m.half + m.p) * 0x10001u, (m.half + 2 * m.p + 128) * 0x10001u, (0x10000u - m.p) * 0x10001u,
          (0x10000u - 2 * m.p) * 0x10001u};
}

/// Per 16-bit lane, min((t + neg) mod 2^16, t): with neg = 2^16 - q in the lane, t - q where t >= q,
/// else t (the wrapped difference exceeds t). One instruction on compute 9.0 (__viaddmin_u16x2).
TCEMU_HD std::uint32_t lanes_sub_where_above(std::uint32_t t, std::uint32_t neg) {
#ifdef __CUDA_ARCH__
  return __viaddmin_u16x2(t, neg, t);
#else
  std::uint32_t r = 0;
  for (int s = 0; s < 32; s += 16) {
    const std::uint32_t a = (t >> s) & 0xFFFFu, d = (a + ((neg >> s) & 0xFFFFu)) & 0xFFFFu;
    r |= (d < a ? d : a) << s;
  }
  return r;
#endif
}

/// The constants of sym_residue_bytes4_k17 for modulus m, each value in both 16-bit lanes: 2^16 - p
/// and 2^8 - half.
struct ResidueBytesLanes {
  std::uint32_t neg_p2 = 0, shift2 = 0;
};
TCEMU_HD ResidueBytesLanes residue_bytes_lanes(const ModulusU32& m) {
  return {(0x10000u - m.p) * 0x10001u, (0x100u - m.half) * 0x10001u};
}

/// sym_residue_i32_k17 of four INT32 products v[0..3], as the low bytes of one word (entry e in byte
/// e), the int8 residues the INT8 wgmma kernel stores. Per entry the Barrett remainder r of v + off31,
/// in [0, 2p) (barrett_remainder_u32); then two entries per word, one per 16-bit lane: p subtracted where r
/// >= p (lanes_sub_where_above) leaves c = (v + half) mod p in [0, p), adding 2^8 - half to both
/// lanes at once gives c + 2^8 - half < 2^9 (no carry between lanes), whose low byte is (c - half) mod
/// 2^8, the symmetric residue's byte. 4.75 instructions per residue on compute 9.0 where the
/// one-entry form takes 5.75 (docs/perf-notes.md, "Session 31"). `m` needs magic, off31 and neg_p.
TCEMU_HD std::uint32_t sym_residue_bytes4_k17(const std::int32_t (&v)[4], const ModulusU32& m,
                                              const ResidueBytesLanes& c) {
  std::uint32_t r[4];
  for (int e = 0; e < 4; ++e) r[e] = barrett_remainder_u32(static_cast<std::uint32_t>(v[e]) + m.off31, m);
#ifdef __CUDA_ARCH__
  const std::uint32_t lo = lanes_sub_where_above(__byte_perm(r[0], r[1], 0x5410), c.neg_p2) + c.shift2;
  const std::uint32_t hi = lanes_sub_where_above(__byte_perm(r[2], r[3], 0x5410), c.neg_p2) + c.shift2;
  return __byte_perm(lo, hi, 0x6420);
#else
  const std::uint32_t lo = lanes_sub_where_above(r[0] | r[1] << 16, c.neg_p2) + c.shift2;
  const std::uint32_t hi = lanes_sub_where_above(r[2] | r[3] << 16, c.neg_p2) + c.shift2;
  return (lo & 0xFFu) | ((lo >> 16) & 0xFFu) << 8 | (hi & 0xFFu) << 16 | ((hi >> 16) & 0xFFu) << 24;
#endif
}

/// shifted_re_3m and shifted_im_3m of two entries at once, one per 16-bit lane. a1, a2, a3 hold r +
/// 128 of P1, P2, P3's symmetric residues r in each lane (a stored residue byte XOR 0x80,
/// zero-extended). Since u = r + half = a - (128 - half), Re's t = u1 + half + p - u2 = a1 + (half +
/// p) - a2 lies in [half + 1, half + 2p) and Im's t = u3 + 2 (half + p) - u1 - u2 = a3 + (half + 2p +
/// 128) - a1 - a2 in [2 half + 2, 2 half + 3p): below 4p <= 1024 and never negative in either lane,
/// so one 32-bit add computes both lanes, and subtracting 2p, then p, where t is at least that
/// (lanes_sub_where_above) leaves t mod p: the values of shifted_re_3m and shifted_im_3m.
TCEMU_HD void shifted_3m_lanes(std::uint32_t a1, std::uint32_t a2, std::uint32_t a3, const Lanes3m& c,
                               std::uint32_t& re, std::uint32_t& im) {
  re = lanes_sub_where_above(lanes_sub_where_above(a1 + c.re_c2 - a2, c.neg_2p2), c.neg_p2);
  im = lanes_sub_where_above(lanes_sub_where_above(a3 + c.im_c2 - a1 - a2, c.neg_2p2), c.neg_p2);
}

/// Symmetric residue of the integer-valued double x (|x| < 2^1024) mod p (2 <= p <= 256): r = x mod
/// p with -p/2 <= r < p/2, i.e. in [-128, 127]. Exact. |x| < 2^53: sym_mod_small; |x| < 2^84:
/// residue_split(split32(x)); beyond: x = M 2^E reduced in 32-bit integers as (M mod p)(2^E mod p).
/// Every branch computes the unique symmetric residue, so callers may pick a branch per element
/// (the GPU residue pass hoists split32 out of its modulus loop) without changing a bit.
TCEMU_HD int residue(double x, const ModulusF64& m) {
  const double ax = std::fabs(x);
  if (ax < 0x1p53) return static_cast<int>(sym_mod_small(x, m));
  if (ax < 0x1p84) return static_cast<int>(residue_split(split32(x), m));
  const auto up = static_cast<std::uint32_t>(m.p);
  int e;
  const double f = std::frexp(ax, &e);
  const auto M = static_cast<std::uint64_t>(std::ldexp(f, 53));
  const auto hi = static_cast<std::uint32_t>(M >> 32), lo = static_cast<std::uint32_t>(M);
  const std::uint32_t mm = ((hi % up) * pow2_mod(32, up) + lo % up) % up;
  std::uint32_t r = mm * pow2_mod(e - 53, up) % up;
  if (x < 0) r = (up - r) % up;
  int s = static_cast<int>(r);
  if (s > (static_cast<int>(up) - 1) / 2) s -= static_cast<int>(up);
  return s;
}

/// residue(x, modulus_f64(p)).
TCEMU_HD int residue(double x, int p) { return residue(x, modulus_f64(p)); }

/// rint(x 2^e), ties to even: the scaled integer of one element (exact; |rint(x 2^e) - x 2^e| <= 1/2).
/// Rounding to nearest rather than toward zero halves the largest scaling error and takes the bias
/// out of it (docs/crt.md, "The bound").
TCEMU_HD double scaled_integer(double x, int e) { return std::rint(ldexp_fast(x, e)); }

/// Reduces a sum of INT32 chunk products mod p: rs_in in [0, p), v one chunk's INT32 sum; returns
/// (rs_in + v mod p) mod p in [0, p).
TCEMU_HD int add_chunk_mod(int rs_in, std::int32_t v, int p) {
  int r = v % p;
  if (r < 0) r += p;
  return (rs_in + r) % p;
}

/// [0, p) -> the symmetric residue in [-(p-1)/2 .. p/2 - 1] ([-128, 127] for p = 256).
TCEMU_HD int symmetric(int r, int p) { return r > (p - 1) / 2 ? r - p : r; }

/// Two magnitude levels of one element for crt::certify_int8: with |v| < 2^E (E the line's
/// line_exponent_of_max), t = floor(|v| 2^(14-E)) in [0, 2^14), hi = floor(t / 2^7) =
/// floor(|v| 2^(7-E)) and lo = t - 2^7 hi, both in [0, 127] (INT8 operands). 2^(E-14) (2^7 hi + lo)
/// <= |v| (a lower bound; the scaling by 2^(14-E) is exact or, where it underflows, below 1, which
/// floors to 0). Exact integer results, the same on host and GPU.
TCEMU_HD void magnitude_levels(double v, int E, int& hi, int& lo) {
  const int t = static_cast<int>(std::floor(ldexp_fast(std::fabs(v), 14 - E)));
  hi = t >> 7;
  lo = t - (hi << 7);
}

/// Upper bound of a line's 1-norm for crt::certify_int8: s1 2^(E-16) with s1 = sum_l
/// ceil_mag(v_l, 16 - E) (exact in uint64 and order independent, so host and GPU agree; s1 < 2^53
/// for k < 2^37, so the double is exact).
TCEMU_HD double norm1_bound(std::uint64_t s1, int E) { return ldexp_fast(static_cast<double>(s1), E - 16); }

/// The right-hand side tol LB_ij of crt::certify_int8, LB_ij = 2^(exy-28) G_ij with G_ij = 2^14 hh +
/// 2^7 cross (hh = hx . hy, cross = hx . ly + lx . hy, exact integers, exy = Ex_i + Ey_j), each of the
/// two roundings (ldexp where it leaves the normal range, the product by tol) pushed down by
/// (1 - 2^-50). Rigorous while tol LB stays above 2^-1022 / 2^-50; deeper in the subnormal range a
/// rounding may go up by more than the factor (the underflow corner that docs/crt.md leaves open for
/// both certificates).
TCEMU_HD double int8_certificate_rhs(std::int64_t hh, std::int64_t cross, int exy, double tol) {
  const double G = static_cast<double>(hh * 16384 + cross * 128);
  return tol * (ldexp_fast(G, exy - 28) * (1 - 0x1p-50)) * (1 - 0x1p-50);
}

/// The part of one entry's bound that is not scaled by the operands (crt::certify): recon_error(N) + k/4
/// (the rounding errors' cross terms, |da db| <= 1/4 per product term), rounded up.
TCEMU_HD double entry_fixed_error(double recon_error, std::int64_t k) {
  return (recon_error + 0.25 * static_cast<double>(k)) * (1 + 0x1p-52);
}

/// The certified bound of one entry at N moduli (crt::certify): (2^-ea Z / 2 + 2^-eb W / 2 +
/// 2^-(ea+eb) fixed) (1 + 2^-50), Z and W already rounded up, fixed = entry_fixed_error(recon_error, k)
/// (docs/crt.md, "The bound").
TCEMU_HD double entry_bound(double Z, double W, int ea, int eb, double fixed) {
  return (ldexp_fast(Z, -ea - 1) + ldexp_fast(W, -eb - 1) + ldexp_fast(fixed, -(ea + eb))) * (1 + 0x1p-50);
}

/// The reconstruction's last step from the two chains' sums sx = sum_l w_hi[l] r_l and sy = sum_l
/// w_lo[l] r_l (each in l ascending, fma): q = rint(sx / P) through inv_P, then C' = (sx - q P_hi -
/// q P_lo) + sy, the order of crt::reconstruct. The GPU kernels run the chains their own way and
/// finish here.
TCEMU_HD double reconstruct_from_sums(double sx, double sy, double P_hi, double P_lo, double inv_P) {
  const double q = std::rint(sx * inv_P);
  return std::fma(-P_lo, q, std::fma(-P_hi, q, sx)) + sy;
}

/// The reconstruction of one entry from its N residues r[l * stride] in the fixed order of
/// crt::reconstruct (the constants of crt::Constants, passed by pointer so that device code can
/// hand in its own copy).
template <class Residue>
TCEMU_HD double reconstruct(const Residue* r, std::int64_t stride, int n, const double* w_hi, const double* w_lo,
                            double P_hi, double P_lo, double inv_P) {
  double sx = 0, sy = 0;
  for (int l = 0; l < n; ++l) sx = std::fma(w_hi[l], static_cast<double>(r[l * stride]), sx);
  for (int l = 0; l < n; ++l) sy = std::fma(w_lo[l], static_cast<double>(r[l * stride]), sy);
  return reconstruct_from_sums(sx, sy, P_hi, P_lo, inv_P);
}

}  // namespace tcemu::crt::arith
