// tcemu's environment variables, read once (app_common/environment.hpp).
#include "app_common/environment.hpp"
#include "app_common/cli.hpp"

#include <cstdlib>
#include <string>

#include "tcemu/error.hpp"

namespace tcemu::app {
namespace {

/// Runs `parse` on a variable's value, putting the variable's name in front of any error.
template <class F>
auto parsed(const char* name, const std::string& value, F&& parse) {
  try {
    return parse(value);
  } catch (const tcemu::Error& e) {
    throw tcemu::InvalidArgument(std::string(name) + ": " + e.what());
  }
}

/// A decimal integer in min..max by the options' rule (integer_in, app_common/cli.hpp), or throws
/// naming the variable.
long long integer(const char* name, const std::string& value, long long min, long long max) {
  std::string text = value;
  const std::string why = integer_in(min, max)(text);
  if (!why.empty()) throw tcemu::InvalidArgument(std::string(name) + ": " + why);
  return std::strtoll(value.c_str(), nullptr, 10);
}

}  // namespace

tcemu::ExecutionPolicy execution_policy_from(const std::function<const char*(const char*)>& lookup) {
  auto variable = [&](const char* name) {
    const char* v = lookup(name);
    return v ? std::string(v) : std::string();
  };
  tcemu::ExecutionPolicy p;
  if (auto v = variable("TCEMU_CUDA_KERNELS"); !v.empty())
    p.kernels = parsed("TCEMU_CUDA_KERNELS", v, tcemu::parse_cuda_kernels);
  p.fused_mma = parsed("TCEMU_CUDA_FUSED_MMA", variable("TCEMU_CUDA_FUSED_MMA"), tcemu::parse_fused_mma);
  p.crt_products =
      parsed("TCEMU_CUDA_CRT_PRODUCTS", variable("TCEMU_CUDA_CRT_PRODUCTS"), tcemu::parse_crt_products);
  if (auto v = variable("TCEMU_CUDA_ACC_CHUNK"); !v.empty())
    p.accumulation_chunk = integer("TCEMU_CUDA_ACC_CHUNK", v, 0, std::int64_t{1} << 40);
  if (auto v = variable("TCEMU_CUDA_DIRECT_C"); !v.empty()) {
    if (v != "0" && v != "1") throw tcemu::InvalidArgument("TCEMU_CUDA_DIRECT_C: '" + v + "' is not 0 or 1");
    p.direct_to_c = v == "1";
  }
  if (auto v = variable("TCEMU_CUDA_OZAKI_ACC_MB"); !v.empty())
    p.ozaki_accumulator_bytes = integer("TCEMU_CUDA_OZAKI_ACC_MB", v, 1, std::int64_t{1} << 40) << 20;
  p.overlap = parsed("TCEMU_CUDA_OVERLAP", variable("TCEMU_CUDA_OVERLAP"), tcemu::parse_overlap);
  p.orientation =
      parsed("TCEMU_CUDA_ORIENTATION", variable("TCEMU_CUDA_ORIENTATION"), tcemu::parse_orientation_policy);
  p.complex = parsed("TCEMU_CUDA_COMPLEX", variable("TCEMU_CUDA_COMPLEX"), tcemu::parse_complex_method);
  p.calibration =
      parsed("TCEMU_AUTO_CALIBRATE", variable("TCEMU_AUTO_CALIBRATE"), tcemu::parse_calibration_policy);
  if (auto x = variable("XDG_CACHE_HOME"); !x.empty()) p.calibration_cache_dir = x + "/tcemu";
  else if (auto h = variable("HOME"); !h.empty()) p.calibration_cache_dir = h + "/.cache/tcemu";
  return p;
}

tcemu::GemmOptions gemm_options(const tcemu::Scheme& scheme) {
  tcemu::GemmOptions o;
  o.scheme = scheme;
  o.execution = execution_policy_from_environment();
  return o;
}

const tcemu::ExecutionPolicy& execution_policy_from_environment() {
  static const tcemu::ExecutionPolicy policy =
      execution_policy_from([](const char* name) -> const char* { return std::getenv(name); });
  return policy;
}

}  // namespace tcemu::app
