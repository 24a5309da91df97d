#pragma once
/// \file select.hpp
/// Automatic split selection (`auto`, DESIGN.md section 4): candidates whose range and accuracy meet
/// the target, timed by a cost model, fastest one chosen, decision explainable.
#include <cstdint>
#include <string>
#include <vector>

#include "tcemu/range_profile.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu {

/// Throughput model of one device: product rates per part type and memory bandwidth.
/// predict_seconds() = sum over products of 2mnk / rate(part) + bytes moved by split/combine / bandwidth.
struct CostModel {
  std::string device;          ///< e.g. "host (CBLAS)", "NVIDIA H200 (DESIGN.md anchors)"
  double tflops_fp64 = 0;      ///< native DGEMM rate
  double tflops_fp32 = 0;      ///< native SGEMM rate
  double tflops_tf32 = 0;      ///< rate of one TF32 product
  double tflops_bf16 = 0;
  double tflops_fp16 = 0;
  double tops_int8 = 0;
  double bandwidth_gbs = 0;    ///< device memory bandwidth for split/combine passes

  /// Host backend: every part product is an SGEMM (or DGEMM), so emulation never beats native there.
  static CostModel host();
  /// cuBLAS rates measured on an H200 at 8192^3 (DESIGN.md section 7), for the multi-pass CUDA backend.
  static CostModel h200_anchors();

  /// Predicted time in seconds of `scheme` (Ozaki: with its slice count) for an m x n x k product.
  double predict_seconds(const Scheme& scheme, std::int64_t m, std::int64_t n, std::int64_t k) const;
};

/// Ozaki slice count that meets `target` for these operands: bits = target bits (24 or 53) + 1 (the
/// power-of-two scale sits one bit above the line maximum) + the largest line spread of A or B + 2
/// bits of margin, s = ceil(bits / 7). This is the normwise version of ozIMMU's mantissa-loss rule.
/// Returns 0 when more than 18 slices would be needed (no Ozaki candidate).
int ozaki_slices_for(Target target, const RangeProfile& a, const RangeProfile& b);

/// One scheme considered by `auto`.
struct Candidate {
  Scheme scheme;
  bool eligible = false;          ///< range and accuracy both meet the target
  double predicted_seconds = 0;
  double predicted_error = 0;     ///< 2^-precision_bits of the scheme (normwise, per element)
  std::string reason;             ///< why not eligible, or "" when eligible
};

/// What `auto` decided for one call.
struct Plan {
  Scheme chosen;
  Target target = Target::fp32;
  RangeProfile profile_a, profile_b;
  std::vector<Candidate> candidates;
  std::string device;

  /// Multi-line text for `--explain`: profiles, candidates (time, error, reason), pick.
  std::string explain() const;
};

/// What `auto` would do for op(A) (profile a, m x k) times op(B) (profile b, k x n), without running.
/// Candidates: native fp32/fp64 and every scheme that meets(target); the fastest eligible one wins
/// (native always is eligible for its own target, so there is always a choice; an fp32 target with
/// non-finite inputs picks native fp32).
Plan plan(const RangeProfile& a, const RangeProfile& b, std::int64_t m, std::int64_t n, std::int64_t k,
          Target target, const CostModel& model);

}  // namespace tcemu
