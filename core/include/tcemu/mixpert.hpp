#pragma once
/// \file mixpert.hpp
/// int8-mixpert (MixPert, Zhang et al., LCTES'24; shared/seeds/notes/001_MixPert.md): FP32 GEMM on
/// INT8 Tensor Cores with a shared exponent per tile. The arithmetic here is __host__ __device__, so
/// the host reference (core/src/host/mixpert.cpp) and the CUDA kernel compute bit-identical results.
///
/// Tiles: every operand is seen as lines x k (rows of op(A), columns of op(B)) and cut into tiles of
/// kTileLines = 8 lines x kTileK = 32 elements of k. The paper uses 16 x 32 tiles of A and 32 x 8 of B
/// (the m16n8k32 MMA shape); 8-line tiles on both sides are at least as fine and make the result
/// independent of which operand the kernel treats as rows (C row- or column-major).
///
/// Packing (notes eq. 2, RN at the last kept bit): with E = floor(log2 max|x|) over the tile and S
/// segments (2 or 3), r = RN-even(x * 2^(7S - 1 - E)) is an integer with |r| < 2^(7S) (E is raised
/// by one when the tile's maximum rounds up to 2^(7S)); |r| is cut into S base-128 digits, most
/// significant first, each carrying the sign of x (so |digit| <= 127, never -128). Then
///   x ~= 2^(E - 6) * sum_i digit_i * 2^(-7 i),   7S significant bits at the tile's maximum.
/// Levels (notes section 1.5): I = 2 x 2 segments (A x B), II = 2 x 3, III = 3 x 2, IV = 3 x 3; every
/// segment product with i + j <= 3 is kept (IV drops (2,2), as the paper does): 4, 6, 6, 8 products.
///
/// Products (notes section 1.6): per pair of tiles (one of x, one of y, the same 32 k) the segment
/// dot products are exact INT32 sums, grouped by d = i + j (T_d < 2^21); two exact INT32 chains
/// hi = 2^7 T_0 + T_1 and lo = 2^7 T_2 + T_3 give the step value v = hi + 2^-14 lo (one FMA), and
/// v * 2^(E_x + E_y - 19) is added to the FP32 accumulator with one FMA per step, k ascending
/// (MixPert's FP32 "Tmp" accumulation).
///
/// Range: any finite input. A tile whose nonzero line maxima lie more than 2^kMaxTileSpreadBits apart
/// leaves its smaller lines too few bits (the paper's "max/min <= 32" rule, read per line maximum:
/// per element it would reject plain uniform data). The rule reads full k-blocks only: in a tail
/// block of a few elements per line the line maxima are single draws, and a line that is small there
/// is not small in its dot product. Operands with such tiles, and non-finite ones, fall back to
/// bf16x3 (the paper switches to half-precision emulation) under RangePolicy::fallback.
#include <cmath>
#include <cstdint>
#include <string>

#include "tcemu/float_bits.hpp"

