#pragma once
/// \file environment.hpp
/// The one place the apps and tcemu-bench read tcemu's environment variables (the core library never
/// does): they become the fields of a tcemu::ExecutionPolicy (tcemu/execution.hpp).
///
///   TCEMU_CUDA_KERNELS       auto | fused | multipass          -> kernels
///   TCEMU_CUDA_FUSED_MMA     wgmma | mma.sync                   -> fused_mma
///   TCEMU_CUDA_CRT_PRODUCTS  wgmma | wgmma-int32 | cublas       -> crt_products (int8-crt)
///   TCEMU_CUDA_ACC_CHUNK     elements of k, 0 = no chunks        -> accumulation_chunk (multi-pass)
///   TCEMU_CUDA_DIRECT_C      0 = accumulators + combine kernel   -> direct_to_c (multi-pass)
///   TCEMU_CUDA_OZAKI_ACC_MB  MiB of INT32 accumulators (> 0)    -> ozaki_accumulator_bytes
///   TCEMU_CUDA_OVERLAP       products-while-planning | none     -> overlap
///   TCEMU_CUDA_ORIENTATION   layout | tiles                     -> orientation (fused kernels)
///   TCEMU_CUDA_COMPLEX       auto | 4m | 3m | embed             -> complex
///   TCEMU_AUTO_CALIBRATE     1/auto | cache | 0/off/anchors | force/recalibrate -> calibration
///   XDG_CACHE_HOME, HOME     the cost-model cache folder: $XDG_CACHE_HOME/tcemu, else
///                            $HOME/.cache/tcemu, else none      -> calibration_cache_dir
/// Unset or empty variables keep the policy's defaults.
#include <functional>

#include "tcemu/execution.hpp"
#include "tcemu/gemm.hpp"

namespace tcemu::app {

/// The execution policy the variables ask for: `lookup(name)` returns a variable's value, or nullptr
/// when it is unset. Throws tcemu::InvalidArgument "TCEMU_<NAME>: <problem>" for a value that does not
/// parse.
tcemu::ExecutionPolicy execution_policy_from(const std::function<const char*(const char*)>& lookup);

/// The execution policy the environment asks for, read on the first call and memoised for the
/// process. Throws tcemu::InvalidArgument "TCEMU_<NAME>: <problem>" for a value that does not
/// parse (an app's run_guarded turns it into one error line and exit status 2).
const tcemu::ExecutionPolicy& execution_policy_from_environment();

/// GemmOptions for `scheme` with the environment's execution policy (range policy and cost model at
/// their defaults): what every app and tcemu-bench hands to a gemm call.
tcemu::GemmOptions gemm_options(const tcemu::Scheme& scheme);

}  // namespace tcemu::app
