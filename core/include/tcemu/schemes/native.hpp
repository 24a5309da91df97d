#pragma once
/// \file schemes/native.hpp
/// Native family: fp64 and fp32, the references. No split (the part is the element itself), one
/// product, IEEE arithmetic on any input (no range rule). Error bound: the BLAS bound
/// |C - AB| <= k u |A||B| (u = 2^-53 / 2^-24; Higham, "Accuracy and Stability of Numerical
/// Algorithms", 2nd ed., section 3.5).
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

/// fp64: native FP64 (DGEMM), the reference of every accuracy measurement.
struct Fp64 {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "fp64";
    d.family = ImplFamily::native;
    d.target = Target::fp64;
    d.part = PartType::fp64;
    d.split = SplitRule::none;
    d.min_exp = -1022;
    d.max_abs = kInf;
    d.precision_bits = d.precision_bits_fp64 = 53;
    d.accuracy = Accuracy::full_bits;
    d.range_text = "FP64";
    d.error_bound = "k 2^-53 |A||B| (DGEMM)";
    d.source = "native FP64 (reference)";
    d.table.group({{0, 0}});
    d.calibrate_fp32[0] = d.calibrate_fp64[0] = 0;  // DGEMM is a candidate for both targets
    d.range = RangeRule::none;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp64;
};

/// fp32: native FP32 (SGEMM on CUDA cores / host BLAS), the baseline the emulations are measured against.
struct Fp32 {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "fp32";
    d.family = ImplFamily::native;
    d.target = Target::fp32;
    d.part = PartType::fp32;
    d.split = SplitRule::none;
    d.min_exp = -126;
    d.max_abs = kInf;
    d.precision_bits = d.precision_bits_fp64 = 24;
    d.accuracy = Accuracy::full_bits;
    d.range_text = "FP32";
    d.error_bound = "k 2^-24 |A||B| (SGEMM)";
    d.source = "native FP32";
    d.table.group({{0, 0}});
    d.calibrate_fp32[0] = 0;
    d.range = RangeRule::none;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::fp32;
};

}  // namespace tcemu::schemes