namespace tcemu::mixpert {

inline constexpr int kTileLines = 8;        ///< lines per tile (rows of op(A) / columns of op(B))
inline constexpr int kTileK = 32;           ///< elements of k per tile (one INT8 MMA step)
inline constexpr int kDigitBits = 7;        ///< bits per segment (|digit| <= 127)
inline constexpr int kMaxTileSpreadBits = 5;  ///< allowed exponent gap between a tile's line maxima
inline constexpr int kZeroTileExp = -127;   ///< exponent stored for an all-zero tile (digits all 0)
inline constexpr int kMaxGroups = 4;        ///< d = i + j in 0..3 (3 at level I)

/// Segments of the x (rows) and y (columns) operand at `level` 1..4; `swapped` exchanges them (the
/// caller multiplies op(B)^T by op(A)^T).
struct Segments {
  int x, y;
};
TCEMU_HD Segments segments(int level, bool swapped = false) {
  const int a = level <= 2 ? 2 : 3;
  const int b = (level == 2 || level == 4) ? 3 : 2;
  return swapped ? Segments{b, a} : Segments{a, b};
}

/// True when the product of segment i (x) and segment j (y) is computed.
TCEMU_HD bool kept(int i, int j) { return i + j <= 3; }

/// Number of d = i + j groups at segment counts (sx, sy).
TCEMU_HD int groups(int sx, int sy) { return (sx + sy - 2 < 3 ? sx + sy - 2 : 3) + 1; }

/// Tile exponent E for a tile of largest |x| = max_abs (finite) packed with `segs` segments:
/// floor(log2 max_abs), plus one when RN to 7*segs bits carries the maximum to 2^(7*segs).
TCEMU_HD int tile_exponent(double max_abs, int segs) {
  if (!(max_abs > 0)) return kZeroTileExp;
  int e2 = 0;
  (void)std::frexp(max_abs, &e2);  // max_abs = f * 2^e2, f in [0.5, 1)
  int e = e2 - 1;
  const double r = std::rint(std::ldexp(max_abs, kDigitBits * segs - 1 - e));
  if (r >= std::ldexp(1.0, kDigitBits * segs)) ++e;
  return e;
}

/// Segment digits of x in a tile of exponent E: out[i * stride] = digit i (i < segs), see the file
/// comment. Exact: power-of-two scaling and rint in FP64, then integer digit extraction.
template <class Int8>
TCEMU_HD void digits(float x, int e, int segs, Int8* out, std::int64_t stride) {
  const double r = std::rint(std::ldexp(static_cast<double>(x), kDigitBits * segs - 1 - e));
  const bool neg = r < 0;
  const std::int32_t mag = static_cast<std::int32_t>(neg ? -r : r);
  for (int i = 0; i < segs; ++i) {
    const std::int32_t d = (mag >> (kDigitBits * (segs - 1 - i))) & 127;
    out[i * stride] = static_cast<Int8>(neg ? -d : d);
  }
}

/// The two INT32 chains of one step: hi = 2^7 T_0 + T_1 and lo = 2^7 T_2 + T_3 (exact: |hi| < 2^27,
/// |lo| < 2^29). The kernel builds them inside the Tensor Cores (the group's first products, a shift
/// by 7 bits, then the next group's products on the same accumulator).
struct Chains {
  std::int32_t hi = 0, lo = 0;
};
TCEMU_HD Chains chains(const std::int32_t (&t)[kMaxGroups]) {
  return Chains{t[0] * 128 + t[1], t[2] * 128 + t[3]};
}

/// FP32 value of one step, v = hi + 2^-14 lo (two conversions and one FMA); the step's product is
/// v * 2^(E_x + E_y - 19) (step_scale).
TCEMU_HD float step_value(Chains c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(static_cast<float>(c.lo), 0x1p-14f, static_cast<float>(c.hi));
#else
  return std::fma(static_cast<float>(c.lo), 0x1p-14f, static_cast<float>(c.hi));
#endif
}

/// 2^(ex + ey - 19) as FP32 (0 below the subnormal range, Inf above FP32's): the digits carry
/// 2^(E - 6) each and hi carries 2^7.
TCEMU_HD float step_scale(int ex, int ey) {
  const int e = ex + ey - 19;
  if (e >= -126 && e <= 127) return bits::u2f(static_cast<std::uint32_t>(e + 127) << 23);
#if defined(__CUDA_ARCH__)
  return ldexpf(1.f, e);
#else
  return std::ldexp(1.f, e);
#endif
}

/// acc + v * scale with one rounding; a zero step leaves acc unchanged (so an all-zero tile pair
/// never meets an infinite scale).
TCEMU_HD float accumulate(float acc, float v, float scale) {
  if (v == 0.f) return acc;
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(v, scale, acc);
#else
  return std::fma(v, scale, acc);
#endif
}

/// Per-operand packing outcome: tiles whose line maxima violate the spread rule, non-finite values.
struct PackCheck {
  std::int64_t wide_tiles = 0;  ///< tiles with nonzero line maxima more than 2^kMaxTileSpreadBits apart
  std::int64_t tiles = 0;       ///< tiles in the operand
  std::int64_t nonfinite = 0;   ///< Inf / NaN elements
};

/// "" when `c` is inside int8-mixpert's range, else why not (one line, for GemmReport::note).
inline std::string violation(const PackCheck& c) {
  if (c.nonfinite > 0)
    return std::to_string(c.nonfinite) + " non-finite value(s) (Inf/NaN); only native arithmetic propagates them";
  if (c.wide_tiles > 0)
    return std::to_string(c.wide_tiles) + " of " + std::to_string(c.tiles) + " tiles (8 lines x 32 k) have line " +
           "maxima more than 2^" + std::to_string(kMaxTileSpreadBits) +
           " apart, so their smaller lines keep too few bits under one shared exponent";
  return "";
}

}  // namespace tcemu::mixpert
