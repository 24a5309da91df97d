#pragma once
/// \file schemes/mixpert.hpp
/// int8-mixpert[:level]: MixPert (Zhang et al., "MixPert: Optimizing Mixed-Precision Floating-Point
/// Emulation on GPU Integer Tensor Cores", LCTES'24): per-tile shared exponent, 2-3 INT8 mantissa
/// segments of 7 bits, the segment products with i + j <= 3 in one fused kernel. The arithmetic
/// (packing, digits, the tile rule) is in tcemu/mixpert.hpp, shared by the host reference and the
/// CUDA kernel. Level IV (the paper's default): 3 x 3 segments, 21 significant bits at the tile's
/// maximum, the (2,2) product dropped. Any finite FP32 input (the tile exponent follows the data); a
/// tile whose line maxima lie more than 2^5 apart falls back (tcemu/mixpert.hpp).
/// Error bound: 2^-(7 min(S_A, S_B)) of the tile maximum per element + k 2^-24 |A||B|.
#include <algorithm>
#include <string>

#include "tcemu/error.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

struct Int8Mixpert {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "int8-mixpert";
    d.family = ImplFamily::tile_exponent;
    d.part = PartType::int8;
    d.parts = 3;
    d.products = 8;
    d.split = SplitRule::tile_exponent;
    d.min_exp = -149;
    d.max_abs = kInf;
    d.precision_bits = d.precision_bits_fp64 = 21;
    d.range_text = "tile lines <= 2^5 apart";
    d.error_bound = "2^-21 tile max per element + k 2^-24 |A||B|";
    d.source = "MixPert (Zhang et al., LCTES'24)";
    d.range = RangeRule::bounds;
    d.param_min = 1;
    d.param_max = 4;
    d.param_symbol = "level";
    d.param_name = "level";
    d.param_names = "<level> (1..4)";
    d.param_default = 4;
    d.fallback = "bf16x3";  // the paper falls back to half-precision emulation
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::int8_mixpert;

  /// Sets `s` (this scheme's catalogue row) to configuration `level` 1-4 (I-IV: segments of A x B =
  /// 2x2, 2x3, 3x2, 3x3; 4, 6, 6, 8 products). Throws InvalidArgument for a level outside 1..4.
  static void parameterize(Scheme& s, int level) {
    if (level < 1 || level > 4)
      throw InvalidArgument("int8-mixpert: level " + std::to_string(level) + " is outside 1..4 (I-IV)");
    static const int products[4] = {4, 6, 6, 8};
    const mixpert::Segments seg = mixpert::segments(level);
    s.level = level;
    s.parts = std::max(seg.x, seg.y);
    s.products = products[level - 1];
    s.precision_bits = 7 * std::min(seg.x, seg.y);
    if (level != desc.param_default) s.name = std::string(desc.name) + ":" + std::to_string(level);
  }
};

}  // namespace tcemu::schemes
