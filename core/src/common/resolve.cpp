// Scheme resolution shared by the backends: auto, Ozaki slice count, range check and fallback.
#include <string>

#include "tcemu/gemm.hpp"

namespace tcemu {

void check_gemm_shapes(std::int64_t a_rows, std::int64_t a_cols, std::int64_t b_rows,
                       std::int64_t b_cols, std::int64_t c_rows, std::int64_t c_cols) {
  auto dims = [](std::int64_t r, std::int64_t c) {
    return std::to_string(r) + " x " + std::to_string(c);
  };
  if (a_cols != b_rows || a_rows != c_rows || b_cols != c_cols)
    throw InvalidArgument("gemm: shapes do not agree: op(A) is " + dims(a_rows, a_cols) +
                          ", op(B) is " + dims(b_rows, b_cols) + ", C is " + dims(c_rows, c_cols) +
                          "; need op(A) m x k, op(B) k x n, C m x n");
  if (a_rows < 0 || a_cols < 0 || b_cols < 0)
    throw InvalidArgument("gemm: negative extent in op(A) " + dims(a_rows, a_cols) + " or op(B) " +
                          dims(b_rows, b_cols));
}

Scheme resolve_scheme(const GemmOptions& options, const RangeProfile& a, const RangeProfile& b,
                      std::int64_t m, std::int64_t n, std::int64_t k, const CostModel& backend_model,
                      GemmReport& report) {
  report.requested = options.scheme;
  Scheme s = options.scheme;
  if (s.is_automatic()) {
    report.plan = plan(a, b, m, n, k, s.target, options.cost_model ? *options.cost_model : backend_model);
    s = report.plan.chosen;
  }
  auto fall_back = [&](const std::string& why) {
    if (options.range_policy == RangePolicy::error)
      throw InvalidArgument("gemm with scheme " + s.name + ": " + why);
    report.fell_back = true;
    report.note = s.name + " -> native " + to_string(s.target) + ": " + why;
    s = parse_scheme(to_string(s.target));
  };
  if (s.family() == ImplFamily::int_slices && s.parts == 0) {  // slice count chosen per call
    const int slices = ozaki_slices_for(s.target, a, b);
    if (slices == 0) {
      if (options.range_policy == RangePolicy::ignore) s = ozaki_scheme(18, s.target);
      else fall_back("operands need more than 18 slices (or hold Inf/NaN)");
    } else {
      s = ozaki_scheme(slices, s.target);
    }
  }
  if (options.range_policy != RangePolicy::ignore) {
    const std::string va = range_violation(s, a);
    const std::string vb = range_violation(s, b);
    if (!va.empty()) fall_back("operand A (" + std::to_string(m) + " x " + std::to_string(k) + "): " + va);
    else if (!vb.empty())
      fall_back("operand B (" + std::to_string(k) + " x " + std::to_string(n) + "): " + vb);
  }
  report.used = s;
  return s;
}

}  // namespace tcemu

namespace tcemu::detail {

std::string mixpert_violation(const mixpert::PackCheck& a, const mixpert::PackCheck& b, std::int64_t m,
                              std::int64_t n, std::int64_t k) {
  std::string why = mixpert::violation(a);
  if (!why.empty()) return "operand A (" + std::to_string(m) + " x " + std::to_string(k) + "): " + why;
  why = mixpert::violation(b);
  if (!why.empty()) return "operand B (" + std::to_string(k) + " x " + std::to_string(n) + "): " + why;
  return "";
}

}  // namespace tcemu::detail

namespace tcemu {

CudaKernels parse_cuda_kernels(const std::string& name) {
  if (name == "auto" || name == "automatic") return CudaKernels::automatic;
  if (name == "fused") return CudaKernels::fused;
  if (name == "multipass" || name == "multi-pass") return CudaKernels::multipass;
  throw InvalidArgument("unknown CUDA kernel choice '" + name + "' (expected auto, fused or multipass)");
}

const char* to_string(CudaKernels k) {
  switch (k) {
    case CudaKernels::automatic: return "auto";
    case CudaKernels::fused: return "fused";
    case CudaKernels::multipass: return "multipass";
  }
  return "?";
}

FusedMma parse_fused_mma(const std::string& name) {
  if (name.empty() || name == "auto" || name == "wgmma") return FusedMma::automatic;
  if (name == "mma.sync") return FusedMma::mma_sync;
  throw InvalidArgument("unknown fused MMA choice '" + name + "' (expected wgmma or mma.sync)");
}

CrtProducts parse_crt_products(const std::string& name) {
  if (name.empty() || name == "auto" || name == "wgmma") return CrtProducts::automatic;
  if (name == "wgmma-int32") return CrtProducts::wgmma_int32;
  if (name == "cublas") return CrtProducts::cublas;
  throw InvalidArgument("unknown int8-crt products choice '" + name +
                        "' (expected wgmma, wgmma-int32, cublas or auto)");
}

ComplexMethod parse_complex_method(const std::string& name) {
  if (name.empty() || name == "auto") return ComplexMethod::automatic;
  if (name == "4m" || name == "4M") return ComplexMethod::four_m;
  if (name == "embed") return ComplexMethod::embed;
  if (name == "3m" || name == "3M") return ComplexMethod::three_m;
  throw InvalidArgument("unknown complex method '" + name + "' (expected 4m, 3m, embed or auto)");
}

CalibrationPolicy parse_calibration_policy(const std::string& name) {
  if (name.empty() || name == "1" || name == "auto") return CalibrationPolicy::measure_once;
  if (name == "cache") return CalibrationPolicy::cache_only;
  if (name == "0" || name == "off" || name == "anchors") return CalibrationPolicy::anchors;
  if (name == "force" || name == "recalibrate") return CalibrationPolicy::force;
  throw InvalidArgument("unknown calibration policy '" + name +
                        "' (expected 1/auto, cache, 0/off/anchors or force/recalibrate)");
}

}  // namespace tcemu
