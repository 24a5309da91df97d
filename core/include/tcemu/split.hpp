#pragma once
/// \file split.hpp
/// Element-wise split rules of every emulation scheme, dispatched by kind. Each rule lives in its
/// scheme's descriptor (tcemu/schemes/*.hpp: the split functors, and the constants such as
/// kApeLoScaleExp, AlignedSplitter, ozaki_slices); the functions here pick the functor of a kind
/// through the registry (tcemu/schemes/registry.hpp). Each maps one input element to its parts,
/// exactly as the scheme's Tensor Core kernels see them (scaled parts stay scaled; the combine step
/// undoes the scale). They are __host__ __device__, so the CUDA split kernels and the host reference
/// share one definition.
///
/// Every split takes the residual from the *rounded* higher part (x - hi is exact in FP32 for all
/// these rules), rounds RN-even where the paper says round, and RZ where it says truncate/bit-cut.
#include <cmath>
#include <cstdint>

#include "tcemu/float_bits.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/schemes/all.hpp"

namespace tcemu::split {

/// Splits x (FP32) by the rule of `kind` (its descriptor's ElementSplit); the result holds `parts`
/// values exactly representable in the scheme's part type. Native kinds return {x}. Not defined for
/// the Ozaki / auto kinds (use ozaki_slices()) and the line-aligned kinds (their grid depends on the
/// line: split_aligned()); those return {x}. Inf/NaN propagate into the parts (the range check keeps
/// them away). With a compile-time kind the switch folds to the one rule.
TCEMU_HD Parts split_element(SchemeKind kind, float x) {
  switch (kind) {
#define TCEMU_SPLIT_ELEMENT_CASE(e, D) \
  case SchemeKind::e: return D::ElementSplit{}(x);
    TCEMU_SCHEME_REGISTRY(TCEMU_SPLIT_ELEMENT_CASE)
#undef TCEMU_SPLIT_ELEMENT_CASE
  }
  return schemes::NoElementSplit{}(x);
}

/// Value the parts represent: sum of part_i * 2^(-scale_i) for the scheme's part scales
/// (fp16x2: hi + lo * 2^-12; legemm: hi + lo * 2^-10; others: plain sum), evaluated in double.
TCEMU_HD double recombine(SchemeKind kind, const Parts& s) {
  switch (kind) {
#define TCEMU_RECOMBINE_CASE(e, D) \
  case SchemeKind::e: return D::ElementSplit::recombine(s);
    TCEMU_SCHEME_REGISTRY(TCEMU_RECOMBINE_CASE)
#undef TCEMU_RECOMBINE_CASE
  }
  return schemes::PlainRecombine::recombine(s);
}

/// Scale exponent sigma of a line-aligned scheme's operand with largest |x| max_abs: schemes whose
/// range rule scales the operand (RangeRule::scaled_spread: FP16 parts) scale into the part's range
/// (aligned_scale_exp); TF32 and BF16 parts have FP32's exponent range and are not scaled (0).
TCEMU_HD int aligned_scale_exp(SchemeKind kind, double max_abs) {
  switch (kind) {
#define TCEMU_ALIGNED_SCALE_CASE(e, D)                                               \
  case SchemeKind::e: {                                                              \
    constexpr bool scaled = D::desc.range == RangeRule::scaled_spread;               \
    return scaled ? aligned_scale_exp(max_abs) : 0;                                  \
  }
    TCEMU_SCHEME_REGISTRY(TCEMU_ALIGNED_SCALE_CASE)
#undef TCEMU_ALIGNED_SCALE_CASE
  }
  return 0;
}

/// Parts of x for a line-aligned scheme (its descriptor's LineSplit), given the operand's sigma
/// (aligned_scale_exp(kind, ...)) and the line's exponent (ozaki_line_exponent of its maximum):
/// hi = u * RN-even(x 2^sigma / u), u = 2^(line_exp + sigma - b) (b: 10, 10, 7); the lower parts are
/// RN-even in the part format of the residual x 2^sigma - hi (exact in FP32) and of what the middle
/// part leaves (bf16x3-aligned). Other kinds: all parts 0.
TCEMU_HD Parts split_aligned(SchemeKind kind, float x, int sigma, int line_exp) {
  switch (kind) {
#define TCEMU_SPLIT_ALIGNED_CASE(e, D) \
  case SchemeKind::e: return D::LineSplit{}(x, sigma, line_exp);
    TCEMU_SCHEME_REGISTRY(TCEMU_SPLIT_ALIGNED_CASE)
#undef TCEMU_SPLIT_ALIGNED_CASE
  }
  return Parts{};
}

}  // namespace tcemu::split
