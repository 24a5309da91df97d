#pragma once
/// \file schemes/automatic.hpp
/// auto: not an arithmetic of its own. Each call profiles the operands' exponent range and picks the
/// fastest catalogue scheme that meets the target accuracy on them (or native arithmetic when nothing
/// fits), from a cost model measured on the GPU (select.hpp, docs/cost-model.md). Error bound: that
/// of the scheme it picks.
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

struct Automatic {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "auto";
    d.family = ImplFamily::automatic;
    d.target_per_call = true;
    d.part = PartType::fp32;
    d.parts = 1;
    d.products = 1;
    d.split = SplitRule::none;
    d.min_exp = -126;
    d.max_abs = 3.4028234663852886e38;
    d.precision_bits = 24;
    d.precision_bits_fp64 = 53;
    d.accuracy = Accuracy::full_bits;
    d.range_text = "chosen per call";
    d.error_bound = "that of the scheme picked";
    d.source = "APE adapter + ozIMMU split choice";
    d.range = RangeRule::none;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::automatic;
};

}  // namespace tcemu::schemes
