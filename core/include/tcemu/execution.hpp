#pragma once
/// \file execution.hpp
/// How a backend executes a GEMM once its scheme is known: the execution policy of GemmOptions.
///
/// Every field has a default that is what measured fastest (docs/perf-notes.md), so a caller sets
/// none of them for normal use. The library never reads the environment: the applications and
/// tcemu-bench build a policy from the TCEMU_* variables once at start-up
/// (tcemu::app::execution_policy_from_environment(), apps/common), which is where those variables are
/// documented. The host backend ignores the CUDA-only fields.
#include <cstdint>
#include <string>

namespace tcemu {

/// Which implementation the CUDA backend runs for split schemes that have a fused kernel.
/// Measured on H100 and H200 at 8192^3 and at the knn and kmeans shapes (docs/perf-notes.md,
/// "Fused by default"): every fused kernel is faster than the same scheme multi-pass and 3-10x more
/// accurate (round-to-nearest promotion per MMA step instead of cuBLAS' truncating accumulation).
enum class CudaKernels {
  automatic,  ///< fused where the scheme has a fused kernel, else multi-pass
  fused,      ///< one kernel: all products, round-to-nearest promotion, combine inside (same as automatic)
  multipass,  ///< one cuBLAS GEMM per product group (into C directly for FP32 C, else accumulators + combine)
};

/// Parses "auto"/"automatic", "fused" or "multipass"/"multi-pass"; throws InvalidArgument naming the
/// value otherwise.
CudaKernels parse_cuda_kernels(const std::string& name);
/// "auto", "fused" or "multipass".
const char* to_string(CudaKernels k);

/// Which Tensor Core instruction the fused kernels use.
enum class FusedMma {
  automatic,  ///< wgmma (warp-specialised, TMA-fed) on compute capability 9.0, mma.sync elsewhere
  mma_sync,   ///< mma.sync on every device (for comparisons)
};

/// Parses "wgmma"/"auto"/"" (automatic) or "mma.sync"; throws InvalidArgument naming the value otherwise.
FusedMma parse_fused_mma(const std::string& name);

/// How the CUDA backend computes a complex GEMM (tcemu/cuda/gemm_cuda.hpp, complex_gemm_device).
enum class ComplexMethod {
  automatic,  ///< the real embedding wherever it applies (never more work than 4M), else 4M
  four_m,     ///< four real products (4M) always
  embed,      ///< the real embedding where it applies (else 4M)
  blas,       ///< cuBLAS CGEMM/ZGEMM for the native schemes (explicit only; else like automatic)
};

/// Parses "auto"/"" (automatic), "4m"/"4M" or "embed"; throws InvalidArgument naming the value
/// otherwise ("blas" is for callers that ask for it in code).
ComplexMethod parse_complex_method(const std::string& name);

/// Where `auto`'s cost model on the GPU comes from (tcemu/cuda/calibrate.hpp).
enum class CalibrationPolicy {
  measure_once,  ///< the cache file, else measured on first use and cached (default)
  cache_only,    ///< the cache file, else the H200 anchors (never measures)
  anchors,       ///< CostModel::h200_anchors() (no measurement, no file access)
  force,         ///< measured again once per process, then cached
};

/// Parses "1"/"auto"/"" (measure_once), "cache", "0"/"off"/"anchors", "force"/"recalibrate"; throws
/// InvalidArgument naming the value otherwise.
CalibrationPolicy parse_calibration_policy(const std::string& name);

/// The execution policy of one gemm call (GemmOptions::execution).
struct ExecutionPolicy {
  /// Fused kernel or multi-pass for split schemes with a fused kernel (CUDA backend).
  CudaKernels kernels = CudaKernels::automatic;
  /// Tensor Core instruction of the fused kernels (CUDA backend).
  FusedMma fused_mma = FusedMma::automatic;
  /// Multi-pass only: length (elements of k, rounded up to 16) of the chunks in which the dominant
  /// product group is accumulated with round-to-nearest additions; -1 = the rule that keeps the
  /// error near SGEMM's at every k (about 24 sqrt(k), docs/accuracy.md), 0 = no chunking.
  std::int64_t accumulation_chunk = -1;
  /// Multi-pass only: let cuBLAS accumulate the group products straight into an FP32 C when its
  /// layout allows (false: accumulators + a combine kernel, for comparisons).
  bool direct_to_c = true;
  /// int8-ozaki: bytes of INT32 accumulators one call may hold; rows run in blocks that fit (the
  /// result does not depend on it). Must be positive.
  std::int64_t ozaki_accumulator_bytes = std::int64_t{8} << 30;
  /// Complex GEMMs on the CUDA backend.
  ComplexMethod complex = ComplexMethod::automatic;
  /// `auto`'s cost model on the GPU when GemmOptions::cost_model is nullptr.
  CalibrationPolicy calibration = CalibrationPolicy::measure_once;
  /// Folder of the cost-model cache (tcemu/cuda/calibrate.hpp); "" = the model lives in the process
  /// only. The apps set $XDG_CACHE_HOME/tcemu, else $HOME/.cache/tcemu.
  std::string calibration_cache_dir;
};

}  // namespace tcemu
